//! Axis-aligned bounding boxes in 3D, world frame.

use crate::{GeomError, Isometry3, Point3, Real, Sphere, Vector3, validate};
use serde::{Deserialize, Serialize};

/// An axis-aligned box `[mins, maxs]` in world space (closed: its faces belong to it).
///
/// `mins <= maxs` on every axis; a flat or point-like box (`mins == maxs` on some axis) is valid,
/// as it is what a planar mesh gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    /// The corner with the smallest coordinates.
    pub mins: Point3,
    /// The corner with the largest coordinates.
    pub maxs: Point3,
}

impl Aabb {
    /// A box from its two corners; `mins <= maxs` is only debug-checked.
    #[inline]
    pub fn new(mins: Point3, maxs: Point3) -> Self {
        debug_assert!(mins.x <= maxs.x && mins.y <= maxs.y && mins.z <= maxs.z);
        Self { mins, maxs }
    }

    /// A box from its two corners, checked: finite, and `mins <= maxs` on every axis.
    pub fn try_new(mins: Point3, maxs: Point3) -> Result<Self, GeomError> {
        validate::finite_point3("mins", &mins)?;
        validate::finite_point3("maxs", &maxs)?;
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            if mins[axis] > maxs[axis] {
                return Err(GeomError::Inverted {
                    field: format!("aabb.{name}"),
                    min: mins[axis],
                    max: maxs[axis],
                });
            }
        }
        Ok(Self { mins, maxs })
    }

    /// The box of the given centre and half extents (each `>= 0`).
    #[inline]
    pub fn from_center_half_extents(center: Point3, half_extents: Vector3) -> Self {
        debug_assert!(half_extents.iter().all(|h| *h >= 0.0));
        Self::new(center - half_extents, center + half_extents)
    }

    /// The smallest box holding every point, e.g. of a mesh's vertex list (seed 003); `None` when
    /// the list is empty or holds a NaN or infinite coordinate. See [`Aabb::try_from_points`] for
    /// the reason.
    pub fn from_points(points: &[Point3]) -> Option<Self> {
        Self::try_from_points(points).ok()
    }

    /// The smallest box holding every point; the error names an empty list or the first
    /// non-finite coordinate (`points[i].y`).
    pub fn try_from_points(points: &[Point3]) -> Result<Self, GeomError> {
        validate::points3("points", points, 1)?;
        Ok(Self::from_points_unchecked(points))
    }

    /// As [`Aabb::from_points`] for a list already known to be non-empty and finite.
    pub(crate) fn from_points_unchecked(points: &[Point3]) -> Self {
        let mut mins = points[0];
        let mut maxs = points[0];
        for p in &points[1..] {
            mins = mins.inf(p);
            maxs = maxs.sup(p);
        }
        Self { mins, maxs }
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> Point3 {
        nalgebra::center(&self.mins, &self.maxs)
    }

    /// Half the size along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vector3 {
        (self.maxs - self.mins) * 0.5
    }

    /// The full size along each axis.
    #[inline]
    pub fn extents(&self) -> Vector3 {
        self.maxs - self.mins
    }

    /// This box moved by `translation` (seed 003's box at the body's current position).
    #[inline]
    pub fn translated(&self, translation: &Vector3) -> Self {
        Self {
            mins: self.mins + translation,
            maxs: self.maxs + translation,
        }
    }

    /// The tightest axis-aligned box around this box after the rigid motion `iso`: its half
    /// extents are `|R| * h` (Ericson, Real-Time Collision Detection, 4.2.6).
    #[inline]
    pub fn transformed(&self, iso: &Isometry3) -> Self {
        let center = iso * self.center();
        let half = iso.rotation.to_rotation_matrix().matrix().abs() * self.half_extents();
        Self::from_center_half_extents(center, half)
    }

    /// The smallest box holding both boxes.
    #[inline]
    pub fn merged(&self, other: &Self) -> Self {
        Self {
            mins: self.mins.inf(&other.mins),
            maxs: self.maxs.sup(&other.maxs),
        }
    }

    /// Whether the boxes share a point (touching counts). All six comparisons are made, without
    /// a branch between them: a broad phase meets candidates that intersect in no pattern a
    /// branch predictor can learn (see `collide::broad`).
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        (self.mins.x <= other.maxs.x)
            & (other.mins.x <= self.maxs.x)
            & (self.mins.y <= other.maxs.y)
            & (other.mins.y <= self.maxs.y)
            & (self.mins.z <= other.maxs.z)
            & (other.mins.z <= self.maxs.z)
    }

    /// The length of the overlap of the two boxes along each axis, 0 where they are disjoint
    /// (seed 003's per-axis overlap). All three positive means the boxes overlap with volume.
    #[inline]
    pub fn overlap(&self, other: &Self) -> Vector3 {
        let lo = self.mins.sup(&other.mins);
        let hi = self.maxs.inf(&other.maxs);
        (hi - lo).sup(&Vector3::zeros())
    }

    /// Whether `point` lies in the box (its faces included).
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        (0..3).all(|i| self.mins[i] <= point[i] && point[i] <= self.maxs[i])
    }

    /// Whether `other` lies entirely in this box.
    #[inline]
    pub fn contains(&self, other: &Self) -> bool {
        (0..3).all(|i| self.mins[i] <= other.mins[i] && other.maxs[i] <= self.maxs[i])
    }

    /// This box grown by `margin` on every side (a broad phase's fattened box). A negative margin
    /// shrinks it, never past its centre.
    #[inline]
    pub fn loosened(&self, margin: Real) -> Self {
        let center = self.center();
        let half = (self.half_extents() + Vector3::repeat(margin)).sup(&Vector3::zeros());
        Self::from_center_half_extents(center, half)
    }

    /// The area of the six faces (the cost metric of bounding-volume trees).
    #[inline]
    pub fn surface_area(&self) -> Real {
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// The volume.
    #[inline]
    pub fn volume(&self) -> Real {
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// The 8 corners; corner `i` takes `maxs` on x when bit 0 of `i` is set, on y for bit 1, on z
    /// for bit 2, and `mins` otherwise.
    pub fn corners(&self) -> [Point3; 8] {
        std::array::from_fn(|i| {
            Point3::new(
                if i & 1 != 0 { self.maxs.x } else { self.mins.x },
                if i & 2 != 0 { self.maxs.y } else { self.mins.y },
                if i & 4 != 0 { self.maxs.z } else { self.mins.z },
            )
        })
    }

    /// The sphere through the corners: centred on the box, radius half the diagonal.
    #[inline]
    pub fn bounding_sphere(&self) -> Sphere {
        Sphere::new(self.center(), self.half_extents().norm())
    }

    /// The point of the box closest to `point` (the point itself when inside).
    #[inline]
    pub fn closest_point(&self, point: &Point3) -> Point3 {
        point.sup(&self.mins).inf(&self.maxs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box_at(x: Real) -> Aabb {
        Aabb::from_center_half_extents(Point3::new(x, 0.0, 0.0), Vector3::repeat(1.0))
    }

    #[test]
    fn overlap_per_axis_matches_seed_003() {
        // Two cubes of side 2, centres 1.5 apart on x: they overlap by 0.5 on x, 2 on y and z.
        let a = unit_box_at(0.0);
        let b = unit_box_at(1.5);
        assert_eq!(a.overlap(&b), Vector3::new(0.5, 2.0, 2.0));
        // Disjoint on x: 0 there, the other axes still report their overlap.
        let c = unit_box_at(3.0);
        assert_eq!(a.overlap(&c), Vector3::new(0.0, 2.0, 2.0));
        assert!(!a.intersects(&c));
    }

    #[test]
    fn touching_counts_as_intersecting() {
        let a = unit_box_at(0.0);
        let touching = unit_box_at(2.0);
        let missing = unit_box_at(2.0 + 1e-4);
        assert!(a.intersects(&touching));
        assert!(!a.intersects(&missing));
        assert!(a.contains_point(&Point3::new(1.0, 1.0, 1.0)));
        assert!(!a.contains_point(&Point3::new(1.0 + 1e-4, 1.0, 1.0)));
    }

    #[test]
    fn translated_moves_both_corners() {
        let a = unit_box_at(0.0).translated(&Vector3::new(1.0, 2.0, 3.0));
        assert_eq!(a.center(), Point3::new(1.0, 2.0, 3.0));
        assert_eq!(a.half_extents(), Vector3::repeat(1.0));
    }

    #[test]
    fn transformed_by_45_degrees_about_z() {
        let a = Aabb::from_center_half_extents(Point3::origin(), Vector3::new(1.0, 1.0, 0.5));
        let iso = Isometry3::new(
            Vector3::new(5.0, 0.0, 0.0),
            Vector3::z() * std::f32::consts::FRAC_PI_4,
        );
        let t = a.transformed(&iso);
        let r = std::f32::consts::SQRT_2;
        assert!((t.half_extents() - Vector3::new(r, r, 0.5)).norm() < 1e-5);
        assert!((t.center() - Point3::new(5.0, 0.0, 0.0)).norm() < 1e-6);
    }

    #[test]
    fn measures() {
        let a = Aabb::new(Point3::origin(), Point3::new(1.0, 2.0, 3.0));
        assert_eq!(a.volume(), 6.0);
        assert_eq!(a.surface_area(), 22.0);
        assert_eq!(a.loosened(0.5).extents(), Vector3::new(2.0, 3.0, 4.0));
        assert_eq!(a.loosened(-10.0).extents(), Vector3::zeros());
        let m = a.merged(&unit_box_at(-3.0));
        assert_eq!(m.mins, Point3::new(-4.0, -1.0, -1.0));
        assert_eq!(m.maxs, Point3::new(1.0, 2.0, 3.0));
        assert!(m.contains(&a));
        assert!(!a.contains(&m));
    }

    #[test]
    fn from_points_rejects_what_it_cannot_bound() {
        assert!(Aabb::from_points(&[]).is_none());
        let err = Aabb::try_from_points(&[Point3::origin(), Point3::new(0.0, Real::NAN, 0.0)])
            .unwrap_err();
        assert!(err.to_string().contains("points[1].y"), "{err}");
        let err = Aabb::try_from_points(&[Point3::new(Real::INFINITY, 0.0, 0.0)]).unwrap_err();
        assert!(err.to_string().contains("points[0].x"), "{err}");
        // A single point is a valid, degenerate box.
        let p = Aabb::from_points(&[Point3::new(1.0, 2.0, 3.0)]).unwrap();
        assert_eq!(p.extents(), Vector3::zeros());
    }

    #[test]
    fn try_new_names_the_bad_field() {
        let e = Aabb::try_new(Point3::new(0.0, 2.0, 0.0), Point3::new(1.0, 1.0, 1.0)).unwrap_err();
        assert!(e.to_string().contains("aabb.y"), "{e}");
        let e = Aabb::try_new(Point3::new(Real::NAN, 0.0, 0.0), Point3::origin()).unwrap_err();
        assert!(e.to_string().contains("mins.x"), "{e}");
        let e =
            Aabb::try_new(Point3::origin(), Point3::new(0.0, 0.0, Real::NEG_INFINITY)).unwrap_err();
        assert!(e.to_string().contains("maxs.z"), "{e}");
    }
}
