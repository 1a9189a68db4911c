//! Box-box: the separating axis test, as a boolean and with the minimum translation, and the
//! contact manifold (up to 4 points).
//!
//! Frames: arguments and results are in world space; the tests themselves run in box A's local
//! frame, where `R[i][j] = A_i . B_j` and `t = A^T (c_B - c_A)`. The contact normal points from A
//! toward B.
//!
//! Source: S. Gottschalk, "Collision Queries using Oriented Bounding Boxes", PhD thesis, UNC,
//! 1999; C. Ericson, Real-Time Collision Detection, 2005, 4.4.1 (the 15 axes, the `|R| + epsilon`
//! guard, the projections without explicit cross products, as in seed 001).
//!
//! Files: `intersects.rs`, the boolean test; `sat.rs`, the separating axis query with the
//! minimum translation; `manifold.rs`, clipping and reduction to the contact points.

mod intersects;
mod lanes;
mod manifold;
mod sat;

pub use intersects::obb_obb_intersects;
pub use sat::{SatAxis, SatResult};

use crate::contact::Contact;
use geom::{Obb, Real};
use lanes::LANES;
use manifold::CLIP_SLOP;
use sat::{Pair, WithinAxes};

/// The separating axis test over all 15 axes, without early out: which axis separates the boxes
/// (the one with the largest gap), or which gives the minimum translation. For tools and
/// debugging views; [`obb_obb_intersects`] and [`obb_obb_contact`] are faster.
pub fn obb_obb_sat(a: &Obb, b: &Obb) -> SatResult {
    Pair::new(a, b).query(None)
}

/// The contact of two boxes, or `None` when they are apart (touching gives a contact of depth 0).
///
/// Algorithm:
/// 1. SAT over the 15 axes (edge axes normalised, near-parallel ones skipped), keeping the axis
///    of least penetration. Near-ties go to faces over edges and to A's faces over B's: a later
///    axis wins only by 0.1% of the depth (plus 1e-5 of the boxes' size), so the
///    reported depth is within that of the exact minimum.
/// 2. Face axis: the reference face is the face of the owning box along the normal; the incident
///    face is the other box's face most anti-parallel to it. The incident face is clipped against
///    the reference face's four side planes (Sutherland-Hodgman) and the points behind the
///    reference face kept, each placed midway between the two surfaces. More than 4 are reduced
///    to 4: the deepest, the farthest from it, then the two that add the most area.
/// 3. Edge axis: one point, midway between the closest points of the two supporting edges.
pub fn obb_obb_contact(a: &Obb, b: &Obb) -> Option<Contact> {
    let pair = Pair::new(a, b);
    let sat = pair.query(Some(0.0));
    if sat.separation > 0.0 {
        return None;
    }
    Some(Contact {
        normal: sat.normal,
        depth: -sat.separation,
        points: pair.points_of(&sat, 0.0, 0.0),
    })
}

/// The contact manifold a solver wants, with a speculative `margin >= 0` (metres): boxes up to
/// `margin` apart get a contact too, with a negative depth (minus the gap along the normal),
/// and the manifold keeps the clipped points up to `margin` above the reference face, each with
/// its own (possibly negative) depth, so that a solver sees a contact one step before it closes.
///
/// Unlike [`obb_obb_contact`], which reports the exact minimum translation, this one prefers
/// faces, as Box3D does (`convex_manifold.c`): a box resting on another, slightly tilted, has an
/// edge axis (`A0 x B2` of two flat boxes is vertical too) whose penetration can be a hair less
/// than the faces', and a single edge point there lets the upper box sink and tip. So:
/// 1. the face contact of A's best face, or of B's when it is better by a quarter percent of
///    the boxes' size;
/// 2. an edge contact only when the clipped face contact is empty or the edge axis is clearly
///    better: `s_edge > 0.9 s_face + 0.0025 size` (`1.1 s_face` when the face is apart), with
///    `s_face` the clipped points' deepest separation.
///
/// A face contact's `depth` is its deepest point's.
pub fn obb_obb_contact_within(a: &Obb, b: &Obb, margin: Real) -> Option<Contact> {
    debug_assert!(margin >= 0.0, "margin {margin}");
    let pair = Pair::new(a, b);
    let axes = pair.query_within(margin)?;
    manifold_within(&pair, margin, &axes)
}

/// What the separating axis test found for one box pair, as [`obb_obb_axes_within`] leaves
/// it for [`obb_obb_manifold_within`]: nothing when an axis separates the boxes by more than
/// the margin.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct FoundAxes(Option<WithinAxes>);

/// The first half of [`obb_obb_contact_within`] for each pair `(a, b, margin)` of `pairs`,
/// into `found` (as long as `pairs`): the separating axis test, eight pairs at a time in SIMD
/// lanes ([`lanes`]), each pair's result bit for bit the one pair at a time's.
pub(crate) fn obb_obb_axes_within(pairs: &[(&Obb, &Obb, Real)], found: &mut [FoundAxes]) {
    debug_assert_eq!(pairs.len(), found.len());
    for (pairs, found) in pairs.chunks(LANES).zip(found.chunks_mut(LANES)) {
        for (found, axes) in found.iter_mut().zip(lanes::query_within(pairs)) {
            *found = FoundAxes(axes);
        }
    }
}

/// The second half of [`obb_obb_contact_within`]: the manifold of boxes `a` and `b` from what
/// [`obb_obb_axes_within`] found for them.
pub(crate) fn obb_obb_manifold_within(
    a: &Obb,
    b: &Obb,
    margin: Real,
    found: &FoundAxes,
) -> Option<Contact> {
    manifold_within(&Pair::new(a, b), margin, found.0.as_ref()?)
}

/// The rest of [`obb_obb_contact_within`] once the SAT has found `axes`: the face contact,
/// or the edge contact where the edge axis is clearly better.
fn manifold_within(pair: &Pair<'_>, margin: Real, axes: &WithinAxes) -> Option<Contact> {
    let WithinAxes {
        face_a,
        face_b,
        edge,
    } = axes;
    let (a, b) = (pair.a, pair.b);
    let size = a.half_extents.max() + b.half_extents.max();
    let tolerance = FACE_TOLERANCE * size;
    let face = pair.result(if face_b.separation > face_a.separation + tolerance {
        face_b
    } else {
        face_a
    });
    let points = pair.points_of(&face, margin, CLIP_SLOP * size);
    // The face contact's separation: its deepest clipped point.
    let clipped = points
        .iter()
        .map(|p| -p.depth)
        .fold(Real::INFINITY, Real::min);
    // The edge must beat the faces by a tenth of their separation: 0.9 of a penetration, 1.1
    // of a gap (0.9 of a gap would hand two parallel faces a metre apart, whose edge axes
    // separate them exactly as much, a single edge point).
    let face_bar = if clipped < 0.0 {
        0.9 * clipped
    } else {
        1.1 * clipped
    };
    if let Some(edge) = edge
        && (points.is_empty() || edge.separation > face_bar + tolerance)
        && edge.separation <= margin
    {
        let edge = pair.result(edge);
        return Some(Contact {
            normal: edge.normal,
            depth: -edge.separation,
            points: pair.points_of(&edge, margin, 0.0),
        });
    }
    if points.is_empty() {
        return None;
    }
    Some(Contact {
        normal: face.normal,
        depth: -clipped,
        points,
    })
}

/// How much a face must beat another to be preferred, and an edge the faces, as a fraction of
/// the boxes' size (Box3D uses half its linear slop, 2.5 mm, for metre-sized boxes).
const FACE_TOLERANCE: Real = 0.0025;
