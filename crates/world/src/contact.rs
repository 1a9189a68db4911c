//! Contacts between bodies: [`ContactPair`] (this step's contacts, as the world reports them),
//! [`ContactEvent`] (which pairs started and stopped touching, and the diff that makes them), and
//! the persistent contact set ([`CachedContact`]: last step's impulses, per pair and point, which
//! warm start the solver), and the kept contacts of contact reuse ([`KeptContact`]).

use crate::body::BodyHandle;
use crate::error::WorldError;
use crate::limits::{self, Range};
use arrayvec::ArrayVec;
use collide::{AxisCache, AxisFeature, Contact, ContactPoint, FeatureId, PartAxis};
use geom::{ConvexHull, Isometry3, Point3, Real, Shape, Vector3, validate};
use serde::{Deserialize, Serialize};

/// Two bodies in contact during the last step. `a < b` in handle order; the contact's normal
/// points from `a` toward `b`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactPair {
    /// The first body.
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// How they touch (before the response moved them), world space.
    pub contact: Contact,
}

/// A change in which bodies touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactEvent {
    /// The two bodies (in handle order) began touching this step.
    Started(BodyHandle, BodyHandle),
    /// The two bodies stopped touching this step, or one of them was removed.
    Stopped(BodyHandle, BodyHandle),
}

/// A contact that began this step with its bodies approaching faster than a collider of the
/// pair asked for ([`crate::ColliderFlags::hit_speed`]; Box3D's contact hit event).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HitEvent {
    /// The first body (the lower handle).
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// The deepest point of the contact, world space.
    pub point: geom::Point3,
    /// The contact normal, unit, from `a` toward `b`.
    pub normal: geom::Vector3,
    /// How fast the bodies approached along the normal at that point, before the step's
    /// response (m/s, positive).
    pub speed: geom::Real,
}

/// A sensor's change: a body began or ended to overlap it. Two sensors never sense each
/// other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SensorEvent {
    /// `visitor` began to overlap `sensor` this step.
    Begin {
        /// The sensor's body.
        sensor: BodyHandle,
        /// The body that came in.
        visitor: BodyHandle,
    },
    /// `visitor` stopped overlapping `sensor` this step, or one of them was removed, or their
    /// filters or sensor flags changed so that they no longer meet.
    End {
        /// The sensor's body.
        sensor: BodyHandle,
        /// The body that left.
        visitor: BodyHandle,
    },
}

/// Appends to `events` the pairs in `now` but not in `before` (started) and those in `before`
/// but not in `now` (stopped), merging the two sorted lists so that events come in pair order.
pub(crate) fn diff_events(
    before: &[(BodyHandle, BodyHandle)],
    now: &[(BodyHandle, BodyHandle)],
    events: &mut Vec<ContactEvent>,
) {
    diff_pairs(before, now, |started, (a, b)| {
        events.push(if started {
            ContactEvent::Started(a, b)
        } else {
            ContactEvent::Stopped(a, b)
        })
    });
}

/// Calls `change(true, pair)` for the pairs in `now` but not in `before` and `change(false,
/// pair)` for those in `before` but not in `now`, in pair order (both lists sorted).
pub(crate) fn diff_pairs(
    before: &[(BodyHandle, BodyHandle)],
    now: &[(BodyHandle, BodyHandle)],
    mut change: impl FnMut(bool, (BodyHandle, BodyHandle)),
) {
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(old), Some(new)) if old == new => {
                i += 1;
                j += 1;
            }
            (Some(old), Some(new)) if old < new => {
                change(false, *old);
                i += 1;
            }
            (Some(old), None) => {
                change(false, *old);
                i += 1;
            }
            (_, Some(new)) => {
                change(true, *new);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// The impulses the solver applied at one contact point in the last step, kept for warm
/// starting the next: matched to next step's point of the same pair by its [`FeatureId`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CachedPoint {
    /// The features that meet at the point.
    pub id: FeatureId,
    /// The accumulated normal impulse (newton seconds, `>= 0`).
    pub normal_impulse: Real,
}

/// One pair's entry in the persistent contact set: simulation state, saved in snapshots and
/// hashed, so that a world restored mid-contact steps exactly as the original.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedContact {
    /// The first body (`a < b` in handle order).
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// Up to four points with their normal impulses.
    pub points: ArrayVec<CachedPoint, 4>,
    /// The accumulated friction impulse at the friction centre, world space (newton seconds):
    /// a vector, so that it carries over when the next step's tangents differ.
    pub friction_impulse: Vector3,
    /// The accumulated twist friction impulse about the normal (newton metre seconds).
    pub twist_impulse: Real,
    /// The accumulated angular impulse that holds the bodies' relative tilt, world space
    /// (newton metre seconds).
    pub tilt_impulse: Vector3,
}

impl CachedContact {
    /// Checks the entry read from a snapshot; the error names `field`'s bad part.
    pub(crate) fn validate(&self, field: &str) -> Result<(), WorldError> {
        for (i, point) in self.points.iter().enumerate() {
            let name = format!("{field}.points[{i}]");
            limits::within(
                &format!("{name}.normal_impulse"),
                point.normal_impulse,
                Range::Between(0.0, limits::MAX_IMPULSE, "N s"),
            )?;
        }
        validate::finite_vector3(&format!("{field}.friction_impulse"), &self.friction_impulse)?;
        limits::components_within(
            || format!("{field}.friction_impulse"),
            &self.friction_impulse,
            Range::AtMost(limits::MAX_IMPULSE, "N s"),
        )?;
        validate::finite_vector3(&format!("{field}.tilt_impulse"), &self.tilt_impulse)?;
        limits::components_within(
            || format!("{field}.tilt_impulse"),
            &self.tilt_impulse,
            Range::AtMost(limits::MAX_IMPULSE, "N m s"),
        )?;
        validate::finite(&format!("{field}.twist_impulse"), self.twist_impulse)?;
        limits::within(
            &format!("{field}.twist_impulse"),
            self.twist_impulse,
            Range::Between(-limits::MAX_IMPULSE, limits::MAX_IMPULSE, "N m s"),
        )?;
        Ok(())
    }
}

/// A pair of hulls' (or a hull's and a box's) separating axis as the last step's narrow phase
/// left it ([`AxisCache`], Box3D's separating axis cache): the next step tries it before the
/// full separating axis test. A pair of bodies with a compound keeps one per pair of
/// polyhedral parts that met (`parts`, as [`PartAxis`] names them). One per such pair (of
/// bodies and parts) the step tested that had an axis, sorted by bodies, then parts.
/// Simulation state: saved in snapshots and hashed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CachedAxis {
    /// The first body (`a < b` in handle order).
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// The part of each body's compound the axis belongs to (0 for a body whose shape is not
    /// a compound).
    pub parts: [u16; 2],
    /// The axis.
    pub axis: AxisCache,
}

impl CachedAxis {
    /// The entry of bodies `a` and `b` for `held`.
    pub(crate) fn new(a: BodyHandle, b: BodyHandle, held: PartAxis) -> Self {
        Self {
            a,
            b,
            parts: held.parts,
            axis: held.axis,
        }
    }

    /// The entry without its bodies, as the narrow phase reads it.
    pub(crate) fn held(&self) -> PartAxis {
        PartAxis {
            parts: self.parts,
            axis: self.axis,
        }
    }

    /// Its bodies and parts: the order entries are kept in.
    pub(crate) fn key(&self) -> (BodyHandle, BodyHandle, [u16; 2]) {
        (self.a, self.b, self.parts)
    }

    /// Checks the entry read from a snapshot against the two bodies' shapes: each part a part
    /// of its body's compound (0 for a body that has none), the two leaves a pair of
    /// polyhedra (hulls, or a hull and a box), its features within their counts, its
    /// separation finite and within the world's lengths.
    pub(crate) fn validate(&self, field: &str, shapes: (&Shape, &Shape)) -> Result<(), WorldError> {
        fn leaf(shape: &Shape, part: u16) -> Option<&Shape> {
            match shape {
                Shape::Compound { compound } => {
                    compound.parts().get(usize::from(part)).map(|p| &p.shape)
                }
                _ => (part == 0).then_some(shape),
            }
        }
        let (Some(leaf_a), Some(leaf_b)) =
            (leaf(shapes.0, self.parts[0]), leaf(shapes.1, self.parts[1]))
        else {
            return Err(WorldError::OutOfRange {
                field: format!("{field}.parts"),
                value: Real::from(self.parts[0].max(self.parts[1])),
                range: "a part of each body's compound (0 for a body that has none)".into(),
            });
        };
        let shapes = (leaf_a, leaf_b);
        // Each shape's faces and half-edges as a polyhedron.
        let counts = |shape: &Shape| {
            let hull: &ConvexHull = match shape {
                Shape::ConvexHull { hull } => hull,
                Shape::Cuboid { .. } => ConvexHull::unit_box(),
                _ => return None,
            };
            Some((hull.faces().len(), hull.half_edges().len()))
        };
        let bad = |what: &str, value: Real, range: &str| {
            Err(WorldError::OutOfRange {
                field: format!("{field}.{what}"),
                value,
                range: range.into(),
            })
        };
        let both_boxes = matches!(shapes, (Shape::Cuboid { .. }, Shape::Cuboid { .. }));
        let (Some((faces_a, edges_a)), Some((faces_b, edges_b)), false) =
            (counts(shapes.0), counts(shapes.1), both_boxes)
        else {
            return bad("a", 0.0, "a pair of a hull and a hull or a box");
        };
        match self.axis.feature {
            AxisFeature::FaceA(f) if usize::from(f) >= faces_a => {
                return bad("axis.feature", f.into(), "a face of the first body's shape");
            }
            AxisFeature::FaceB(f) if usize::from(f) >= faces_b => {
                return bad(
                    "axis.feature",
                    f.into(),
                    "a face of the second body's shape",
                );
            }
            AxisFeature::Edges(ea, eb)
                if usize::from(ea) >= edges_a || usize::from(eb) >= edges_b =>
            {
                return bad(
                    "axis.feature",
                    ea.max(eb).into(),
                    "a half-edge of each shape",
                );
            }
            _ => {}
        }
        validate::finite(&format!("{field}.axis.separation"), self.axis.separation)?;
        limits::within(
            &format!("{field}.axis.separation"),
            self.axis.separation,
            Range::Between(-limits::MAX_COORDINATE, limits::MAX_COORDINATE, "m"),
        )?;
        Ok(())
    }
}

/// One point of a [`KeptContact`]: where it lies on each body's surface, in that body's
/// collider frame, and the features that meet there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KeptPoint {
    /// The point on the first body's surface, in its collider frame.
    pub on_a: Point3,
    /// The point on the second body's surface, in its collider frame.
    pub on_b: Point3,
    /// The features that meet at the point.
    pub id: FeatureId,
}

/// A pair's contact as the narrow phase last computed it, kept in its bodies' collider frames
/// for contact reuse (`SolverConfig::reuse_distance`): while the pair's relative pose stays
/// within the reuse distance of `relative`, the step carries these points with the bodies
/// instead of testing the pair again. Simulation state: saved in snapshots and hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptContact {
    /// The first body (`a < b` in handle order).
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// The second body's collider pose in the first's collider frame when the contact was
    /// computed.
    pub relative: Isometry3,
    /// The contact normal (unit, from `a` toward `b`) in the first body's collider frame.
    pub normal: Vector3,
    /// Up to four points.
    pub points: ArrayVec<KeptPoint, 4>,
}

impl KeptContact {
    /// `contact` of the pair `a`, `b` (world space), its colliders at `pose_a` and `pose_b`
    /// (`relative`, the second's pose in the first's frame, as the caller has it), seen from
    /// the bodies: each point's two surface points (`depth / 2` either side of the midway
    /// point, along the normal) in their collider frames.
    pub(crate) fn new(
        (a, b): (BodyHandle, BodyHandle),
        contact: &Contact,
        (pose_a, pose_b): (&Isometry3, &Isometry3),
        relative: Isometry3,
    ) -> Self {
        let n = contact.normal;
        let points = contact
            .points
            .iter()
            .map(|p| {
                let half = n * (0.5 * p.depth);
                KeptPoint {
                    on_a: pose_a.inverse_transform_point(&(p.position + half)),
                    on_b: pose_b.inverse_transform_point(&(p.position - half)),
                    id: p.id,
                }
            })
            .collect();
        Self {
            a,
            b,
            relative,
            normal: pose_a.rotation.inverse_transform_vector(&n),
            points,
        }
    }

    /// A bound on how far any point of the second body, within `radius_b` of its collider's
    /// origin, has moved relative to the first body since the contact was computed, given
    /// their relative pose now: the change of translation plus the chord the turn sweeps at
    /// that radius (`2 r sin(theta / 2)`, twice the radius times the length of the vector part
    /// of the quaternion from the old turn to the new: no trigonometry).
    #[inline]
    pub(crate) fn drift(&self, relative: &Isometry3, radius_b: Real) -> Real {
        let moved = (relative.translation.vector - self.relative.translation.vector).norm();
        let turn = self.relative.rotation.quaternion().conjugate() * relative.rotation.quaternion();
        moved + 2.0 * turn.imag().norm() * radius_b
    }

    /// The kept points with the first collider at `pose_a` and the second at `relative` to
    /// it, written into `out` (whose points must be empty): each point's depth along the
    /// normal between its two surface points (in the first body's frame), its position midway
    /// (in world space); points further apart than `margin` are left out. The contact's depth
    /// is its deepest point's. Whether any point is left.
    pub(crate) fn contact_into(
        &self,
        pose_a: &Isometry3,
        relative: &Isometry3,
        margin: Real,
        out: &mut Contact,
    ) -> bool {
        debug_assert!(out.points.is_empty());
        // Rotation matrices once, for the eight point transforms.
        let to_a = relative.rotation.to_rotation_matrix();
        let to_world = pose_a.rotation.to_rotation_matrix();
        let mut depth = Real::NEG_INFINITY;
        for p in &self.points {
            let on_b = to_a * p.on_b + relative.translation.vector;
            let point_depth = (p.on_a - on_b).dot(&self.normal);
            if point_depth >= -margin {
                depth = depth.max(point_depth);
                let midway = geom::na::center(&p.on_a, &on_b);
                out.points.push(ContactPoint {
                    position: to_world * midway + pose_a.translation.vector,
                    depth: point_depth,
                    id: p.id,
                });
            }
        }
        out.normal = to_world * self.normal;
        out.depth = depth;
        !out.points.is_empty()
    }

    /// Whether the entry passes [`KeptContact::validate`] (by a stricter test, without
    /// naming anything): the step keeps only contacts that do, so that every world saves and
    /// restores (a contact computed far from the origin, where single precision is coarse,
    /// may not, and is then computed again next step instead).
    pub(crate) fn is_sound(&self, radii: (Real, Real)) -> bool {
        let q = self.relative.rotation.quaternion();
        let t = &self.relative.translation.vector;
        let reach = reach(radii);
        q.coords.iter().all(|c| c.is_finite())
            && (q.norm() - 1.0).abs() < 0.5 * validate::UNIT_TOLERANCE
            && t.iter().all(|x| x.abs() < limits::MAX_COORDINATE)
            && self.normal.iter().all(|x| x.is_finite())
            && (self.normal.norm() - 1.0).abs() < 0.5e-3
            && self.points.iter().all(|p| {
                [p.on_a, p.on_b]
                    .iter()
                    .all(|on| on.coords.iter().all(|x| x.is_finite()) && on.coords.norm() < reach)
            })
    }

    /// Checks the entry read from a snapshot, its bodies' collider shapes reaching `radii`
    /// from their origins; the error names `field`'s bad part. Its points must lie within
    /// twice the two radii of their collider's origin (a computed point lies on its body's
    /// surface, or for a deep overlap at most half the depth, itself at most the sum of the
    /// radii, off it), so that a hostile file cannot hand the solver a contact deeper than the
    /// bodies are large.
    pub(crate) fn validate(&self, field: &str, radii: (Real, Real)) -> Result<(), WorldError> {
        validate::isometry(&format!("{field}.relative"), &self.relative)?;
        limits::components_within(
            || format!("{field}.relative.translation"),
            &self.relative.translation.vector,
            Range::Around(limits::MAX_COORDINATE, "m", "the origin"),
        )?;
        let normal = validate::direction3(&format!("{field}.normal"), &self.normal)?;
        if (normal.norm() - 1.0).abs() > 1e-3 {
            return Err(WorldError::OutOfRange {
                field: format!("{field}.normal"),
                value: normal.norm(),
                range: "a unit vector".into(),
            });
        }
        let reach = reach(radii);
        for (i, point) in self.points.iter().enumerate() {
            for (side, on) in [("on_a", &point.on_a), ("on_b", &point.on_b)] {
                let name = format!("{field}.points[{i}].{side}");
                validate::finite_point3(&name, on)?;
                if on.coords.norm() > reach {
                    return Err(WorldError::OutOfRange {
                        field: name,
                        value: on.coords.norm(),
                        range: format!(
                            "within {reach} m of the collider's origin (near its shape)"
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// How far from its collider's origin a kept point may lie, its two bodies' shapes reaching
/// `radii` from theirs: twice the sum (see [`KeptContact::validate`]).
fn reach(radii: (Real, Real)) -> Real {
    2.0 * (radii.0 + radii.1) * 1.01 + 0.01
}
