use super::Aabb2;
use crate::{GeomError, Point2, Real, Vector2, validate};
use serde::{Deserialize, Serialize};

/// An oriented rectangle (seed 000): centre, half extents `[w/2, h/2]` and the angle of its local
/// x axis, radians counter-clockwise from world +x. Its axes are `(cos, sin)` and `(-sin, cos)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Obb2 {
    /// The centre, world space.
    pub center: Point2,
    /// Half the width and height along the local axes; `>= 0` (`> 0` from user input).
    pub half_extents: Vector2,
    /// The rotation, radians counter-clockwise.
    pub angle: Real,
}

impl Obb2 {
    /// A rectangle; the half extents are only debug-checked.
    #[inline]
    pub fn new(center: Point2, half_extents: Vector2, angle: Real) -> Self {
        debug_assert!(half_extents.x >= 0.0 && half_extents.y >= 0.0);
        Self {
            center,
            half_extents,
            angle,
        }
    }

    /// A rectangle, checked: finite centre and angle, finite positive half extents.
    pub fn try_new(center: Point2, half_extents: Vector2, angle: Real) -> Result<Self, GeomError> {
        validate::finite_point2("center", &center)?;
        validate::positive_vector2("half_extents", &half_extents)?;
        validate::finite("angle", angle)?;
        Ok(Self::new(center, half_extents, angle))
    }

    /// The two unit axes: `(cos a, sin a)` and `(-sin a, cos a)`.
    #[inline]
    pub fn axes(&self) -> [Vector2; 2] {
        let (s, c) = self.angle.sin_cos();
        [Vector2::new(c, s), Vector2::new(-s, c)]
    }

    /// The four corners, counter-clockwise, starting at local `(-w/2, -h/2)`.
    pub fn corners(&self) -> [Point2; 4] {
        let [ax, ay] = self.axes();
        let (hx, hy) = (ax * self.half_extents.x, ay * self.half_extents.y);
        [
            self.center - hx - hy,
            self.center + hx - hy,
            self.center + hx + hy,
            self.center - hx + hy,
        ]
    }

    /// Half the length of the projection onto `axis`, in units of `|axis|`:
    /// `e0 |axis . a0| + e1 |axis . a1|` (seed 000).
    #[inline]
    pub fn projection_radius(&self, axis: &Vector2) -> Real {
        let [a0, a1] = self.axes();
        self.half_extents.x * axis.dot(&a0).abs() + self.half_extents.y * axis.dot(&a1).abs()
    }

    /// The tightest axis-aligned rectangle around it.
    #[inline]
    pub fn aabb(&self) -> Aabb2 {
        let [a0, a1] = self.axes();
        let half = a0.abs() * self.half_extents.x + a1.abs() * self.half_extents.y;
        Aabb2::from_center_half_extents(self.center, half)
    }

    /// Whether `point` lies in the rectangle (edges included).
    #[inline]
    pub fn contains_point(&self, point: &Point2) -> bool {
        let d = point - self.center;
        let [a0, a1] = self.axes();
        d.dot(&a0).abs() <= self.half_extents.x && d.dot(&a1).abs() <= self.half_extents.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_box_has_the_stated_axes_and_radius() {
        // Box 1 of seed 000: 30x140 at (100, 150), turned 30 degrees.
        let b = Obb2::try_new(
            Point2::new(100.0, 150.0),
            Vector2::new(15.0, 70.0),
            30f32.to_radians(),
        )
        .unwrap();
        let [a0, a1] = b.axes();
        assert!((a0 - Vector2::new(0.866_025_4, 0.5)).norm() < 1e-6);
        assert!((a1 - Vector2::new(-0.5, 0.866_025_4)).norm() < 1e-6);
        // Along its own axes the radius is the half extent.
        assert!((b.projection_radius(&a0) - 15.0).abs() < 1e-4);
        assert!((b.projection_radius(&a1) - 70.0).abs() < 1e-4);
        let aabb = b.aabb();
        let from_corners = Aabb2::from_points(&b.corners()).unwrap();
        assert!((aabb.mins - from_corners.mins).norm() < 1e-3);
        assert!((aabb.maxs - from_corners.maxs).norm() < 1e-3);
    }

    #[test]
    fn try_new_names_the_bad_field() {
        let c = Point2::origin();
        let e = Obb2::try_new(c, Vector2::new(1.0, -1.0), 0.0).unwrap_err();
        assert!(e.to_string().contains("half_extents.y"), "{e}");
        let e = Obb2::try_new(c, Vector2::new(1.0, 1.0), Real::NAN).unwrap_err();
        assert!(e.to_string().contains("angle"), "{e}");
    }
}
