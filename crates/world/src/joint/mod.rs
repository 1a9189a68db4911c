//! Joints: two bodies held together at an anchor frame on each (Box3D's and Box2D v3's joint
//! kinds and semantics), solved in the soft step beside the contacts
//! (`response/solver/joint/`).
//!
//! A joint joins body `a` and body `b` (one may be static) at a frame fixed in each body
//! (`frames`, in the body's frame: relative to its origin, not its centre of mass). The frames'
//! z axes carry the joint's axis: the hinge of a revolute joint, the slide of a prismatic one,
//! the cone and twist axis of a spherical one. Angles are those of `b`'s frame relative to
//! `a`'s about that axis; translations are `b`'s anchor relative to `a`'s along it.
//!
//! Here: the public types ([`Joint`], [`JointKind`] and its parts, [`JointEvent`],
//! [`JointReading`]); `desc.rs` the builder [`JointDesc`]; `validate.rs` the one validator
//! that insertion, setters and snapshot restore call; `world.rs` the world's joint API.

mod desc;
pub(crate) mod math;
mod validate;
mod world;

pub use desc::{JOINT_SOFTNESS, JointDesc};
pub use validate::{MAX_JOINT_ANGLE, MAX_JOINT_HERTZ};
pub(crate) use validate::{check_joint, check_spring};

use crate::body::BodyHandle;
use geom::{Isometry3, Real, Vector3};
use serde::{Deserialize, Serialize};

slotmap::new_key_type! {
    /// A joint's key in its world; stays valid across snapshot round trips. A removed or
    /// broken joint's handle is refused by name, never reused for another joint.
    pub struct JointHandle;
}

/// A spring: a soft constraint of a natural frequency and damping ratio (Box2D v3's soft
/// step: implicit, so any stiffness is stable). Zero hertz pulls with no force.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spring {
    /// Natural frequency (Hz), `>= 0`.
    pub hertz: Real,
    /// Damping ratio (1 is critical), `>= 0`.
    pub damping_ratio: Real,
}

/// A velocity motor: drives the joint's speed along or about its axis to `speed` with at most
/// `max_force` (N for a slide, N m for a turn).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Motor {
    /// The target speed (rad/s or m/s).
    pub speed: Real,
    /// The largest force or torque the motor applies, `>= 0`.
    pub max_force: Real,
}

/// What a revolute or prismatic joint does along its one free axis: limits, a spring toward a
/// target, a motor and friction, each optional, all solved together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// `[lower, upper]` (radians for a hinge, in `[-0.99 pi, 0.99 pi]`; metres for a slide),
    /// `lower <= upper`.
    pub limits: Option<[Real; 2]>,
    /// A spring pulling toward `target`.
    pub spring: Option<Spring>,
    /// The spring's rest angle (rad) or translation (m).
    pub target: Real,
    /// A velocity motor.
    pub motor: Option<Motor>,
    /// Joint friction: the largest torque (N m) or force (N) resisting motion, `>= 0`.
    pub friction: Real,
}

impl Axis {
    /// A free axis: no limits, spring, motor or friction.
    pub const FREE: Self = Self {
        limits: None,
        spring: None,
        target: 0.0,
        motor: None,
        friction: 0.0,
    };
}

/// The kind of a joint and its settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum JointKind {
    /// A ball and socket: the anchors coincide, the bodies turn freely about them.
    Spherical {
        /// The largest angle (rad, in `(0, pi]`) between the frames' z axes.
        cone: Option<Real>,
        /// `[lower, upper]` twist of `b`'s frame about its z axis (rad, in
        /// `[-0.99 pi, 0.99 pi]`).
        twist: Option<[Real; 2]>,
        /// Friction: the largest torque (N m) resisting any turn, `>= 0`.
        friction: Real,
        /// A spring turning `b`'s frame toward `a`'s (Box3D's spherical spring with its
        /// target rotation the identity: a ragdoll's muscle tone), soft in both passes.
        /// Saved beside the joints (`Snapshot::joint_springs`), so that the joints' own
        /// saved form is that of the formats before it.
        #[serde(skip)]
        spring: Option<Spring>,
    },
    /// A hinge about the frames' z axis.
    Revolute(Axis),
    /// A slider along the frames' z axis: no relative turn.
    Prismatic(Axis),
    /// The frames held together: rigid (the joint's own softness) or, with springs, soft.
    Weld {
        /// A spring for the anchor's offset instead of the rigid hold.
        linear: Option<Spring>,
        /// A spring for the relative turn instead of the rigid hold.
        angular: Option<Spring>,
    },
    /// The anchors kept `length` apart (metres): rigidly without a spring; pulled toward it
    /// by the spring and held within `[min, max]` with one (zero hertz: a rope of `max`).
    Distance {
        /// The rest length, `> 0`.
        length: Real,
        /// The shortest length, `>= 0`.
        min: Real,
        /// The longest length, `>= min`.
        max: Real,
        /// With a spring, the length is soft and limited by `min` and `max`.
        spring: Option<Spring>,
    },
}

impl JointKind {
    /// A plain ball and socket: no cone, twist, friction or spring.
    pub const BALL: Self = Self::Spherical {
        cone: None,
        twist: None,
        friction: 0.0,
        spring: None,
    };

    /// Whether it is a plain ball and socket (its anchors only; `-0` friction counts as none).
    pub fn is_plain_ball(&self) -> bool {
        matches!(
            self,
            Self::Spherical {
                cone: None,
                twist: None,
                friction,
                spring: None,
            } if *friction == 0.0
        )
    }

    /// The kind's name, as errors and the viewer write it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Spherical { .. } => "spherical",
            Self::Revolute(_) => "revolute",
            Self::Prismatic(_) => "prismatic",
            Self::Weld { .. } => "weld",
            Self::Distance { .. } => "distance",
        }
    }
}

/// The accumulated impulses of a joint's rows over the last step's last substep (N s): what the
/// next step warm starts from, part of the world's state. Which fields a kind uses is in
/// `response/solver/joint/`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct JointImpulses {
    /// The anchor rows (spherical, revolute, weld: three; prismatic: the two across the slide;
    /// distance: the length row in `x`).
    pub linear: Vector3,
    /// The rows holding the turn (weld, prismatic: three; revolute: the two across the hinge;
    /// a spherical joint's spring: three).
    pub angular: Vector3,
    /// The spring along or about the axis.
    pub spring: Real,
    /// The motor.
    pub motor: Real,
    /// Friction (revolute and prismatic in `x`; spherical, all three).
    pub friction: Vector3,
    /// The lower and upper limit (and a spherical joint's cone).
    pub lower: Real,
    /// See `lower`.
    pub upper: Real,
    /// A spherical joint's cone limit.
    pub cone: Real,
}

/// A joint: two bodies, a frame on each, a kind with its settings, and its state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    pub(crate) bodies: [BodyHandle; 2],
    pub(crate) frames: [Isometry3; 2],
    pub(crate) kind: JointKind,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: Option<Real>,
    pub(crate) break_torque: Option<Real>,
    pub(crate) softness: Spring,
    /// State: the accumulated impulses (warm starting).
    pub(crate) impulses: JointImpulses,
    /// The reaction of the last step on body `b` (N and N m, world space).
    pub(crate) force: Vector3,
    pub(crate) torque: Vector3,
    /// A word for the user, never read by the engine (saved beside the joints in snapshots,
    /// so that format 6 to 9 joints still read).
    #[serde(skip)]
    pub(crate) user_data: u64,
}

impl Joint {
    /// The two bodies, `a` then `b`.
    pub fn bodies(&self) -> [BodyHandle; 2] {
        self.bodies
    }

    /// The anchor frames, each in its body's frame.
    pub fn frames(&self) -> [Isometry3; 2] {
        self.frames
    }

    /// The kind and its settings.
    pub fn kind(&self) -> &JointKind {
        &self.kind
    }

    /// Whether the two bodies collide with each other (by default they do not).
    pub fn collide_connected(&self) -> bool {
        self.collide_connected
    }

    /// Whether it has a break force or torque.
    pub(crate) fn breakable(&self) -> bool {
        self.break_force.is_some() || self.break_torque.is_some()
    }

    /// The force (N) above which the joint breaks, if any.
    pub fn break_force(&self) -> Option<Real> {
        self.break_force
    }

    /// The torque (N m) above which the joint breaks, if any.
    pub fn break_torque(&self) -> Option<Real> {
        self.break_torque
    }

    /// The softness of the rows that hold the joint together.
    pub fn softness(&self) -> Spring {
        self.softness
    }

    /// The user's word (see [`JointDesc::user_data`] and `World::set_joint_user_data`).
    pub fn user_data(&self) -> u64 {
        self.user_data
    }

    /// The accumulated impulses (what the next step warm starts from).
    pub fn impulses(&self) -> &JointImpulses {
        &self.impulses
    }

    /// The force the joint applied to body `b` in the last step (N, world space; `a` got its
    /// opposite).
    pub fn force(&self) -> Vector3 {
        self.force
    }

    /// The torque the joint applied to body `b` in the last step about its anchor (N m, world
    /// space), limits, springs, motors and friction included.
    pub fn torque(&self) -> Vector3 {
        self.torque
    }
}

/// A joint's state, read from its bodies' poses and velocities now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointReading {
    /// The turn of `b`'s frame about the z axis of `a`'s (rad, in `(-pi, pi]`): the hinge
    /// angle, a spherical joint's twist.
    pub angle: Real,
    /// How fast that angle changes (rad/s).
    pub angular_speed: Real,
    /// The angle between the frames' z axes (rad): a spherical joint's swing.
    pub swing: Real,
    /// `b`'s anchor relative to `a`'s along `a`'s z axis (m): the slider's translation.
    pub translation: Real,
    /// How fast that translation changes (m/s).
    pub speed: Real,
    /// The distance between the anchors (m).
    pub length: Real,
    /// The anchors in world space.
    pub anchors: [geom::Point3; 2],
    /// The force and torque on `b` in the last step ([`Joint::force`], [`Joint::torque`]).
    pub force: Vector3,
    /// See `force`.
    pub torque: Vector3,
}

/// What happened to a joint in the last step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointEvent {
    /// Its reaction exceeded its break force or torque: it was removed. Reported once.
    Broken {
        /// The joint's handle (now unknown to the world).
        joint: JointHandle,
        /// Its bodies, `a` then `b`.
        bodies: [BodyHandle; 2],
    },
}
