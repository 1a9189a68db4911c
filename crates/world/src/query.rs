//! Queries on the world's bodies at their current poses: ray casts, AABB overlap, collider poses.
//!
//! Ray casts and AABB queries go through the broad phase's structures: the resting bodies'
//! tree (`step::active`), whose boxes hold their colliders' AABBs, and a scan of the live
//! bodies and of those changed since the last step (whose boxes in the tree may be stale), so
//! that a query costs in proportion to what it meets and to what moves, not to the bodies that
//! rest. Before the first step (or after a restore) there is no tree yet, and every body is
//! scanned. Either way the answers are those of a scan of every body
//! (`tests/broad_phase.rs` compares them).

use crate::body::{BodyHandle, RigidBody};
use crate::world::World;
use collide::{RayHit, ray_volume};
use geom::{Aabb, Isometry3, Ray, Real};

/// Where `ray` first hits `body`'s collider within `limit`.
fn ray_body(ray: &Ray, body: &RigidBody, limit: Real) -> Option<RayHit> {
    let pose = body.collider.world_pose(&body.pose);
    ray_volume(ray, &body.collider.shape.world(&pose), limit)
}

/// Keeps the closer of two hits, the lower handle on a tie (as a scan in handle order does).
fn closer(best: &mut Option<(BodyHandle, RayHit)>, handle: BodyHandle, hit: RayHit) {
    if best.is_none_or(|(h, b)| hit.toi < b.toi || (hit.toi == b.toi && handle < h)) {
        *best = Some((handle, hit));
    }
}

impl World {
    /// The bodies changed since the last step, sorted, whose boxes in the tree are not
    /// trusted; `None` when there is no tree to trust (before the first step, after a
    /// restore).
    fn changed_since_step(&self) -> Option<Vec<BodyHandle>> {
        if self.active.is_stale() {
            return None;
        }
        let mut changed = self.active.pending().to_vec();
        changed.sort_unstable();
        changed.dedup();
        Some(changed)
    }

    /// Calls `visit` once with every body that is live or changed (the bodies a query scans
    /// beside the tree).
    fn scan_moving(&self, changed: &[BodyHandle], mut visit: impl FnMut(BodyHandle, &RigidBody)) {
        let live = self.active.live();
        let others = changed.iter().filter(|h| live.binary_search(h).is_err());
        for &handle in live.iter().chain(others) {
            if let Some(body) = self.bodies.get(handle) {
                visit(handle, body);
            }
        }
    }

    /// The body of a slot the tree gave, unless it changed since the last step.
    fn resting_body(&self, changed: &[BodyHandle], slot: u32) -> Option<(BodyHandle, &RigidBody)> {
        let handle = self.active.handle_of(slot);
        if changed.binary_search(&handle).is_ok() {
            return None;
        }
        Some((handle, self.bodies.get(handle)?))
    }

    /// The first body a ray hits within `max_toi`, and where; ties go to the lower handle.
    pub fn cast_ray(&self, ray: &Ray, max_toi: Real) -> Option<(BodyHandle, RayHit)> {
        let mut best: Option<(BodyHandle, RayHit)> = None;
        let limit = |best: &Option<(BodyHandle, RayHit)>| best.map_or(max_toi, |(_, hit)| hit.toi);
        let Some(changed) = self.changed_since_step() else {
            for (handle, body) in &self.bodies {
                if let Some(hit) = ray_body(ray, body, limit(&best)) {
                    closer(&mut best, handle, hit);
                }
            }
            return best;
        };
        self.scan_moving(&changed, |handle, body| {
            if let Some(hit) = ray_body(ray, body, limit(&best)) {
                closer(&mut best, handle, hit);
            }
        });
        self.active
            .resting()
            .cast(ray, limit(&best), |slot, bound| {
                if let Some((handle, body)) = self.resting_body(&changed, slot)
                    && let Some(hit) = ray_body(ray, body, bound)
                {
                    closer(&mut best, handle, hit);
                }
                limit(&best)
            });
        best
    }

    /// The bodies whose collider's world AABB meets `aabb`, in handle order.
    pub fn query_aabb(&self, aabb: &Aabb) -> Vec<BodyHandle> {
        let meets = |body: &RigidBody| body.world_aabb().intersects(aabb);
        let Some(changed) = self.changed_since_step() else {
            return (self.bodies.iter())
                .filter(|(_, body)| meets(body))
                .map(|(handle, _)| handle)
                .collect();
        };
        let mut found = Vec::new();
        self.scan_moving(&changed, |handle, body| {
            if meets(body) {
                found.push(handle);
            }
        });
        self.active.resting().query(aabb, |slot| {
            if let Some((handle, body)) = self.resting_body(&changed, slot)
                && meets(body)
            {
                found.push(handle);
            }
        });
        found.sort_unstable();
        found
    }

    /// The collider of `handle` placed in the world, if the body exists.
    pub fn collider_pose(&self, handle: BodyHandle) -> Option<Isometry3> {
        let body = self.bodies.get(handle)?;
        Some(body.collider.world_pose(&body.pose))
    }
}
