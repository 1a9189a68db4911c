//! Contacts: the minimum translation (normal and depth) and the contact points of a touching pair.

use arrayvec::ArrayVec;
use geom::{Point3, Real, Vector3};
use serde::{Deserialize, Serialize};

/// Names the pair of features a contact point comes from, so that a solver can match points
/// from one step to the next (warm starting). Equal ids in two steps of the same pair mean the
/// same features; ids are compared only within one pair of shapes.
///
/// The layout, per pair function (bit 0 is the least significant):
/// - box-box, face contact: bits 0-3 and 4-7 hold the two edge labels of the clipped polygon
///   vertex, the smaller first (labels 0-3 are the incident face's edges, 4-7 the reference
///   face's side planes in the order +u, -u, +v, -v; 15 marks a point made when clipping left
///   nothing); bits 8-11 the reference face and bits 12-15 the incident face (`2 axis + 1` for
///   the face on the negative side of a local axis, `2 axis` for the positive one); bit 16 is
///   set when the reference face belongs to the second box.
/// - box-box, edge contact: bit 20 set; bits 4-7 name the first box's edge (`4 axis + which of
///   the four parallel edges`), bits 0-3 the second box's.
/// - sphere-box, centre outside the box: `sum_k 3^(2-k) c_k` over the local axes, `c_k` 0 below
///   the box, 1 within its slab, 2 above (0-26: the vertex, edge or face region). Centre inside:
///   `100 + 2 axis + 1` for the face on the negative side, `100 + 2 axis` for the positive one.
/// - sphere-sphere: 0. AABB-AABB: `8 axis + corner` of the overlap box.
///
/// The ids depend only on which features meet, never on positions, so a resting contact keeps
/// its ids from step to step as long as the same faces stay the reference and incident ones
/// (the SAT's bias toward faces and toward the first box's faces is there for that).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct FeatureId(pub u32);

/// One point of a contact, world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactPoint {
    /// Midway between the two surfaces.
    pub position: Point3,
    /// How deep the shapes overlap at this point, along the contact normal: `>= 0` (up to
    /// rounding) from the exact tests; from the `_within` forms, negative for a point up to the
    /// margin apart (minus the gap).
    pub depth: Real,
    /// The features that meet here.
    pub id: FeatureId,
}

/// How two intersecting shapes touch, world space.
///
/// `normal` is unit and points from the first shape toward the second; `depth >= 0`. Moving
/// the second shape by `normal * depth`, or the first by `-normal * depth`, leaves them just
/// touching: `(normal, depth)` is the minimum translation (MTD). Contacts from the `_within`
/// forms (for a solver) may be speculative, with a negative depth, and a box pair's normal there
/// is a face's when one is nearly as good (see [`crate::obb_obb_contact_within`]).
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
