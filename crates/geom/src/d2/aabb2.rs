use crate::{GeomError, Point2, Vector2, validate};
use serde::{Deserialize, Serialize};

/// An axis-aligned rectangle `[mins, maxs]` (closed), world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb2 {
    /// The corner with the smallest coordinates.
    pub mins: Point2,
    /// The corner with the largest coordinates.
    pub maxs: Point2,
}

impl Aabb2 {
    /// A rectangle from its corners; `mins <= maxs` is only debug-checked.
    #[inline]
    pub fn new(mins: Point2, maxs: Point2) -> Self {
        debug_assert!(mins.x <= maxs.x && mins.y <= maxs.y);
        Self { mins, maxs }
    }

    /// A rectangle from its corners, checked: finite and `mins <= maxs` on both axes.
    pub fn try_new(mins: Point2, maxs: Point2) -> Result<Self, GeomError> {
        validate::finite_point2("mins", &mins)?;
        validate::finite_point2("maxs", &maxs)?;
        for (axis, name) in ["x", "y"].iter().enumerate() {
            if mins[axis] > maxs[axis] {
                return Err(GeomError::Inverted {
                    field: format!("aabb2.{name}"),
                    min: mins[axis],
                    max: maxs[axis],
                });
            }
        }
        Ok(Self { mins, maxs })
    }

    /// The rectangle of the given centre and half extents (each `>= 0`).
    #[inline]
    pub fn from_center_half_extents(center: Point2, half_extents: Vector2) -> Self {
        Self::new(center - half_extents, center + half_extents)
    }

    /// The smallest rectangle holding every point; `None` if empty or non-finite.
    pub fn from_points(points: &[Point2]) -> Option<Self> {
        Self::try_from_points(points).ok()
    }

    /// The smallest rectangle holding every point; the error names the bad point.
    pub fn try_from_points(points: &[Point2]) -> Result<Self, GeomError> {
        validate::points2("points", points, 1)?;
        let first = Self::new(points[0], points[0]);
        Ok(points[1..]
            .iter()
            .fold(first, |acc, p| Self::new(acc.mins.inf(p), acc.maxs.sup(p))))
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> Point2 {
        nalgebra::center(&self.mins, &self.maxs)
    }

    /// Half the size along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vector2 {
        (self.maxs - self.mins) * 0.5
    }

    /// The smallest rectangle holding both.
    #[inline]
    pub fn merged(&self, other: &Self) -> Self {
        Self::new(self.mins.inf(&other.mins), self.maxs.sup(&other.maxs))
    }

    /// Whether the rectangles share a point (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        self.mins.x <= other.maxs.x
            && other.mins.x <= self.maxs.x
            && self.mins.y <= other.maxs.y
            && other.mins.y <= self.maxs.y
    }

    /// The overlap length along each axis, 0 where disjoint.
    #[inline]
    pub fn overlap(&self, other: &Self) -> Vector2 {
        (self.maxs.inf(&other.maxs) - self.mins.sup(&other.mins)).sup(&Vector2::zeros())
    }

    /// Whether `point` lies in the rectangle (edges included).
    #[inline]
    pub fn contains_point(&self, point: &Point2) -> bool {
        self.mins.x <= point.x
            && point.x <= self.maxs.x
            && self.mins.y <= point.y
            && point.y <= self.maxs.y
    }
}
