//! [`JointDesc`]: a joint described as users think of it (an anchor and an axis in world space,
//! at the bodies' poses when it is inserted) or exactly (a frame in each body).

use super::{Axis, Joint, JointImpulses, JointKind, Motor, Spring};
use crate::body::{BodyHandle, RigidBody};
use crate::error::WorldError;
use geom::na::Translation3;
use geom::{Isometry3, Point3, Real, UnitQuaternion, Vector3};

/// The softness of the rows holding a joint together, by default: 240 Hz, capped at half the
/// substep rate (240 Hz at the default 8 substeps of 1/60 s), damping ratio 20 (Box3D: 60 Hz
/// capped at a quarter, damping ratio 2). Stiffer than Box3D's so that a loaded chain does not
/// stretch (a soft hold sags by its load over `m omega^2`), and damped more so that two passes
/// settle it (see `response/solver/joint/` and `SolverConfig::joint_iterations`).
pub const JOINT_SOFTNESS: Spring = Spring {
    hertz: 240.0,
    damping_ratio: 20.0,
};

/// Where a description places its frames.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Placement {
    /// An anchor and a z axis in world space, the same for both bodies, at their poses at
    /// insertion.
    World { anchor: Point3, axis: Vector3 },
    /// Two anchors in world space (a distance joint), frames otherwise unrotated.
    Anchors([Point3; 2]),
    /// A frame in each body.
    Local([Isometry3; 2]),
}

/// A joint to insert with [`World::insert_joint`](crate::World::insert_joint): two bodies, where
/// they join, the kind, and options (`collide_connected`, break thresholds, softness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointDesc {
    pub(crate) bodies: [BodyHandle; 2],
    placement: Placement,
    pub(crate) kind: JointKind,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: Option<Real>,
    pub(crate) break_torque: Option<Real>,
    pub(crate) softness: Spring,
    pub(crate) user_data: u64,
}

impl JointDesc {
    fn at(bodies: [BodyHandle; 2], placement: Placement, kind: JointKind) -> Self {
        Self {
            bodies,
            placement,
            kind,
            collide_connected: false,
            break_force: None,
            break_torque: None,
            softness: JOINT_SOFTNESS,
            user_data: 0,
        }
    }

    /// A ball and socket at `anchor` (world space).
    pub fn spherical(a: BodyHandle, b: BodyHandle, anchor: Point3) -> Self {
        Self::spherical_about(a, b, anchor, Vector3::z())
    }

    /// A ball and socket at `anchor` whose cone and twist axis is `axis` (world space).
    pub fn spherical_about(a: BodyHandle, b: BodyHandle, anchor: Point3, axis: Vector3) -> Self {
        Self::at([a, b], Placement::World { anchor, axis }, JointKind::BALL)
    }

    /// A hinge through `anchor` about `axis` (world space).
    pub fn revolute(a: BodyHandle, b: BodyHandle, anchor: Point3, axis: Vector3) -> Self {
        let placement = Placement::World { anchor, axis };
        Self::at([a, b], placement, JointKind::Revolute(Axis::FREE))
    }

    /// A slider through `anchor` along `axis` (world space).
    pub fn prismatic(a: BodyHandle, b: BodyHandle, anchor: Point3, axis: Vector3) -> Self {
        let placement = Placement::World { anchor, axis };
        Self::at([a, b], placement, JointKind::Prismatic(Axis::FREE))
    }

    /// The bodies held as they are, about `anchor` (world space).
    pub fn weld(a: BodyHandle, b: BodyHandle, anchor: Point3) -> Self {
        let placement = Placement::World {
            anchor,
            axis: Vector3::z(),
        };
        let kind = JointKind::Weld {
            linear: None,
            angular: None,
        };
        Self::at([a, b], placement, kind)
    }

    /// `anchor_a` on `a` and `anchor_b` on `b` (world space) held as far apart as they are.
    pub fn distance(a: BodyHandle, b: BodyHandle, anchor_a: Point3, anchor_b: Point3) -> Self {
        let length = (anchor_b - anchor_a).norm();
        let kind = JointKind::Distance {
            length,
            min: 0.0,
            max: length,
            spring: None,
        };
        Self::at([a, b], Placement::Anchors([anchor_a, anchor_b]), kind)
    }

    /// A rope: `anchor_a` on `a` and `anchor_b` on `b` (world space) at most `max_length`
    /// apart, free when closer.
    pub fn rope(
        a: BodyHandle,
        b: BodyHandle,
        anchor_a: Point3,
        anchor_b: Point3,
        max_length: Real,
    ) -> Self {
        let kind = JointKind::Distance {
            length: max_length,
            min: 0.0,
            max: max_length,
            spring: Some(Spring {
                hertz: 0.0,
                damping_ratio: 0.0,
            }),
        };
        Self::at([a, b], Placement::Anchors([anchor_a, anchor_b]), kind)
    }

    /// A joint of `kind` at exactly `frame_a` in `a` and `frame_b` in `b` (each in its body's
    /// frame).
    pub fn local(
        kind: JointKind,
        a: BodyHandle,
        b: BodyHandle,
        frame_a: Isometry3,
        frame_b: Isometry3,
    ) -> Self {
        Self::at([a, b], Placement::Local([frame_a, frame_b]), kind)
    }

    /// Replaces the kind and its settings.
    pub fn kind(mut self, kind: JointKind) -> Self {
        self.kind = kind;
        self
    }

    /// Limits: a hinge's or a spherical joint's twist angles (rad), a slider's translations
    /// (m), a distance joint's lengths (m). A weld ignores them.
    pub fn limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::Revolute(axis) | JointKind::Prismatic(axis) => {
                axis.limits = Some([lower, upper]);
            }
            JointKind::Spherical { twist, .. } => *twist = Some([lower, upper]),
            JointKind::Distance { min, max, .. } => (*min, *max) = (lower, upper),
            JointKind::Weld { .. } => {}
        }
        self
    }

    /// A spherical joint's cone: the largest angle (rad) between the frames' z axes.
    pub fn cone(mut self, angle: Real) -> Self {
        if let JointKind::Spherical { cone, .. } = &mut self.kind {
            *cone = Some(angle);
        }
        self
    }

    /// A spring toward `target` (a hinge's angle, a slider's translation) or toward the
    /// distance joint's length (`target` is then the length), of `hertz` and `damping_ratio`.
    /// A weld's spring softens both its holds; a spherical joint's turns `b`'s frame toward
    /// `a`'s (`target` is not read by either: set the frames to the pose to hold).
    pub fn spring(mut self, hertz: Real, damping_ratio: Real, target: Real) -> Self {
        let spring = Some(Spring {
            hertz,
            damping_ratio,
        });
        match &mut self.kind {
            JointKind::Revolute(axis) | JointKind::Prismatic(axis) => {
                (axis.spring, axis.target) = (spring, target);
            }
            JointKind::Distance {
                length, spring: s, ..
            } => (*s, *length) = (spring, target),
            JointKind::Weld { linear, angular } => (*linear, *angular) = (spring, spring),
            JointKind::Spherical { spring: s, .. } => *s = spring,
        }
        self
    }

    /// A motor driving a hinge or slider at `speed` with at most `max_force`.
    pub fn motor(mut self, speed: Real, max_force: Real) -> Self {
        if let JointKind::Revolute(axis) | JointKind::Prismatic(axis) = &mut self.kind {
            axis.motor = Some(Motor { speed, max_force });
        }
        self
    }

    /// Joint friction: the largest torque (hinge, spherical) or force (slider) resisting
    /// motion.
    pub fn friction(mut self, friction: Real) -> Self {
        match &mut self.kind {
            JointKind::Revolute(axis) | JointKind::Prismatic(axis) => axis.friction = friction,
            JointKind::Spherical { friction: f, .. } => *f = friction,
            JointKind::Weld { .. } | JointKind::Distance { .. } => {}
        }
        self
    }

    /// Whether the two bodies collide with each other (default false: their contacts are
    /// skipped).
    pub fn collide_connected(mut self, collide: bool) -> Self {
        self.collide_connected = collide;
        self
    }

    /// The joint breaks (is removed, and reported once) on the step its force exceeds `force`
    /// (N).
    pub fn break_force(mut self, force: Real) -> Self {
        self.break_force = Some(force);
        self
    }

    /// The joint breaks on the step its torque exceeds `torque` (N m).
    pub fn break_torque(mut self, torque: Real) -> Self {
        self.break_torque = Some(torque);
        self
    }

    /// Stores a word for the user on the joint, saved and hashed with it and never read by the
    /// engine.
    pub fn user_data(mut self, data: u64) -> Self {
        self.user_data = data;
        self
    }

    /// The softness of the rows holding the joint together (default [`JOINT_SOFTNESS`]).
    pub fn softness(mut self, hertz: Real, damping_ratio: Real) -> Self {
        self.softness = Spring {
            hertz,
            damping_ratio,
        };
        self
    }

    /// The joint, its frames placed in its bodies (`a` and `b` are the bodies of
    /// `self.bodies`), then checked.
    pub(crate) fn build(&self, a: &RigidBody, b: &RigidBody) -> Result<Joint, WorldError> {
        let frames = match self.placement {
            Placement::World { anchor, axis } => {
                geom::validate::finite_point3("desc.anchor", &anchor)?;
                let axis = geom::validate::direction3("desc.axis", &axis)?.normalize();
                let rotation = UnitQuaternion::rotation_between(&Vector3::z(), &axis)
                    .unwrap_or_else(|| {
                        // `axis` is -z: a half turn about x.
                        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f32::consts::PI)
                    });
                let frame = Isometry3::from_parts(Translation3::from(anchor.coords), rotation);
                [a.pose.inverse() * frame, b.pose.inverse() * frame]
            }
            Placement::Anchors([pa, pb]) => {
                geom::validate::finite_point3("desc.anchor_a", &pa)?;
                geom::validate::finite_point3("desc.anchor_b", &pb)?;
                let at = |pose: &Isometry3, p: Point3| {
                    Isometry3::from_parts(
                        Translation3::from(pose.inverse_transform_point(&p).coords),
                        UnitQuaternion::identity(),
                    )
                };
                [at(&a.pose, pa), at(&b.pose, pb)]
            }
            Placement::Local(frames) => frames,
        };
        let joint = Joint {
            bodies: self.bodies,
            frames,
            kind: self.kind,
            collide_connected: self.collide_connected,
            break_force: self.break_force,
            break_torque: self.break_torque,
            softness: self.softness,
            impulses: JointImpulses::default(),
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
            user_data: self.user_data,
        };
        super::check_joint("desc", &joint)?;
        Ok(joint)
    }
}
