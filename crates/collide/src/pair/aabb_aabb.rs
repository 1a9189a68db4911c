//! AABB-AABB: the minimum translation is along the axis of least overlap. World space; the
//! normal points from the first box toward the second.

use crate::contact::{Contact, ContactPoint, FeatureId};
use arrayvec::ArrayVec;
use geom::{Aabb, Point3, Vector3};

/// The contact of two axis-aligned boxes, or `None` when apart (touching gives depth 0). The
/// points are the corners of the overlap region's cross-section, midway along the normal.
pub fn aabb_aabb_contact(a: &Aabb, b: &Aabb) -> Option<Contact> {
    if !a.intersects(b) {
        return None;
    }
    let overlap = a.overlap(b);
    let k = overlap.imin();
    let positive = b.center()[k] >= a.center()[k];
    let mut normal = Vector3::zeros();
    normal[k] = if positive { 1.0 } else { -1.0 };
    let depth = overlap[k];
    let lo = a.mins.sup(&b.mins);
    let hi = a.maxs.inf(&b.maxs);
    let mid = 0.5 * (lo[k] + hi[k]);
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let mut points = ArrayVec::new();
    for (corner, (s1, s2)) in [(0, 0), (1, 0), (1, 1), (0, 1)].into_iter().enumerate() {
        let mut p = Point3::origin();
        p[k] = mid;
        p[k1] = if s1 == 0 { lo[k1] } else { hi[k1] };
        p[k2] = if s2 == 0 { lo[k2] } else { hi[k2] };
        // A flat overlap region repeats corners: keep each position once.
        if points.iter().all(|q: &ContactPoint| q.position != p) {
            points.push(ContactPoint {
                position: p,
                depth,
                id: FeatureId::aabb_corner(k, corner),
            });
        }
    }
    Some(Contact {
        normal,
        depth,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_overlap_axis_and_four_points() {
        let a = Aabb::new(Point3::origin(), Point3::new(2.0, 2.0, 2.0));
        let b = Aabb::new(Point3::new(1.0, 1.5, 0.5), Point3::new(3.0, 3.5, 1.5));
        let c = aabb_aabb_contact(&a, &b).unwrap();
        assert_eq!(c.normal, Vector3::y());
        assert_eq!(c.depth, 0.5);
        assert_eq!(c.points.len(), 4);
        assert!(c.points.iter().all(|p| p.position.y == 1.75));
        let reversed = aabb_aabb_contact(&b, &a).unwrap();
        assert_eq!(reversed.normal, -Vector3::y());
    }
}
