//! The world: bodies, the fixed step, queries and events.

use crate::body::{BodyDesc, BodyHandle, BodyKind, RigidBody};
use crate::config::{Response, WorldConfig};
use crate::error::WorldError;
use crate::limits;
use crate::response;
use collide::broad::RowSweep;
use collide::staged::{Posed, StageCounts, StagedFilter};
use collide::{Contact, RayHit, ray_obb, ray_sphere};
use geom::{Aabb, Isometry3, Ray, Real, UnitQuaternion, Volume};
use slotmap::SlotMap;

/// Two bodies in contact during the last step. `a < b` in handle order; the contact's normal
/// points from `a` toward `b`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactPair {
    /// The first body.
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// How they touch (before the response moved them), world space.
    pub contact: Contact,
}

/// A change in which bodies touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactEvent {
    /// The two bodies (in handle order) began touching this step.
    Started(BodyHandle, BodyHandle),
    /// The two bodies stopped touching this step, or one of them was removed.
    Stopped(BodyHandle, BodyHandle),
}

/// A world of rigid bodies advanced in fixed steps.
///
/// A step, as data flows: (1) gravity changes the velocities of dynamic bodies; (2) every
/// collider's world AABB is updated from its body's pose; (3) the broad phase finds the
/// overlapping AABB pairs, each once, sorted by body handle; (4) the staged narrow phase
/// (bounding spheres, AABBs, exact test) gives the contacts; (5) the configured [`Response`]
/// changes velocities and positions; (6) positions integrate, contact events are emitted and
/// the step counter advances. Nothing depends on hash order, threads or the clock: the same
/// world gives bit-identical states on the same binary.
///
/// Discrete steps have a speed limit: a body is caught by another only if it cannot cross the
/// other's centre plane in one step, that is while `|v| dt < r_a + r_b`, with `r_a` and `r_b`
/// the two bodies' half-sizes along the motion (for two unit cubes meeting face on, `1`).
/// Faster bodies can pass through. Speeds are also capped at [`limits::MAX_SPEED`] and
/// [`limits::MAX_ANGULAR_SPEED`] (checked on input, clamped each step).
#[derive(Debug, Clone)]
pub struct World {
    pub(crate) config: WorldConfig,
    pub(crate) bodies: SlotMap<BodyHandle, RigidBody>,
    pub(crate) step_count: u64,
    /// Simulated time not yet stepped (seconds), `< dt` after an `advance`.
    pub(crate) accumulator: Real,
    /// The pairs touching at the end of the last step, sorted: part of the state, since the
    /// next step's events depend on it.
    pub(crate) touching: Vec<(BodyHandle, BodyHandle)>,
    // Results of the last step.
    contacts: Vec<ContactPair>,
    events: Vec<ContactEvent>,
    stage_counts: StageCounts,
    // Scratch of the step, refilled every step (never saved, never changes a result). Index `i`
    // of the first four is the `i`-th body in handle order.
    broad: RowSweep,
    handles: Vec<BodyHandle>,
    posed: Vec<Posed>,
    aabbs: Vec<Aabb>,
    movable: Vec<bool>,
    /// Overlapping pairs of indices into the vectors above.
    pairs: Vec<(u32, u32)>,
}

impl World {
    /// An empty world. `config` is trusted (checked only by `debug_assert!`): use
    /// [`World::try_new`] for settings from users or files.
    pub fn new(config: WorldConfig) -> Self {
        debug_assert!(config.validate().is_ok(), "{:?}", config.validate());
        Self {
            config,
            bodies: SlotMap::with_key(),
            step_count: 0,
            accumulator: 0.0,
            touching: Vec::new(),
            contacts: Vec::new(),
            events: Vec::new(),
            stage_counts: StageCounts::default(),
            broad: RowSweep::new(),
            handles: Vec::new(),
            posed: Vec::new(),
            aabbs: Vec::new(),
            movable: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// An empty world, its settings checked; the error names the bad field.
    pub fn try_new(config: WorldConfig) -> Result<Self, WorldError> {
        config.validate()?;
        Ok(Self::new(config))
    }

    /// The settings.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Adds a body; every field of `desc` is checked first, and on error (which names the
    /// field, e.g. `desc.linvel.x`) the world is unchanged.
    pub fn insert(&mut self, desc: BodyDesc) -> Result<BodyHandle, WorldError> {
        let body = desc.build()?;
        Ok(self.bodies.insert(body))
    }

    /// Removes a body and returns it; `None` for an unknown or already removed handle. Pairs it
    /// touched get a `Stopped` event.
    pub fn remove(&mut self, handle: BodyHandle) -> Option<RigidBody> {
        let body = self.bodies.remove(handle)?;
        let events = &mut self.events;
        self.touching.retain(|&(a, b)| {
            let gone = a == handle || b == handle;
            if gone {
                events.push(ContactEvent::Stopped(a, b));
            }
            !gone
        });
        self.contacts.retain(|c| c.a != handle && c.b != handle);
        Some(body)
    }

    /// The body of `handle`, if it is still in the world.
    pub fn body(&self, handle: BodyHandle) -> Option<&RigidBody> {
        self.bodies.get(handle)
    }

    /// The body of `handle` for changes through its checked setters.
    pub fn body_mut(&mut self, handle: BodyHandle) -> Option<&mut RigidBody> {
        self.bodies.get_mut(handle)
    }

    /// Every body with its handle, in handle order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &RigidBody)> {
        self.bodies.iter()
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether the world has no bodies.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Steps taken since the world was created.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// The simulated time (seconds): steps taken times `dt`.
    pub fn time(&self) -> f64 {
        self.step_count as f64 * f64::from(self.config.dt)
    }

    /// The contacts found in the last step, in handle order.
    pub fn contacts(&self) -> &[ContactPair] {
        &self.contacts
    }

    /// Contacts started and stopped in the last step (and by removals since), in handle order.
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// What each stage of the narrow-phase filter did in the last step.
    pub fn stage_counts(&self) -> StageCounts {
        self.stage_counts
    }

    /// How far (in [0, 1)) the unstepped time is into the next step: draw bodies at
    /// `previous + alpha * (current - previous)` for smooth motion.
    pub fn interpolation_alpha(&self) -> Real {
        (self.accumulator / self.config.dt).clamp(0.0, 1.0)
    }

    /// Runs as many fixed steps as `elapsed` seconds (plus the time left over from earlier
    /// calls) allow, at most `max_steps_per_advance`, and keeps the remainder. Time beyond the
    /// cap is dropped. A negative, NaN or infinite `elapsed` runs nothing and changes nothing.
    /// Returns the number of steps taken.
    pub fn advance(&mut self, elapsed: Real) -> usize {
        if !(elapsed.is_finite() && elapsed >= 0.0) {
            return 0;
        }
        let dt = self.config.dt;
        self.accumulator += elapsed;
        let mut steps = 0;
        while self.accumulator >= dt && steps < self.config.max_steps_per_advance as usize {
            self.step();
            self.accumulator -= dt;
            steps += 1;
        }
        if self.accumulator >= dt {
            self.accumulator %= dt;
        }
        steps
    }

    /// Advances one fixed step of `dt`.
    pub fn step(&mut self) {
        let dt = self.config.dt;
        self.events.clear();

        // 1. Velocities.
        let gravity = self.config.gravity * dt;
        for body in self.bodies.values_mut() {
            if body.kind == BodyKind::Dynamic {
                body.linvel += gravity;
            }
        }

        // 2. World volumes and AABBs, densely in handle order (the order slots are visited).
        self.handles.clear();
        self.posed.clear();
        self.aabbs.clear();
        self.movable.clear();
        for (handle, body) in &self.bodies {
            debug_assert!(self.handles.last().is_none_or(|&last| last < handle));
            let posed = Posed::new(&body.collider.shape, &body.collider.world_pose(&body.pose));
            self.handles.push(handle);
            self.aabbs.push(posed.aabb);
            self.posed.push(posed);
            self.movable.push(body.kind != BodyKind::Static);
        }

        // 3. Broad phase, pairs sorted by index, which is handle order. Pairs of bodies that can
        // never move are skipped.
        self.broad.pairs_of(&self.aabbs, &mut self.pairs);
        let movable = &self.movable;
        self.pairs
            .retain(|&(i, j)| movable[i as usize] || movable[j as usize]);

        // 4. Staged narrow phase.
        let mut filter = StagedFilter::new();
        self.contacts.clear();
        for &(i, j) in &self.pairs {
            let (i, j) = (i as usize, j as usize);
            if let Some(contact) = filter.contact(&self.posed[i], &self.posed[j]) {
                self.contacts.push(ContactPair {
                    a: self.handles[i],
                    b: self.handles[j],
                    contact,
                });
            }
        }
        self.stage_counts = filter.counts;

        // 5. Response.
        match self.config.response {
            Response::None => {}
            Response::Reflect => response::reflect(&mut self.bodies, &self.contacts),
        }

        // 6. Positions, events, counter. Speeds are held to the world's limits first, so that
        // no state a step produces can overflow in the next.
        for body in self.bodies.values_mut() {
            if body.kind == BodyKind::Static {
                continue;
            }
            body.linvel = limits::clamp_length(body.linvel, limits::MAX_SPEED);
            body.angvel = limits::clamp_length(body.angvel, limits::MAX_ANGULAR_SPEED);
            body.pose.translation.vector += body.linvel * dt;
            if body.angvel != geom::Vector3::zeros() {
                let turn = UnitQuaternion::from_scaled_axis(body.angvel * dt);
                body.pose.rotation =
                    UnitQuaternion::new_normalize((turn * body.pose.rotation).into_inner());
            }
        }
        self.update_events();
        self.step_count = self.step_count.saturating_add(1);
    }

    /// Started and stopped events from the sorted old and new touching sets.
    fn update_events(&mut self) {
        let now: Vec<(BodyHandle, BodyHandle)> = self.contacts.iter().map(|c| (c.a, c.b)).collect();
        let (mut i, mut j) = (0, 0);
        let before = &self.touching;
        while i < before.len() || j < now.len() {
            match (before.get(i), now.get(j)) {
                (Some(old), Some(new)) if old == new => {
                    i += 1;
                    j += 1;
                }
                (Some(old), Some(new)) if old < new => {
                    self.events.push(ContactEvent::Stopped(old.0, old.1));
                    i += 1;
                }
                (Some(old), None) => {
                    self.events.push(ContactEvent::Stopped(old.0, old.1));
                    i += 1;
                }
                (_, Some(new)) => {
                    self.events.push(ContactEvent::Started(new.0, new.1));
                    j += 1;
                }
                (None, None) => break,
            }
        }
        self.touching = now;
    }

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
