//! Rays, world frame.

use crate::{GeomError, Isometry3, Point3, Real, Vector3, validate};
use serde::{Deserialize, Serialize};

/// A half-line from `origin` along `dir`. `dir` is non-zero but need not be unit: the point at
/// time of impact `toi` is `origin + toi * dir`, so `toi` is in units of `|dir|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ray {
    /// Where the ray starts, world space.
    pub origin: Point3,
    /// Its direction (non-zero, any length).
    pub dir: Vector3,
}

impl Ray {
    /// A ray; a non-zero `dir` is only debug-checked.
    #[inline]
    pub fn new(origin: Point3, dir: Vector3) -> Self {
        debug_assert!(dir != Vector3::zeros());
        Self { origin, dir }
    }

    /// A ray, checked: finite origin, finite and non-zero direction.
    pub fn try_new(origin: Point3, dir: Vector3) -> Result<Self, GeomError> {
        let origin = validate::finite_point3("origin", &origin)?;
        let dir = validate::direction3("dir", &dir)?;
        Ok(Self { origin, dir })
    }

    /// The point `origin + toi * dir`.
    #[inline]
    pub fn point_at(&self, toi: Real) -> Point3 {
        self.origin + self.dir * toi
    }

    /// This ray after the rigid motion `iso` (`toi` values are unchanged by it).
    #[inline]
    pub fn transformed(&self, iso: &Isometry3) -> Self {
        Self::new(iso * self.origin, iso * self.dir)
    }

    /// This ray expressed in the frame whose pose in world is `iso`.
    #[inline]
    pub fn inverse_transformed(&self, iso: &Isometry3) -> Self {
        Self::new(
            iso.inverse_transform_point(&self.origin),
            iso.inverse_transform_vector(&self.dir),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_at_scales_by_dir() {
        let r = Ray::new(Point3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 2.0, 0.0));
        assert_eq!(r.point_at(1.5), Point3::new(1.0, 3.0, 0.0));
    }

    #[test]
    fn try_new_rejects_bad_directions() {
        let e = Ray::try_new(Point3::origin(), Vector3::zeros()).unwrap_err();
        assert!(matches!(e, GeomError::ZeroLength { .. }) && e.to_string().contains("dir"));
        let e = Ray::try_new(Point3::origin(), Vector3::new(0.0, Real::NAN, 1.0)).unwrap_err();
        assert!(e.to_string().contains("dir.y"), "{e}");
        let e = Ray::try_new(Point3::new(Real::INFINITY, 0.0, 0.0), Vector3::x()).unwrap_err();
        assert!(e.to_string().contains("origin.x"), "{e}");
    }
}
