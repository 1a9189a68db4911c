//! Queries on the world's bodies at their current poses: ray casts, AABB overlap, collider poses.
//!
//! Ray casts and AABB queries go through the broad phase's structures: the resting bodies'
//! tree (`step::active`), whose boxes hold their colliders' AABBs, and a scan of the live
//! bodies and of those changed since the last step (whose boxes in the tree may be stale), so
//! that a query costs in proportion to what it meets and to what moves, not to the bodies that
//! rest. Before the first step (or after a restore) there is no tree yet, and every body is
//! scanned. Either way the answers are those of a scan of every body
//! (`tests/broad_phase.rs` compares them).

use crate::body::{BodyHandle, Collider, CollisionFilter, RigidBody, check_collider, check_pose};
use crate::error::WorldError;
use crate::limits::{self, Range, components_within};
use crate::world::World;
use collide::{
    RayHit, ShapeCastHit, cast_shape, ray_volume, volume_contact_within, volume_intersects,
};
use geom::{Aabb, Isometry3, Point3, Ray, Real, Shape, Vector3};

/// Which bodies a query sees. The default sees every body, sensors included.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryFilter {
    /// A filter as a collider's: the query sees the bodies it would collide with (Box2D's
    /// rule, [`CollisionFilter::collides`]); `None` sees every body.
    pub filter: Option<CollisionFilter>,
    /// Bodies never seen (the caster's own, say).
    pub exclude: Vec<BodyHandle>,
    /// Whether sensors are skipped.
    pub skip_sensors: bool,
}

impl QueryFilter {
    /// Sees the bodies a collider with `filter` would collide with.
    pub fn new(filter: CollisionFilter) -> Self {
        Self {
            filter: Some(filter),
            ..Self::default()
        }
    }
    /// Never sees `handle`.
    pub fn excluding(mut self, handle: BodyHandle) -> Self {
        self.exclude.push(handle);
        self
    }
    /// Skips sensors.
    pub fn without_sensors(mut self) -> Self {
        self.skip_sensors = true;
        self
    }
    /// Whether the query sees `body` (of `handle`).
    #[inline]
    fn sees(&self, handle: BodyHandle, body: &RigidBody) -> bool {
        let flags = &body.collider.flags;
        self.filter.is_none_or(|f| f.collides(&flags.filter))
            && !(self.skip_sensors && flags.sensor)
            && !self.exclude.contains(&handle)
    }
}

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
        self.cast_ray_filtered(ray, max_toi, &QueryFilter::default())
    }

    /// The first body `filter` sees that a ray hits within `max_toi`, and where; ties go to the
    /// lower handle.
    pub fn cast_ray_filtered(
        &self,
        ray: &Ray,
        max_toi: Real,
        filter: &QueryFilter,
    ) -> Option<(BodyHandle, RayHit)> {
        let mut best: Option<(BodyHandle, RayHit)> = None;
        let limit = |best: &Option<(BodyHandle, RayHit)>| best.map_or(max_toi, |(_, hit)| hit.toi);
        let hit = |handle, body: &RigidBody, bound| {
            if filter.sees(handle, body) {
                ray_body(ray, body, bound)
            } else {
                None
            }
        };
        let Some(changed) = self.changed_since_step() else {
            for (handle, body) in &self.bodies {
                if let Some(hit) = hit(handle, body, limit(&best)) {
                    closer(&mut best, handle, hit);
                }
            }
            return best;
        };
        self.scan_moving(&changed, |handle, body| {
            if let Some(hit) = hit(handle, body, limit(&best)) {
                closer(&mut best, handle, hit);
            }
        });
        self.active
            .resting()
            .cast(ray, limit(&best), |slot, bound| {
                if let Some((handle, body)) = self.resting_body(&changed, slot)
                    && let Some(hit) = hit(handle, body, bound)
                {
                    closer(&mut best, handle, hit);
                }
                limit(&best)
            });
        best
    }

    /// The bodies whose collider's world AABB meets `aabb`, in handle order.
    pub fn query_aabb(&self, aabb: &Aabb) -> Vec<BodyHandle> {
        self.query_aabb_filtered(aabb, &QueryFilter::default())
    }

    /// The bodies `filter` sees whose collider's world AABB meets `aabb`, in handle order.
    pub fn query_aabb_filtered(&self, aabb: &Aabb, filter: &QueryFilter) -> Vec<BodyHandle> {
        let meets = |handle, body: &RigidBody| {
            filter.sees(handle, body) && body.world_aabb().intersects(aabb)
        };
        let Some(changed) = self.changed_since_step() else {
            return (self.bodies.iter())
                .filter(|&(handle, body)| meets(handle, body))
                .map(|(handle, _)| handle)
                .collect();
        };
        let mut found = Vec::new();
        self.scan_moving(&changed, |handle, body| {
            if meets(handle, body) {
                found.push(handle);
            }
        });
        self.active.resting().query(aabb, |slot| {
            if let Some((handle, body)) = self.resting_body(&changed, slot)
                && meets(handle, body)
            {
                found.push(handle);
            }
        });
        found.sort_unstable();
        found
    }

    /// Every body `filter` sees that a ray hits within `max_toi`, each with its first hit,
    /// nearest first (ties in handle order).
    pub fn cast_ray_all(
        &self,
        ray: &Ray,
        max_toi: Real,
        filter: &QueryFilter,
    ) -> Vec<(BodyHandle, RayHit)> {
        let mut hits = Vec::new();
        let mut visit = |handle, body: &RigidBody| {
            if filter.sees(handle, body)
                && let Some(hit) = ray_body(ray, body, max_toi)
            {
                hits.push((handle, hit));
            }
        };
        match self.changed_since_step() {
            None => self.bodies.iter().for_each(|(h, b)| visit(h, b)),
            Some(changed) => {
                self.scan_moving(&changed, &mut visit);
                self.active.resting().cast(ray, max_toi, |slot, _| {
                    if let Some((handle, body)) = self.resting_body(&changed, slot) {
                        visit(handle, body);
                    }
                    max_toi
                });
            }
        }
        hits.sort_by(|(h, a), (k, b)| a.toi.total_cmp(&b.toi).then(h.cmp(k)));
        hits
    }

    /// Sweeps `shape` (a ball, box, capsule, hull or compound) from `pose` along
    /// `translation` (without turning) and returns the first body `filter` sees that it
    /// touches, and where ([`ShapeCastHit`]: the fraction of the translation, the normal of
    /// the surface hit, the point); ties go to the lower handle. A shape that starts touching
    /// a body hits it at fraction 0. The error names a shape that is not a valid solid, or a
    /// pose or translation that is not finite or out of range.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: &Isometry3,
        translation: Vector3,
        filter: &QueryFilter,
    ) -> Result<Option<(BodyHandle, ShapeCastHit)>, WorldError> {
        let pose = check_query_shape(shape, pose)?;
        components_within(
            || "translation".into(),
            &translation,
            Range::Around(limits::MAX_COORDINATE, "m", "the pose"),
        )?;
        let start = shape.aabb(&pose);
        let swept = start.merged(&start.translated(&translation));
        let mut best: Option<(BodyHandle, ShapeCastHit)> = None;
        for handle in self.query_aabb_filtered(&swept, filter) {
            let body = &self.bodies[handle];
            let target = body.world_volume();
            if let Some(hit) = cast_shape(shape, &pose, &translation, &target)
                && best.is_none_or(|(_, b)| hit.fraction < b.fraction)
            {
                best = Some((handle, hit));
            }
        }
        Ok(best)
    }

    /// The bodies `filter` sees whose colliders `shape` (a solid) at `pose` touches or
    /// overlaps, in handle order. The error names a bad shape or pose.
    pub fn overlap_shape(
        &self,
        shape: &Shape,
        pose: &Isometry3,
        filter: &QueryFilter,
    ) -> Result<Vec<BodyHandle>, WorldError> {
        let pose = check_query_shape(shape, pose)?;
        let volume = shape.world(&pose);
        let mut found = self.query_aabb_filtered(&shape.aabb(&pose), filter);
        found.retain(|&handle| volume_intersects(&volume, &self.bodies[handle].world_volume()));
        Ok(found)
    }

    /// The point of a body `filter` sees nearest to `point`, within `max_distance`: the body,
    /// the point on its collider, and the distance (0, and `point` itself, inside a solid).
    /// Ties go to the lower handle. The error names a point that is not finite or out of
    /// range, or a negative or non-finite distance.
    pub fn closest_point(
        &self,
        point: Point3,
        max_distance: Real,
        filter: &QueryFilter,
    ) -> Result<Option<(BodyHandle, Point3, Real)>, WorldError> {
        components_within(
            || "point".into(),
            &point.coords,
            Range::Around(limits::MAX_COORDINATE, "m", "the origin"),
        )?;
        limits::within(
            "max_distance",
            max_distance,
            Range::Between(0.0, limits::MAX_COORDINATE, "m"),
        )?;
        // A ball of the smallest size stands for the point: its contact gives the direction
        // to the nearest surface and the gap.
        let radius = limits::MIN_SIZE;
        let probe = Shape::Ball { radius };
        let at = Isometry3::translation(point.x, point.y, point.z);
        let ball = probe.world(&at);
        let reach = Aabb::new(point, point).loosened(max_distance + radius);
        let mut best: Option<(BodyHandle, Point3, Real)> = None;
        for handle in self.query_aabb_filtered(&reach, filter) {
            let target = self.bodies[handle].world_volume();
            let Some(contact) = volume_contact_within(&ball, &target, max_distance) else {
                continue;
            };
            let (nearest, distance) = if contact.depth >= radius {
                (point, 0.0)
            } else {
                let distance = (radius - contact.depth).max(0.0);
                (point + contact.normal * distance, distance)
            };
            if distance <= max_distance && best.is_none_or(|(_, _, d)| distance < d) {
                best = Some((handle, nearest, distance));
            }
        }
        Ok(best)
    }

    /// The collider of `handle` placed in the world, if the body exists.
    pub fn collider_pose(&self, handle: BodyHandle) -> Option<Isometry3> {
        let body = self.bodies.get(handle)?;
        Some(body.collider.world_pose(&body.pose))
    }
}

/// A query's shape and pose, checked as a body's collider is (the error names the field);
/// surfaces are refused: a query shape is a solid.
fn check_query_shape(shape: &Shape, pose: &Isometry3) -> Result<Isometry3, WorldError> {
    let pose = check_pose("pose", pose)?;
    if matches!(shape, Shape::TriMesh { .. } | Shape::HeightField { .. }) {
        return Err(WorldError::OutOfRange {
            field: "shape".into(),
            value: 0.0,
            range: "a solid (ball, box, capsule, hull or compound), not a surface".into(),
        });
    }
    check_collider(
        "query",
        &Collider {
            shape: shape.clone(),
            offset: Isometry3::identity(),
            flags: Default::default(),
            user_data: 0,
        },
    )?;
    Ok(pose)
}
