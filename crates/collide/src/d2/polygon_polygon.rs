//! Two convex polygons: the separating axis test over both polygons' edge normals, then the
//! incident edge clipped against the reference edge (up to 2 points).

use super::{Contact2, ContactPoint2};
use crate::contact::FeatureId;
use arrayvec::ArrayVec;
use geom::Real;
use geom::d2::ConvexPolygon;

/// The largest separation of `b` from `a`'s edges: the edge index and the gap (negative when
/// penetrating). Each edge's gap is the distance from its line to b's deepest vertex.
fn max_separation(a: &ConvexPolygon, b: &ConvexPolygon) -> (usize, Real) {
    let mut best = (0, Real::NEG_INFINITY);
    for (i, (v, n)) in a.vertices().iter().zip(a.normals()).enumerate() {
        let deepest = b
            .vertices()
            .iter()
            .map(|w| (w - v).dot(n))
            .fold(Real::MAX, Real::min);
        if deepest > best.1 {
            best = (i, deepest);
        }
    }
    best
}

/// The contact of two convex polygons, or `None` when apart: SAT over both polygons' edge
/// normals (seed 004), the axis of least penetration giving the MTD; then the incident edge
/// clipped to the reference edge (as in Box2D's `b2CollidePolygons`), up to 2 points.
/// Near-ties go to `a`'s edges, so that resting contacts keep their reference edge.
pub fn polygon_contact(a: &ConvexPolygon, b: &ConvexPolygon) -> Option<Contact2> {
    let (edge_a, sep_a) = max_separation(a, b);
    if sep_a > 0.0 {
        return None;
    }
    let (edge_b, sep_b) = max_separation(b, a);
    if sep_b > 0.0 {
        return None;
    }
    let tolerance = 1e-3 * sep_a.abs() + 1e-6;
    if sep_b > sep_a + tolerance {
        clip_contact(b, edge_b, a, false).map(Contact2::flipped)
    } else {
        clip_contact(a, edge_a, b, true)
    }
}

/// Contact points with `reference`'s edge `r` as the reference face; the normal points from
/// `reference` toward `incident`.
fn clip_contact(
    reference: &ConvexPolygon,
    r: usize,
    incident: &ConvexPolygon,
    reference_is_first: bool,
) -> Option<Contact2> {
    let n = reference.normals()[r];
    let count = reference.vertices().len();
    let (v1, v2) = (
        reference.vertices()[r],
        reference.vertices()[(r + 1) % count],
    );
    // The incident edge: the one whose normal is most anti-parallel to n.
    let i = (0..incident.normals().len())
        .min_by(|&p, &q| {
            incident.normals()[p]
                .dot(&n)
                .total_cmp(&incident.normals()[q].dot(&n))
        })
        .unwrap_or(0);
    let m = incident.vertices().len();
    let mut segment = [incident.vertices()[i], incident.vertices()[(i + 1) % m]];
    let mut ids = [0u32, 1u32];
    let tangent = (v2 - v1).normalize();
    // Clip to the slab between the reference edge's ends: lo <= (p - v1) . tangent <= hi.
    let (lo, hi) = (0.0, (v2 - v1).dot(&tangent));
    for (bound, side, tag) in [(lo, -1.0, 2u32), (hi, 1.0, 4u32)] {
        let f = segment.map(|p| side * ((p - v1).dot(&tangent) - bound));
        if f[0] > 0.0 && f[1] > 0.0 {
            return None;
        }
        if f[0] > 0.0 || f[1] > 0.0 {
            let s = f[0] / (f[0] - f[1]);
            let cut = segment[0] + (segment[1] - segment[0]) * s;
            let outside = usize::from(f[1] > 0.0);
            segment[outside] = cut;
            ids[outside] = tag;
        }
    }
    let mut points = ArrayVec::new();
    let mut depth: Real = 0.0;
    for (p, id) in segment.iter().zip(ids) {
        let separation = (p - v1).dot(&n);
        if separation <= 1e-6 * (1.0 + v1.coords.norm()) {
            depth = depth.max(-separation);
            points.push(ContactPoint2 {
                position: p - n * (0.5 * separation),
                depth: (-separation).max(0.0),
                id: FeatureId::polygon_clip(reference_is_first, r, i, id),
            });
        }
    }
    if points.is_empty() {
        return None;
    }
    Some(Contact2 {
        normal: n,
        depth,
        points,
    })
}
