//! 2D tests (seeds 000, 002, 004): oriented rectangles, convex polygons and circles. World space;
//! contact normals point from the first shape toward the second; touching counts as
//! intersecting.
//!
//! One file per pair, as in 3D: `obb2_obb2.rs` (seeds 000 and 002), `polygon_polygon.rs`,
//! `circle_circle.rs`, `circle_polygon.rs`.

mod circle_circle;
mod circle_polygon;
mod obb2_obb2;
mod polygon_polygon;

pub use circle_circle::circle_circle_contact;
pub use circle_polygon::circle_polygon_contact;
pub use obb2_obb2::{Obb2Sat, obb2_contact, obb2_intersects, obb2_intersects_projective, obb2_sat};
pub use polygon_polygon::polygon_contact;

use crate::contact::FeatureId;
use arrayvec::ArrayVec;
use geom::{Point2, Real, Vector2};

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

#[cfg(test)]
mod tests {
    use super::*;
    use geom::d2::{Circle, ConvexPolygon, Obb2};

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
