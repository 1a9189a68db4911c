use super::Aabb2;
use crate::{GeomError, Point2, Real, Vector2, validate};
use serde::{Deserialize, Serialize};

/// A solid disc, world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Circle {
    /// The centre.
    pub center: Point2,
    /// The radius, `>= 0` (`> 0` from user input).
    pub radius: Real,
}

impl Circle {
    /// A disc; the radius is only debug-checked.
    #[inline]
    pub fn new(center: Point2, radius: Real) -> Self {
        debug_assert!(radius >= 0.0);
        Self { center, radius }
    }

    /// A disc, checked: finite centre, finite positive radius.
    pub fn try_new(center: Point2, radius: Real) -> Result<Self, GeomError> {
        validate::finite_point2("center", &center)?;
        validate::positive("radius", radius)?;
        Ok(Self { center, radius })
    }

    /// The disc's bounding rectangle.
    #[inline]
    pub fn aabb(&self) -> Aabb2 {
        Aabb2::from_center_half_extents(self.center, Vector2::repeat(self.radius))
    }

    /// Whether `point` lies in the disc (its boundary included).
    #[inline]
    pub fn contains_point(&self, point: &Point2) -> bool {
        (point - self.center).norm_squared() <= self.radius * self.radius
    }

    /// Whether the discs share a point (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        let r = self.radius + other.radius;
        (other.center - self.center).norm_squared() <= r * r
    }
}
