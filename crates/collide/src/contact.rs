//! Contacts: the minimum translation (normal and depth) and the contact points of a touching pair.

use arrayvec::ArrayVec;
use geom::{Isometry3, Point3, Real, Vector3};
use serde::{Deserialize, Serialize};

/// Names the pair of features a contact point comes from, so that a solver can match points
/// from one step to the next (warm starting). Equal ids in two steps of the same pair mean the
/// same features; ids are compared only within one pair of shapes.
///
/// Each pair function makes its ids through one constructor below, whose documentation gives
/// the bit layout (bit 0 is the least significant). Faces of a box are numbered `2 axis` for the
/// face on the positive side of a local axis and `2 axis + 1` for the negative one.
///
/// The ids depend only on which features meet, never on positions, so a resting contact keeps
/// its ids from step to step as long as the same faces stay the reference and incident ones
/// (the SAT's bias toward faces and toward the first box's faces is there for that).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct FeatureId(pub u32);

impl FeatureId {
    /// Sphere-sphere and circle-circle: their single point.
    pub(crate) const ROUND: Self = Self(0);

    /// The edge label of a box face contact's point made when clipping left nothing.
    pub(crate) const CLIPPED_AWAY: u8 = 15;

    /// Box-box, face contact: a vertex of the incident face clipped by the reference face's
    /// side planes, named by its two polygon edges' labels (0-3: the incident face's edges;
    /// 4-7: the reference face's side planes +u, -u, +v, -v; [`Self::CLIPPED_AWAY`]).
    /// Bits 0-3 and 4-7 hold the two labels, the smaller first; bits 8-11 the reference face,
    /// 12-15 the incident face; bit 16 is set when the reference face belongs to the second box.
    #[inline]
    pub(crate) fn box_face(
        reference_is_b: bool,
        reference_face: u8,
        incident_face: u8,
        labels: (u8, u8),
    ) -> Self {
        let (lo, hi) = if labels.0 < labels.1 {
            labels
        } else {
            (labels.1, labels.0)
        };
        Self(
            u32::from(lo)
                | u32::from(hi) << 4
                | u32::from(reference_face) << 8
                | u32::from(incident_face) << 12
                | u32::from(reference_is_b) << 16,
        )
    }

    /// Box-box, edge contact: bit 20 set; bits 4-7 name the first box's edge, bits 0-3 the
    /// second's, each as `4 axis + which of the four edges parallel to that axis` (< 12).
    #[inline]
    pub(crate) fn box_edge(edge_a: u32, edge_b: u32) -> Self {
        debug_assert!(edge_a < 12 && edge_b < 12);
        Self(1 << 20 | edge_a << 4 | edge_b)
    }

    /// Sphere-box, centre outside the box: `sum_k 3^(2-k) c_k` over the local axes, `c_k` 0
    /// below the box, 1 within its slab, 2 above (0-26: the vertex, edge or face region).
    #[inline]
    pub(crate) fn sphere_box_region(region: u32) -> Self {
        debug_assert!(region < 27);
        Self(region)
    }

    /// Sphere-box, centre inside the box: `100 + face` of the face it leaves through.
    #[inline]
    pub(crate) fn sphere_box_inside(face: u32) -> Self {
        debug_assert!(face < 6);
        Self(100 + face)
    }

    /// Capsule pairs: bit 28 set, bits 20-23 the kind of contact (0 ball-capsule, 1 capsules
    /// side by side, 2 capsules' closest points, 3 capsule on a box face, 4 capsule and box
    /// apart, 5 a segment through a box), bits 0-19 its own (which end, which features).
    #[inline]
    pub(crate) fn capsule(kind: u32, rest: u32) -> Self {
        debug_assert!(kind < 16 && rest < 1 << 20);
        Self(1 << 28 | kind << 20 | rest)
    }

    /// Polyhedra, face contact: bit 30 set, bit 29 when the reference face is the second
    /// shape's; bits 21-28 the reference face, 13-20 the incident face (each modulo 256), bits
    /// 0-12 the two clip labels (half-edges, the reference's sides marked) folded together.
    #[inline]
    pub(crate) fn hull_face(
        reference_is_b: bool,
        reference_face: usize,
        incident_face: usize,
        labels: (u16, u16),
    ) -> Self {
        let (lo, hi) = (labels.0.min(labels.1), labels.0.max(labels.1));
        let fold = (u32::from(lo) * 131 + u32::from(hi)) & 0x1fff;
        Self(
            1 << 30
                | u32::from(reference_is_b) << 29
                | (reference_face as u32 & 0xff) << 21
                | (incident_face as u32 & 0xff) << 13
                | fold,
        )
    }

    /// Polyhedra, edge contact: bits 30 and 31 set, the two half-edges in bits 15-29 and 0-14.
    #[inline]
    pub(crate) fn hull_edge(edge_a: usize, edge_b: usize) -> Self {
        Self(3 << 30 | (edge_a as u32 & 0x7fff) << 15 | (edge_b as u32 & 0x7fff))
    }

    /// A polyhedron against a ball or a capsule: bit 31 set, the rest the feature's code.
    #[inline]
    pub(crate) fn hull_round(code: u32) -> Self {
        Self(1 << 31 | (code & 0x3fff_ffff))
    }

    /// AABB-AABB: `8 axis + corner` of the overlap box's face across the normal's axis.
    #[inline]
    pub(crate) fn aabb_corner(axis: usize, corner: usize) -> Self {
        Self(axis as u32 * 8 + corner as u32)
    }

    /// Polygon-polygon (2D): bit 24 set when the reference edge belongs to the first polygon;
    /// bits 16-23 the reference edge, 8-15 the incident edge, 0-7 which end of the incident
    /// segment (0, 1) or which side of the reference edge clipped it (2 the start, 4 the end).
    #[inline]
    pub(crate) fn polygon_clip(
        reference_is_first: bool,
        reference_edge: usize,
        incident_edge: usize,
        end: u32,
    ) -> Self {
        Self(
            u32::from(reference_is_first) << 24
                | (reference_edge as u32) << 16
                | (incident_edge as u32) << 8
                | end,
        )
    }

    /// Circle-polygon (2D): the polygon's face when the centre is inside (`face`, below 100),
    /// else `100 + edge` of the boundary edge holding the closest point.
    #[inline]
    pub(crate) fn circle_polygon(inside: bool, feature: usize) -> Self {
        Self(if inside { 0 } else { 100 } + feature as u32)
    }
}

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

    /// The contact found in a frame placed at `frame`, in the world: its normal turned, its
    /// points placed.
    #[inline]
    pub(crate) fn placed(mut self, frame: &Isometry3) -> Self {
        self.normal = frame.rotation * self.normal;
        for p in &mut self.points {
            p.position = frame * p.position;
        }
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
