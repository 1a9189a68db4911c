//! Queries on the world's bodies at their current poses: ray casts, AABB overlap, collider poses.

use crate::body::BodyHandle;
use crate::world::World;
use collide::{RayHit, ray_obb, ray_sphere};
use geom::{Aabb, Isometry3, Ray, Real, Volume};

impl World {
    /// The first body a ray hits within `max_toi`, and where; ties go to the lower handle.
    pub fn cast_ray(&self, ray: &Ray, max_toi: Real) -> Option<(BodyHandle, RayHit)> {
        let mut best: Option<(BodyHandle, RayHit)> = None;
        for (handle, body) in &self.bodies {
            let pose = body.collider.world_pose(&body.pose);
            let limit = best.map_or(max_toi, |(_, hit)| hit.toi);
            let hit = match body.collider.shape.world(&pose) {
                Volume::Obb(obb) => ray_obb(ray, &obb, limit),
                Volume::Sphere(sphere) => ray_sphere(ray, &sphere, limit),
            };
            if let Some(hit) = hit
                && best.is_none_or(|(_, b)| hit.toi < b.toi)
            {
                best = Some((handle, hit));
            }
        }
        best
    }

    /// The bodies whose collider's world AABB meets `aabb`, in handle order.
    pub fn query_aabb(&self, aabb: &Aabb) -> Vec<BodyHandle> {
        self.bodies
            .iter()
            .filter(|(_, body)| body.world_aabb().intersects(aabb))
            .map(|(handle, _)| handle)
            .collect()
    }

    /// The collider of `handle` placed in the world, if the body exists.
    pub fn collider_pose(&self, handle: BodyHandle) -> Option<Isometry3> {
        let body = self.bodies.get(handle)?;
        Some(body.collider.world_pose(&body.pose))
    }
}
