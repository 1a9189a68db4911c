//! Ray casts against volumes. World space. Rays are solid: a ray starting inside a volume hits
//! it at `toi = 0` (with a zero normal, as there is no surface there). A hit is at
//! `origin + toi * dir` with `0 <= toi <= max_toi`, `toi` in units of `|dir|`.

use geom::{
    Aabb, Capsule, HeightField, Isometry3, Obb, Point3, PosedHull, PosedSurface, Ray, Real, Sphere,
    Surface, TriMesh, Vector3, Volume,
};
use std::cell::Cell;

/// Where a ray first meets a volume.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The time of impact: the hit is at `ray.point_at(toi)`.
    pub toi: Real,
    /// The unit outward normal of the surface hit; zero when the ray starts inside.
    pub normal: Vector3,
    /// The hit point, world space.
    pub point: Point3,
}

/// Ray against an axis-aligned box: the slab test (Ericson, Real-Time Collision Detection,
/// 5.3.3; Kay and Kajiya 1986). A zero direction component is handled as "parallel to that slab"
/// without dividing by zero, so no NaN can arise.
pub fn ray_aabb(ray: &Ray, aabb: &Aabb, max_toi: Real) -> Option<RayHit> {
    let mut t_enter: Real = 0.0;
    let mut t_exit = max_toi;
    // The axis and sign of the slab whose entry is latest; none while the origin is inside.
    let mut enter_axis: Option<(usize, Real)> = None;
    for i in 0..3 {
        let (o, d) = (ray.origin[i], ray.dir[i]);
        if d == 0.0 {
            if o < aabb.mins[i] || o > aabb.maxs[i] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / d;
        let (mut t_near, mut t_far) = ((aabb.mins[i] - o) * inv, (aabb.maxs[i] - o) * inv);
        // The near slab plane's outward normal is opposite to the ray's direction.
        let sign = if d > 0.0 { -1.0 } else { 1.0 };
        if t_near > t_far {
            std::mem::swap(&mut t_near, &mut t_far);
        }
        if t_near > t_enter {
            t_enter = t_near;
            enter_axis = Some((i, sign));
        }
        t_exit = t_exit.min(t_far);
        if t_enter > t_exit {
            return None;
        }
    }
    let mut normal = Vector3::zeros();
    if let Some((i, sign)) = enter_axis {
        normal[i] = sign;
    }
    Some(RayHit {
        toi: t_enter,
        normal,
        point: ray.point_at(t_enter),
    })
}

/// Ray against an oriented box: the slab test in the box's frame.
pub fn ray_obb(ray: &Ray, obb: &Obb, max_toi: Real) -> Option<RayHit> {
    let local = Ray::new(
        obb.to_local(&ray.origin),
        obb.rotation.inverse_transform_vector(&ray.dir),
    );
    let bounds = Aabb::from_center_half_extents(Point3::origin(), obb.half_extents);
    let hit = ray_aabb(&local, &bounds, max_toi)?;
    Some(RayHit {
        toi: hit.toi,
        normal: obb.rotation * hit.normal,
        point: ray.point_at(hit.toi),
    })
}

/// Ray against a sphere (Ericson, Real-Time Collision Detection, 5.3.2, for a direction of any
/// length).
pub fn ray_sphere(ray: &Ray, sphere: &Sphere, max_toi: Real) -> Option<RayHit> {
    let m = ray.origin - sphere.center;
    let c = m.norm_squared() - sphere.radius * sphere.radius;
    if c <= 0.0 {
        return Some(RayHit {
            toi: 0.0,
            normal: Vector3::zeros(),
            point: ray.origin,
        });
    }
    let a = ray.dir.norm_squared();
    let b = m.dot(&ray.dir);
    if b > 0.0 {
        // Outside and pointing away.
        return None;
    }
    let discriminant = b * b - a * c;
    if discriminant < 0.0 {
        return None;
    }
    // The smaller root, in the form that avoids cancellation: t = c / (-b + sqrt(disc)).
    let toi = c / (-b + discriminant.sqrt());
    // A far-off origin (|m|^2 overflowing) gives a NaN: refused with the misses.
    if toi.is_nan() || toi > max_toi {
        return None;
    }
    let point = ray.point_at(toi);
    let normal = (point - sphere.center) / sphere.radius;
    Some(RayHit {
        toi,
        normal: normal.normalize(),
        point,
    })
}

/// Ray against a capsule: the round side (the infinite cylinder about the segment, where the
/// hit lies between the ends) and the balls at its ends, the first hit of the three. An origin
/// inside hits at once (`toi` 0, zero normal), as [`ray_sphere`].
pub fn ray_capsule(ray: &Ray, capsule: &Capsule, max_toi: Real) -> Option<RayHit> {
    if capsule.contains_point(&ray.origin) {
        return Some(RayHit {
            toi: 0.0,
            normal: Vector3::zeros(),
            point: ray.origin,
        });
    }
    let (d, m, n) = (capsule.axis(), ray.origin - capsule.a, ray.dir);
    let r = capsule.radius;
    let (dd, nd, md) = (d.norm_squared(), n.dot(&d), m.dot(&d));
    let a = dd * n.norm_squared() - nd * nd;
    let b = dd * m.dot(&n) - nd * md;
    let c = dd * (m.norm_squared() - r * r) - md * md;
    let mut best: Option<RayHit> = None;
    let discriminant = b * b - a * c;
    if a > Real::EPSILON * dd * n.norm_squared() && discriminant >= 0.0 {
        let toi = (-b - discriminant.sqrt()) / a;
        let s = (md + toi * nd) / dd;
        if toi >= 0.0 && toi <= max_toi && (0.0..=1.0).contains(&s) {
            let point = ray.point_at(toi);
            let normal = (point - (capsule.a + d * s)).normalize();
            best = Some(RayHit { toi, normal, point });
        }
    }
    for end in [capsule.a, capsule.b] {
        let limit = best.as_ref().map_or(max_toi, |h| h.toi);
        if let Some(hit) = ray_sphere(ray, &Sphere::new(end, r), limit)
            && best.as_ref().is_none_or(|h| hit.toi < h.toi)
        {
            best = Some(hit);
        }
    }
    best.filter(|h| h.toi.is_finite())
}

/// Ray against a convex hull: the ray clipped by every face's plane in the hull's frame
/// (Cyrus and Beck), the hit on the last face it enters. An origin inside hits at once.
pub fn ray_hull(ray: &Ray, hull: &PosedHull, max_toi: Real) -> Option<RayHit> {
    let origin = hull.pose.inverse_transform_point(&ray.origin);
    let dir = hull.pose.inverse_transform_vector(&ray.dir);
    let (mut enter, mut exit, mut face) = (0.0 as Real, max_toi, None);
    for (f, plane) in hull.hull.faces().iter().enumerate() {
        let (distance, along) = (
            plane.normal.dot(&origin.coords) - plane.offset,
            plane.normal.dot(&dir),
        );
        if along == 0.0 {
            if distance > 0.0 {
                return None;
            }
            continue;
        }
        let t = -distance / along;
        if along < 0.0 {
            if t > enter {
                (enter, face) = (t, Some(f));
            }
        } else if t < exit {
            exit = t;
        }
        if enter > exit {
            return None;
        }
    }
    let normal = face.map_or_else(Vector3::zeros, |f| {
        hull.pose.rotation * hull.hull.faces()[f].normal
    });
    (enter.is_finite()).then(|| RayHit {
        toi: enter,
        normal,
        point: ray.point_at(enter),
    })
}

/// Ray against one triangle, front side only (Moller and Trumbore, 1997): a ray leaving the
/// back of a surface passes through it, as a body there would.
pub fn ray_triangle(ray: &Ray, [a, b, c]: &[Point3; 3], max_toi: Real) -> Option<RayHit> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.dir.cross(&e2);
    let det = e1.dot(&p);
    let normal = e1.cross(&e2);
    // Back-facing or parallel (relative to the sizes involved), or NaN.
    let front = det > Real::EPSILON * normal.norm() * ray.dir.norm();
    if !front {
        return None;
    }
    let s = ray.origin - a;
    let u = s.dot(&p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(&e1);
    let v = ray.dir.dot(&q) / det;
    if !(v >= 0.0 && u + v <= 1.0) {
        return None;
    }
    let toi = e2.dot(&q) / det;
    (0.0..=max_toi).contains(&toi).then(|| RayHit {
        toi,
        normal: normal.normalize(),
        point: ray.point_at(toi),
    })
}

/// The closer of two hits (the first on a tie).
fn nearer(best: Option<RayHit>, hit: Option<RayHit>) -> Option<RayHit> {
    match (best, hit) {
        (Some(b), Some(h)) if h.toi < b.toi => Some(h),
        (None, h) => h,
        (b, _) => b,
    }
}

/// Ray against a triangle mesh at `pose`, front faces only: the hierarchy's boxes the ray
/// enters before the closest hit so far are visited.
pub fn ray_trimesh(ray: &Ray, mesh: &PosedSurface<TriMesh>, max_toi: Real) -> Option<RayHit> {
    let local = ray.inverse_transformed(&mesh.pose);
    let best = Cell::new(None::<RayHit>);
    let limit = || best.get().map_or(max_toi, |h| h.toi);
    mesh.surface.bvh().walk(
        |b| ray_aabb(&local, b, limit() + limit().abs() * 1e-4 + 1e-4).is_some(),
        |t| {
            let tri = mesh.surface.triangle(t).vertices;
            best.set(nearer(best.get(), ray_triangle(&local, &tri, limit())));
        },
    );
    best.get().map(|h| to_world(h, ray, &mesh.pose))
}

/// A hit found in a surface's frame, in world space.
fn to_world(hit: RayHit, ray: &Ray, pose: &Isometry3) -> RayHit {
    RayHit {
        toi: hit.toi,
        normal: pose.rotation * hit.normal,
        point: ray.point_at(hit.toi),
    }
}

/// Ray against a heightfield at `pose`, front faces only: the cells under the ray are walked
/// in its order (a grid traversal, Amanatides and Woo 1987), and the first cell with a hit
/// holds the closest.
pub fn ray_heightfield(
    ray: &Ray,
    field: &PosedSurface<HeightField>,
    max_toi: Real,
) -> Option<RayHit> {
    let local = ray.inverse_transformed(&field.pose);
    let hf = &field.surface;
    let bounds = hf.local_aabb().loosened(1e-4);
    let enter = ray_aabb(&local, &bounds, max_toi)?.toi;
    // Where the ray leaves the box (or its bound, if sooner).
    let exit = (0..3).fold(max_toi, |exit, k| {
        let d = local.dir[k];
        if d == 0.0 {
            return exit;
        }
        let side = if d > 0.0 {
            bounds.maxs[k]
        } else {
            bounds.mins[k]
        };
        exit.min((side - local.origin[k]) / d)
    });
    let (cols, rows) = (hf.columns() - 1, hf.rows() - 1);
    let scale = hf.scale();
    let size = [scale.x, scale.z];
    let cells = [cols, rows];
    let (o, d) = ([local.origin.x, local.origin.z], [local.dir.x, local.dir.z]);
    let start = local.point_at(enter);
    let mut cell = [0i64; 2];
    let mut next = [Real::INFINITY; 2];
    let mut delta = [Real::INFINITY; 2];
    let mut step = [0i64; 2];
    for k in 0..2 {
        let width = size[k] / cells[k] as Real;
        let at = [start.x, start.z][k] + 0.5 * size[k];
        cell[k] = ((at / width).floor() as i64).clamp(0, i64::from(cells[k]) - 1);
        if d[k] != 0.0 {
            step[k] = if d[k] > 0.0 { 1 } else { -1 };
            let boundary = (cell[k] + i64::from(d[k] > 0.0)) as Real * width - 0.5 * size[k];
            next[k] = (boundary - o[k]) / d[k];
            delta[k] = width / d[k].abs();
        }
    }
    loop {
        let index = 2 * (cell[1] as u32 * cols + cell[0] as u32);
        let hit = [index, index + 1].into_iter().fold(None, |best, t| {
            nearer(
                best,
                ray_triangle(&local, &hf.triangle(t).vertices, max_toi),
            )
        });
        if let Some(hit) = hit {
            return Some(to_world(hit, ray, &field.pose));
        }
        let k = usize::from(next[1] < next[0]);
        if next[k] > exit || step[k] == 0 {
            return None;
        }
        cell[k] += step[k];
        if !(0..i64::from(cells[k])).contains(&cell[k]) {
            return None;
        }
        next[k] += delta[k];
    }
}

/// Ray against any volume.
pub fn ray_volume(ray: &Ray, volume: &Volume, max_toi: Real) -> Option<RayHit> {
    match volume {
        Volume::Obb(obb) => ray_obb(ray, obb, max_toi),
        Volume::Sphere(sphere) => ray_sphere(ray, sphere, max_toi),
        Volume::TriMesh(mesh) => ray_trimesh(ray, mesh, max_toi),
        Volume::HeightField(field) => ray_heightfield(ray, field, max_toi),
        Volume::Capsule(capsule) => ray_capsule(ray, capsule, max_toi),
        Volume::Hull(hull) => ray_hull(ray, hull, max_toi),
        Volume::Compound(posed) => (0..posed.compound.parts().len())
            .filter_map(|k| ray_volume(ray, &posed.part(k), max_toi))
            .reduce(|best, hit| if hit.toi < best.toi { hit } else { best }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::UnitQuaternion;

    #[test]
    fn slab_test_with_zero_components() {
        let b = Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0));
        let r = Ray::new(Point3::new(-5.0, 0.5, 0.0), Vector3::new(2.0, 0.0, 0.0));
        let hit = ray_aabb(&r, &b, 10.0).unwrap();
        assert_eq!(hit.toi, 2.0);
        assert_eq!(hit.normal, -Vector3::x());
        assert_eq!(hit.point, Point3::new(-1.0, 0.5, 0.0));
        // Grazing along a face (origin on the slab boundary, zero component): counts, no NaN.
        let graze = Ray::new(Point3::new(-5.0, 1.0, 0.0), Vector3::x());
        let hit = ray_aabb(&graze, &b, 10.0).unwrap();
        assert!(hit.toi == 4.0 && hit.normal.iter().all(|c| c.is_finite()));
        let off = Ray::new(Point3::new(-5.0, 1.0001, 0.0), Vector3::x());
        assert!(ray_aabb(&off, &b, 10.0).is_none());
        // Too short, then inside.
        assert!(ray_aabb(&r, &b, 1.99).is_none());
        let inside = ray_aabb(&Ray::new(Point3::origin(), Vector3::y()), &b, 1.0).unwrap();
        assert_eq!((inside.toi, inside.normal), (0.0, Vector3::zeros()));
    }

    #[test]
    fn obb_and_sphere() {
        let b = Obb::new(
            Point3::new(3.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4),
            Vector3::repeat(1.0),
        );
        let hit = ray_obb(&Ray::new(Point3::origin(), Vector3::x()), &b, 10.0).unwrap();
        assert!((hit.toi - (3.0 - std::f32::consts::SQRT_2)).abs() < 1e-5);
        let s = Sphere::new(Point3::new(0.0, 0.0, 5.0), 1.0);
        let hit = ray_sphere(&Ray::new(Point3::origin(), Vector3::z() * 2.0), &s, 10.0).unwrap();
        assert!((hit.toi - 2.0).abs() < 1e-6);
        assert!((hit.normal + Vector3::z()).norm() < 1e-6);
        assert!(ray_sphere(&Ray::new(Point3::origin(), -Vector3::z()), &s, 10.0).is_none());
    }
}
