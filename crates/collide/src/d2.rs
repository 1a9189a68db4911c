//! 2D tests (seeds 000, 002, 004): oriented rectangles, convex polygons and circles. World space;
//! contact normals point from the first shape toward the second; touching counts as
//! intersecting.

use arrayvec::ArrayVec;
use geom::d2::{Circle, ConvexPolygon, Obb2};
use geom::{Point2, Real, Vector2};

use crate::contact::FeatureId;

/// One point of a 2D contact, world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint2 {
    /// Midway between the two surfaces.
    pub position: Point2,
    /// The overlap along the normal at this point.
    pub depth: Real,
    /// The features that meet here.
    pub id: FeatureId,
}

/// How two intersecting 2D shapes touch: `(normal, depth)` is the minimum translation (seed
/// 004's push vector): moving the second shape by `normal * depth` leaves them just touching.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact2 {
    /// Unit, from the first shape toward the second.
    pub normal: Vector2,
    /// The penetration depth along `normal`.
    pub depth: Real,
    /// Up to 2 points.
    pub points: ArrayVec<ContactPoint2, 2>,
}

impl Contact2 {
    /// The same contact seen from the other shape.
    pub fn flipped(mut self) -> Self {
        self.normal = -self.normal;
        self
    }
}

/// The four candidate axes of two rectangles and the gap along each: what a debugging view draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb2Sat {
    /// `[A0, A1, B0, B1]`: the rectangles' unit axes.
    pub axes: [Vector2; 4],
    /// Along each axis, `|d . L| - (r_A + r_B)` (seed 000): positive means separated there.
    pub gaps: [Real; 4],
}

impl Obb2Sat {
    /// The first axis along which the rectangles are separated. `strict` follows seed 000,
    /// where touching (a gap of 0) already separates.
    pub fn separating_axis(&self, strict: bool) -> Option<usize> {
        self.gaps
            .iter()
            .position(|&g| if strict { g >= 0.0 } else { g > 0.0 })
    }
}

/// The separating axis test of two rectangles on their 4 axes, with every gap (seed 000).
pub fn obb2_sat(a: &Obb2, b: &Obb2) -> Obb2Sat {
    let [a0, a1] = a.axes();
    let [b0, b1] = b.axes();
    let axes = [a0, a1, b0, b1];
    let d = b.center - a.center;
    let gaps = axes.map(|l| d.dot(&l).abs() - (a.projection_radius(&l) + b.projection_radius(&l)));
    Obb2Sat { axes, gaps }
}

/// Whether two rectangles intersect (touching counts): 4 axes, early out.
pub fn obb2_intersects(a: &Obb2, b: &Obb2) -> bool {
    let d = b.center - a.center;
    a.axes()
        .iter()
        .chain(b.axes().iter())
        .all(|l| d.dot(l).abs() <= a.projection_radius(l) + b.projection_radius(l))
}

/// Whether two rectangles intersect, by seed 002's projective test (after Gottschalk): each
/// rectangle's edge axes are scaled by `1 / |edge|^2`, so the other rectangle's corners project
/// into `[origin, origin + 1]` exactly when they fall within that edge's span. Agrees with
/// [`obb2_intersects`] up to rounding.
pub fn obb2_intersects_projective(a: &Obb2, b: &Obb2) -> bool {
    overlaps_one_way(&a.corners(), &b.corners()) && overlaps_one_way(&b.corners(), &a.corners())
}

fn overlaps_one_way(own: &[Point2; 4], other: &[Point2; 4]) -> bool {
    for edge_end in [1, 3] {
        let edge = own[edge_end] - own[0];
        let axis = edge / edge.norm_squared();
        let origin = own[0].coords.dot(&axis);
        let (lo, hi) = other.iter().fold((Real::MAX, Real::MIN), |(lo, hi), p| {
            let t = p.coords.dot(&axis);
            (lo.min(t), hi.max(t))
        });
        if lo > origin + 1.0 || hi < origin {
            return false;
        }
    }
    true
}

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
                id: FeatureId(
                    u32::from(reference_is_first) << 24 | (r as u32) << 16 | (i as u32) << 8 | id,
                ),
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

/// The contact of two rectangles, through their polygons.
pub fn obb2_contact(a: &Obb2, b: &Obb2) -> Option<Contact2> {
    polygon_contact(&ConvexPolygon::from_obb2(a), &ConvexPolygon::from_obb2(b))
}

/// The contact of two circles; concentric circles get the normal +x.
pub fn circle_circle_contact(a: &Circle, b: &Circle) -> Option<Contact2> {
    let d = b.center - a.center;
    let radii = a.radius + b.radius;
    if d.norm_squared() > radii * radii {
        return None;
    }
    let dist = d.norm();
    let normal = if dist > Real::EPSILON * radii {
        d / dist
    } else {
        Vector2::x()
    };
    let depth = radii - dist;
    let mut points = ArrayVec::new();
    points.push(ContactPoint2 {
        position: a.center + normal * (a.radius - 0.5 * depth),
        depth,
        id: FeatureId(0),
    });
    Some(Contact2 {
        normal,
        depth,
        points,
    })
}

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
        (-n, depth, position, face as u32)
    } else {
        // Outside: the closest point of the polygon's boundary.
        let mut best = (Real::MAX, Point2::origin(), 0u32);
        for i in 0..count {
            let (v1, v2) = (vertices[i], vertices[(i + 1) % count]);
            let e = v2 - v1;
            let t = ((c - v1).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
            let q = v1 + e * t;
            let dist_sq = (c - q).norm_squared();
            if dist_sq < best.0 {
                best = (dist_sq, q, i as u32);
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
        (n, depth, q - n * (0.5 * depth), 100 + i)
    };
    let mut points = ArrayVec::new();
    points.push(ContactPoint2 {
        position,
        depth,
        id: FeatureId(id),
    });
    Some(Contact2 {
        normal,
        depth,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: Real, y: Real, w: Real, h: Real, degrees: Real) -> Obb2 {
        Obb2::new(
            Point2::new(x, y),
            Vector2::new(w / 2.0, h / 2.0),
            degrees.to_radians(),
        )
    }

    #[test]
    fn seed_000_boxes_at_tick_zero() {
        // Box 1: 30x140 at (100, 150), 30 degrees; box 2: 40x110 at (100, 70), 40 degrees.
        let a = rect(100.0, 150.0, 30.0, 140.0, 30.0);
        let b = rect(100.0, 70.0, 40.0, 110.0, 40.0);
        let sat = obb2_sat(&a, &b);
        assert_eq!(
            obb2_intersects(&a, &b),
            sat.separating_axis(false).is_none()
        );
        assert_eq!(obb2_intersects(&a, &b), obb2_intersects_projective(&a, &b));
    }

    #[test]
    fn touching_rectangles_are_closed_but_strictly_apart() {
        let a = rect(0.0, 0.0, 2.0, 2.0, 0.0);
        let b = rect(2.0, 0.5, 2.0, 2.0, 0.0);
        assert!(obb2_intersects(&a, &b));
        assert!(obb2_intersects_projective(&a, &b));
        let sat = obb2_sat(&a, &b);
        assert_eq!(sat.separating_axis(false), None);
        assert_eq!(sat.separating_axis(true), Some(0));
        let c = obb2_contact(&a, &b).unwrap();
        assert_eq!((c.normal, c.depth), (Vector2::x(), 0.0));
        assert_eq!(c.points.len(), 2);
    }

    #[test]
    fn polygon_mtd_pushes_apart() {
        let a = ConvexPolygon::from_obb2(&rect(0.0, 0.0, 2.0, 2.0, 0.0));
        let b = ConvexPolygon::from_obb2(&rect(1.5, 0.2, 2.0, 2.0, 10.0));
        let c = polygon_contact(&a, &b).unwrap();
        assert!(c.depth > 0.0);
        let pushed: Vec<Point2> = b
            .vertices()
            .iter()
            .map(|v| v + c.normal * (c.depth + 1e-4))
            .collect();
        let moved = ConvexPolygon::try_new(pushed).unwrap();
        assert!(polygon_contact(&a, &moved).is_none());
        let reversed = polygon_contact(&b, &a).unwrap();
        assert!((reversed.normal + c.normal).norm() < 1e-5);
        assert!((reversed.depth - c.depth).abs() < 1e-5);
    }

    #[test]
    fn circles() {
        let square = ConvexPolygon::from_obb2(&rect(0.0, 0.0, 2.0, 2.0, 0.0));
        let above = Circle::new(Point2::new(0.3, 1.5), 1.0);
        let c = circle_polygon_contact(&above, &square).unwrap();
        assert!((c.normal + Vector2::y()).norm() < 1e-6 && (c.depth - 0.5).abs() < 1e-6);
        let inside = Circle::new(Point2::new(0.9, 0.0), 0.5);
        let c = circle_polygon_contact(&inside, &square).unwrap();
        assert!((c.normal + Vector2::x()).norm() < 1e-6 && (c.depth - 0.6).abs() < 1e-6);
        let corner = Circle::new(Point2::new(2.0, 2.0), 1.0);
        assert!(circle_polygon_contact(&corner, &square).is_none());
        let cc = circle_circle_contact(&above, &Circle::new(Point2::new(0.3, 3.0), 0.6)).unwrap();
        assert!((cc.depth - 0.1).abs() < 1e-6 && cc.normal == Vector2::y());
    }
}
