//! Oriented bounding boxes in 3D, world frame.

use crate::{Aabb, GeomError, Isometry3, Matrix3, Point3, Real, Sphere, UnitQuaternion, Vector3};
use crate::{fit, validate};
use serde::{Deserialize, Serialize};

/// An oriented box in world space: a box-local point `p` (with `|p_i| <= half_extents_i`) is at
/// `center + rotation * p` in world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Obb {
    /// The centre, world space.
    pub center: Point3,
    /// The box's orientation: its local axes are the columns of this rotation.
    pub rotation: UnitQuaternion,
    /// Half the size along each local axis (metres); `>= 0`, and `> 0` when it came from user input.
    pub half_extents: Vector3,
}

impl Obb {
    /// A box; the half extents (`>= 0`) are only debug-checked.
    #[inline]
    pub fn new(center: Point3, rotation: UnitQuaternion, half_extents: Vector3) -> Self {
        debug_assert!(half_extents.iter().all(|h| *h >= 0.0));
        Self {
            center,
            rotation,
            half_extents,
        }
    }

    /// A box, checked: finite centre, a unit rotation (renormalised), finite positive half
    /// extents. The error names the field (`half_extents.y`, `rotation`, ...) and the value.
    pub fn try_new(
        center: Point3,
        rotation: UnitQuaternion,
        half_extents: Vector3,
    ) -> Result<Self, GeomError> {
        let center = validate::finite_point3("center", &center)?;
        let rotation = validate::rotation("rotation", &rotation)?;
        let half_extents = validate::positive_vector3("half_extents", &half_extents)?;
        Ok(Self::new(center, rotation, half_extents))
    }

    /// The box of the isometry `pose` (its centre and rotation) with the given half extents.
    #[inline]
    pub fn from_pose(pose: &Isometry3, half_extents: Vector3) -> Self {
        Self::new(pose.translation.vector.into(), pose.rotation, half_extents)
    }

    /// The same box as an `Aabb`, unrotated.
    #[inline]
    pub fn from_aabb(aabb: &Aabb) -> Self {
        Self::new(
            aabb.center(),
            UnitQuaternion::identity(),
            aabb.half_extents(),
        )
    }

    /// A tight box around a point cloud, e.g. a mesh's vertices; `None` for an empty list or a
    /// non-finite coordinate. See [`Obb::try_from_points`].
    pub fn from_points(points: &[Point3]) -> Option<Self> {
        Self::try_from_points(points).ok()
    }

    /// A tight box around a point cloud: principal axes of the points' covariance, refined by
    /// fitting the minimum-area rectangle to the hull of the points projected along each axis in
    /// turn, never worse than the axis-aligned box. A flat cloud gives a box of zero thickness.
    /// Errors name an empty list or the first non-finite coordinate.
    pub fn try_from_points(points: &[Point3]) -> Result<Self, GeomError> {
        validate::points3("points", points, 1)?;
        Ok(fit::fit_obb(points))
    }

    /// The rotation as a matrix whose columns are the box's axes.
    #[inline]
    pub fn rotation_matrix(&self) -> Matrix3 {
        *self.rotation.to_rotation_matrix().matrix()
    }

    /// The box's three unit axes in world space (the columns of its rotation).
    #[inline]
    pub fn axes(&self) -> [Vector3; 3] {
        let m = self.rotation_matrix();
        [
            m.column(0).into_owned(),
            m.column(1).into_owned(),
            m.column(2).into_owned(),
        ]
    }

    /// The 8 corners in world space; corner `i` takes `+half_extents` on local x when bit 0 of
    /// `i` is set, on y for bit 1, on z for bit 2, and `-half_extents` otherwise.
    pub fn corners(&self) -> [Point3; 8] {
        let [ax, ay, az] = self.axes();
        let (hx, hy, hz) = (
            ax * self.half_extents.x,
            ay * self.half_extents.y,
            az * self.half_extents.z,
        );
        std::array::from_fn(|i| {
            let sx = if i & 1 != 0 { hx } else { -hx };
            let sy = if i & 2 != 0 { hy } else { -hy };
            let sz = if i & 4 != 0 { hz } else { -hz };
            self.center + sx + sy + sz
        })
    }

    /// Half the length of the box's projection onto `axis`, in units of `|axis|`:
    /// `sum_i h_i |axis . a_i|` (seed 000; Ericson, Real-Time Collision Detection, 4.4.1).
    #[inline]
    pub fn projection_radius(&self, axis: &Vector3) -> Real {
        let local = self.rotation.inverse_transform_vector(axis);
        local.abs().dot(&self.half_extents)
    }

    /// The tightest axis-aligned box around this box.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        let half = self.rotation_matrix().abs() * self.half_extents;
        Aabb::from_center_half_extents(self.center, half)
    }

    /// This box after the rigid motion `iso`.
    #[inline]
    pub fn transformed(&self, iso: &Isometry3) -> Self {
        Self::new(
            iso * self.center,
            iso.rotation * self.rotation,
            self.half_extents,
        )
    }

    /// The pose of the box: translation to its centre, then its rotation.
    #[inline]
    pub fn pose(&self) -> Isometry3 {
        Isometry3::from_parts(self.center.coords.into(), self.rotation)
    }

    /// `point` in the box's local frame.
    #[inline]
    pub fn to_local(&self, point: &Point3) -> Point3 {
        self.rotation
            .inverse_transform_point(&(point - self.center.coords))
    }

    /// Whether `point` lies in the box (its faces included).
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        let local = self.to_local(point);
        (0..3).all(|i| local[i].abs() <= self.half_extents[i])
    }

    /// The point of the box closest to `point` (the point itself when inside).
    #[inline]
    pub fn closest_point(&self, point: &Point3) -> Point3 {
        let local = self.to_local(point).coords;
        let clamped = local.sup(&-self.half_extents).inf(&self.half_extents);
        self.center + self.rotation * clamped
    }

    /// The volume.
    #[inline]
    pub fn volume(&self) -> Real {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// The sphere through the corners.
    #[inline]
    pub fn bounding_sphere(&self) -> Sphere {
        Sphere::new(self.center, self.half_extents.norm())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turned_box() -> Obb {
        Obb::new(
            Point3::new(1.0, 2.0, 3.0),
            UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1),
            Vector3::new(0.5, 1.0, 2.0),
        )
    }

    #[test]
    fn corners_lie_on_the_box_and_project_to_the_radius() {
        let b = turned_box();
        let axis = Vector3::new(0.3, -0.2, 0.9).normalize();
        let r = b.projection_radius(&axis);
        let c = b.center.coords.dot(&axis);
        let proj: Vec<Real> = b.corners().iter().map(|p| p.coords.dot(&axis)).collect();
        let hi = proj.iter().copied().fold(Real::MIN, Real::max);
        let lo = proj.iter().copied().fold(Real::MAX, Real::min);
        assert!((hi - (c + r)).abs() < 1e-5 && (lo - (c - r)).abs() < 1e-5);
        for p in b.corners() {
            let l = b.to_local(&p);
            assert!((l.coords.abs() - b.half_extents).norm() < 1e-5);
        }
    }

    #[test]
    fn aabb_is_tight() {
        let b = turned_box();
        let a = b.aabb();
        let from_corners = Aabb::from_points(&b.corners()).unwrap();
        assert!((a.mins - from_corners.mins).norm() < 1e-5);
        assert!((a.maxs - from_corners.maxs).norm() < 1e-5);
    }

    #[test]
    fn closest_point_and_contains() {
        let b = Obb::new(
            Point3::origin(),
            UnitQuaternion::identity(),
            Vector3::repeat(1.0),
        );
        assert_eq!(
            b.closest_point(&Point3::new(3.0, 0.5, -4.0)),
            Point3::new(1.0, 0.5, -1.0)
        );
        assert!(b.contains_point(&Point3::new(1.0, -1.0, 1.0)));
        assert!(!b.contains_point(&Point3::new(1.0001, 0.0, 0.0)));
    }

    #[test]
    fn try_new_names_the_bad_field() {
        let id = UnitQuaternion::identity();
        let cases = [
            (
                Point3::origin(),
                id,
                Vector3::new(1.0, 0.0, 1.0),
                "half_extents.y",
            ),
            (
                Point3::origin(),
                id,
                Vector3::new(1.0, 1.0, -2.0),
                "half_extents.z",
            ),
            (
                Point3::origin(),
                id,
                Vector3::new(Real::NAN, 1.0, 1.0),
                "half_extents.x",
            ),
            (
                Point3::new(0.0, Real::INFINITY, 0.0),
                id,
                Vector3::repeat(1.0),
                "center.y",
            ),
        ];
        for (c, r, h, field) in cases {
            let e = Obb::try_new(c, r, h).unwrap_err().to_string();
            assert!(e.contains(field), "{e} should name {field}");
        }
        let zero = UnitQuaternion::new_unchecked(crate::Quaternion::new(0.0, 0.0, 0.0, 0.0));
        let e = Obb::try_new(Point3::origin(), zero, Vector3::repeat(1.0)).unwrap_err();
        assert!(matches!(e, GeomError::ZeroLength { .. }) && e.to_string().contains("rotation"));
        let long = UnitQuaternion::new_unchecked(crate::Quaternion::new(2.0, 0.0, 0.0, 0.0));
        let e = Obb::try_new(Point3::origin(), long, Vector3::repeat(1.0)).unwrap_err();
        assert!(matches!(e, GeomError::NotUnit { .. }), "{e}");
        let nan = UnitQuaternion::new_unchecked(crate::Quaternion::new(Real::NAN, 0.0, 0.0, 0.0));
        let e = Obb::try_new(Point3::origin(), nan, Vector3::repeat(1.0)).unwrap_err();
        assert!(e.to_string().contains("rotation.w"), "{e}");
    }
}
