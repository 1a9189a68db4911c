//! Contacts: the minimum translation (normal and depth) and the contact points of a touching pair.

use arrayvec::ArrayVec;
use geom::{Point3, Real, Vector3};
use serde::{Deserialize, Serialize};

/// Names the pair of features a contact point comes from, so that a solver can match points
/// from one step to the next (warm starting). Equal ids in two steps mean the same features.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct FeatureId(pub u32);

/// One point of a contact, world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactPoint {
    /// Midway between the two surfaces.
    pub position: Point3,
    /// How deep the shapes overlap at this point, along the contact normal (`>= 0` up to rounding).
    pub depth: Real,
    /// The features that meet here.
    pub id: FeatureId,
}

/// How two intersecting shapes touch, world space.
///
/// `normal` is unit and points from the first shape toward the second; `depth >= 0`. Moving
/// the second shape by `normal * depth`, or the first by `-normal * depth`, leaves them just
/// touching: `(normal, depth)` is the minimum translation (MTD).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// Unit, from the first shape toward the second.
    pub normal: Vector3,
    /// The penetration depth along `normal`.
    pub depth: Real,
    /// Up to 4 points (a face contact), 1 for edge-edge, vertex-face and spheres.
    pub points: ArrayVec<ContactPoint, 4>,
}

impl Contact {
    /// The same contact seen from the other shape: the normal reversed, the points unchanged.
    #[inline]
    pub fn flipped(mut self) -> Self {
        self.normal = -self.normal;
        self
    }

    /// A contact with a single point.
    #[inline]
    pub(crate) fn single(normal: Vector3, depth: Real, position: Point3, id: FeatureId) -> Self {
        let mut points = ArrayVec::new();
        points.push(ContactPoint {
            position,
            depth,
            id,
        });
        Self {
            normal,
            depth,
            points,
        }
    }
}
