//! A circle and a convex polygon.

use super::{Contact2, ContactPoint2};
use crate::contact::FeatureId;
use arrayvec::ArrayVec;
use geom::d2::{Circle, ConvexPolygon};
use geom::{Point2, Real};

/// The contact of a circle and a convex polygon (normal from the circle toward the polygon):
/// the polygon's closest feature to the centre, or the face of least penetration when the
/// centre is inside.
pub fn circle_polygon_contact(circle: &Circle, polygon: &ConvexPolygon) -> Option<Contact2> {
    let c = circle.center;
    let vertices = polygon.vertices();
    let count = vertices.len();
    // The edge whose line the centre is farthest in front of (least deep when inside).
    let (face, separation) = vertices
        .iter()
        .zip(polygon.normals())
        .enumerate()
        .map(|(i, (v, n))| (i, (c - v).dot(n)))
        .fold(
            (0, Real::NEG_INFINITY),
            |best, x| if x.1 > best.1 { x } else { best },
        );
    if separation > circle.radius {
        return None;
    }
    let (normal, depth, position, id) = if separation <= 0.0 {
        // Inside: leave through that face. Midway between the circle's deepest point
        // `c - n r` and the face point `c - n separation`.
        let n = polygon.normals()[face];
        let depth = circle.radius - separation;
        let position = c - n * (0.5 * (circle.radius + separation));
        (-n, depth, position, FeatureId::circle_polygon(true, face))
    } else {
        // Outside: the closest point of the polygon's boundary.
        let mut best = (Real::MAX, Point2::origin(), 0usize);
        for i in 0..count {
            let (v1, v2) = (vertices[i], vertices[(i + 1) % count]);
            let e = v2 - v1;
            let t = ((c - v1).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
            let q = v1 + e * t;
            let dist_sq = (c - q).norm_squared();
            if dist_sq < best.0 {
                best = (dist_sq, q, i);
            }
        }
        let (dist_sq, q, i) = best;
        if dist_sq > circle.radius * circle.radius {
            return None;
        }
        let dist = dist_sq.sqrt();
        let n = if dist > 0.0 {
            (q - c) / dist
        } else {
            -polygon.normals()[face]
        };
        let depth = circle.radius - dist;
        (
            n,
            depth,
            q - n * (0.5 * depth),
            FeatureId::circle_polygon(false, i),
        )
    };
    let mut points = ArrayVec::new();
    points.push(ContactPoint2 {
        position,
        depth,
        id,
    });
    Some(Contact2 {
        normal,
        depth,
        points,
    })
}
