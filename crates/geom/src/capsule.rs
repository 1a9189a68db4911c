//! Capsules in world space: a segment swept by a ball (the points within `radius` of it).

use crate::{Aabb, Point3, Real, Sphere, Vector3};

/// A solid capsule in world space: every point within `radius` of the segment `a b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// One end of the inner segment.
    pub a: Point3,
    /// The other end.
    pub b: Point3,
    /// The radius (metres), `> 0`.
    pub radius: Real,
}

impl Capsule {
    /// The capsule of segment `a b` and `radius` (debug-checked `>= 0`).
    #[inline]
    pub fn new(a: Point3, b: Point3, radius: Real) -> Self {
        debug_assert!(radius >= 0.0);
        Self { a, b, radius }
    }

    /// The midpoint of the segment.
    #[inline]
    pub fn center(&self) -> Point3 {
        nalgebra::center(&self.a, &self.b)
    }

    /// `b - a`.
    #[inline]
    pub fn axis(&self) -> Vector3 {
        self.b - self.a
    }

    /// The point of the segment closest to `p`, and its parameter in `[0, 1]` (0 at `a`).
    #[inline]
    pub fn closest_on_segment(&self, p: &Point3) -> (Point3, Real) {
        let d = self.axis();
        let len_sq = d.norm_squared();
        let t = if len_sq > 0.0 {
            ((p - self.a).dot(&d) / len_sq).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (self.a + d * t, t)
    }

    /// The tightest axis-aligned box: the segment's box grown by the radius.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        let r = Vector3::repeat(self.radius);
        Aabb::new(
            Point3::from(self.a.coords.inf(&self.b.coords) - r),
            Point3::from(self.a.coords.sup(&self.b.coords) + r),
        )
    }

    /// The smallest sphere holding it: about the midpoint, half the segment plus the radius.
    #[inline]
    pub fn bounding_sphere(&self) -> Sphere {
        Sphere::new(self.center(), 0.5 * self.axis().norm() + self.radius)
    }

    /// Whether `point` lies in the capsule (its surface included).
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        let (on_segment, _) = self.closest_on_segment(point);
        (point - on_segment).norm_squared() <= self.radius * self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_sphere_and_inside() {
        let c = Capsule::new(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
        assert_eq!(
            c.aabb(),
            Aabb::new(Point3::new(-0.5, -1.5, -0.5), Point3::new(0.5, 1.5, 0.5))
        );
        assert_eq!(c.bounding_sphere(), Sphere::new(Point3::origin(), 1.5));
        assert!(c.contains_point(&Point3::new(0.0, 1.5, 0.0)));
        assert!(c.contains_point(&Point3::new(0.5, -1.0, 0.0)));
        assert!(!c.contains_point(&Point3::new(0.36, 1.36, 0.0)));
        assert_eq!(c.closest_on_segment(&Point3::new(3.0, 0.5, 0.0)).1, 0.75);
    }
}
