//! The world: its bodies, settings and state, the step as the list of its stages, and the fixed
//! time accumulator. Queries live in `query.rs`, snapshots in `snapshot.rs`, the state hash in
//! `hash.rs`.

use crate::body::{BodyDesc, BodyHandle, RigidBody};
use crate::config::{Response, WorldConfig};
use crate::contact::{
    CachedAxis, CachedContact, ContactEvent, ContactPair, HitEvent, KeptContact, SensorEvent,
    diff_events, diff_pairs,
};
use crate::error::WorldError;
use crate::joint::{Joint, JointEvent, JointHandle};
use crate::profile::{Lap, StepProfile};
use crate::response::reflect;
use crate::response::solver::{Solver, SolverLanes, side_by_side};
use crate::step::active::{MadeFor, Places};
use crate::step::sleep::{self, Islands};
use crate::step::{Active, Collision, integrate};
use collide::staged::StageCounts;
use geom::Real;
use slotmap::SlotMap;
use std::time::Instant;

/// Under twice this many contacts, the end of a step finds the contact events and drops the
/// contacts that did not touch one after the other rather than on two threads at once.
const SIDE_BY_SIDE: usize = 1024;

/// A joint's bodies, lower handle first.
fn ordered([a, b]: [BodyHandle; 2]) -> (BodyHandle, BodyHandle) {
    if a < b { (a, b) } else { (b, a) }
}

/// A world of rigid bodies advanced in fixed steps.
///
/// A step (see [`World::step`] for its stages) finds the contacts (broad phase, then seed
/// 004's staged narrow phase), lets the configured [`Response`] act on them, moves the bodies
/// and reports contact events. Nothing depends on hash order, threads or the clock: the same
/// world gives bit-identical states on the same binary, also after a snapshot round trip.
///
/// With `Response::Reflect`, discrete steps have a speed limit: a body is caught by another
/// only if it cannot cross the other's centre plane in one step, that is while
/// `|v| dt < r_a + r_b`, with `r_a` and `r_b` the two bodies' half-sizes along the motion (for
/// two unit cubes meeting face on, `1`); faster bodies can pass through. The solver's
/// speculative margin grows with speed and catches them. Speeds are capped at
/// [`crate::limits::MAX_SPEED`] and [`crate::limits::MAX_ANGULAR_SPEED`] (checked on input,
/// clamped each step).
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
    /// The persistent contact set: last step's impulses per pair and point, sorted by pair.
    /// Part of the state (the solver warm starts from it).
    pub(crate) contact_cache: Vec<CachedContact>,
    /// With contact reuse, the last step's contacts in their bodies' frames, sorted by pair
    /// (empty without). Part of the state (the next step reuses them).
    pub(crate) kept_contacts: Vec<KeptContact>,
    /// The separating axes the last step's narrow phase left for its pairs of polyhedra (hulls,
    /// or a hull and a box), sorted by pair: part of the state (the next step tries them
    /// first).
    pub(crate) axis_cache: Vec<CachedAxis>,
    /// The joints, with their accumulated impulses (state).
    pub(crate) joints: SlotMap<JointHandle, Joint>,
    /// Joints broken in the last step.
    pub(crate) joint_events: Vec<JointEvent>,
    /// Derived from `joints` whenever they change (never saved): the jointed body pairs, one
    /// entry per joint, sorted, which link islands for sleeping; those whose contacts are
    /// skipped (not `collide_connected`), sorted; per joint, its bodies' dense indices (a
    /// step's buffer).
    joined: Vec<(BodyHandle, BodyHandle)>,
    unconnected: Vec<(BodyHandle, BodyHandle)>,
    /// Per joint, twice: (a body, the other body, the joint), sorted: a body's joints without
    /// walking them all.
    attached: Vec<(BodyHandle, BodyHandle, JointHandle)>,
    /// The joints whose bodies are both in the step's dense set (see `Collision`), in handle
    /// order, and their bodies' dense indices (a step's buffers).
    joint_list: Vec<JointHandle>,
    joint_indices: Vec<(u32, u32)>,
    /// The dense set `joint_list` was last made for (forgotten when the joints change): the
    /// same set with the same joints gives the same list, kept rather than made again.
    joints_indexed_for: MadeFor,
    /// How many joints have a break force or torque (set when a joint is made, never after):
    /// without one, no step looks for broken joints.
    breakable: usize,
    /// Scratch of `index_joints`: the dense set's places by body slot.
    dense_places: Places,
    /// Which bodies a step visits (derived from the bodies, never saved).
    pub(crate) active: Active,
    /// The collision stage's buffers (never saved, never change a result).
    collision: Collision,
    /// The solver's buffers (never saved, never change a result).
    pub(crate) solver: Solver,
    /// Whether each of this step's contacts touched.
    touched: Vec<bool>,
    /// Islands' union-find and the sleeping bodies to wake (buffers).
    islands: Islands,
    wake: Vec<BodyHandle>,
    woken: Vec<BodyHandle>,
    /// Where the next step's touching pairs are gathered (a buffer, swapped with `touching`).
    touching_next: Vec<(BodyHandle, BodyHandle)>,
    /// The pairs (sensor, visitor) overlapping at the end of the last step, sorted: state, as
    /// `touching` is (the next step's sensor events depend on it).
    pub(crate) sensing: Vec<(BodyHandle, BodyHandle)>,
    /// Sensors' begin and end events of the last step (and of removals since).
    sensor_events: Vec<SensorEvent>,
    /// This step's overlapping sensor pairs as the narrow phase found them, and where the next
    /// `sensing` is gathered (buffers).
    sensed: Vec<(BodyHandle, BodyHandle)>,
    sensing_next: Vec<(BodyHandle, BodyHandle)>,
    /// Hit events of the last step, and this step's candidates: the pairs asking for hits
    /// that were not touching, with their approach before the response, in pair order.
    hit_events: Vec<HitEvent>,
    hit_candidates: Vec<HitEvent>,
    /// The bodies whose control state acts (`BodyControl::acts`), sorted, and those whose
    /// control may have changed since the last step (inserted, handed out by `body_mut`):
    /// derived, rebuilt on restore, so that a step reads no other body's control.
    controlled: Vec<BodyHandle>,
    control_pending: Vec<BodyHandle>,
    /// How long each stage of the last step took (a measurement, never state).
    profile: StepProfile,
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
            contact_cache: Vec::new(),
            kept_contacts: Vec::new(),
            axis_cache: Vec::new(),
            joints: SlotMap::with_key(),
            joint_events: Vec::new(),
            joined: Vec::new(),
            unconnected: Vec::new(),
            attached: Vec::new(),
            joint_list: Vec::new(),
            joint_indices: Vec::new(),
            joints_indexed_for: MadeFor::default(),
            breakable: 0,
            dense_places: Places::default(),
            active: Active::default(),
            collision: Collision::default(),
            solver: Solver::default(),
            touched: Vec::new(),
            islands: Islands::default(),
            wake: Vec::new(),
            woken: Vec::new(),
            touching_next: Vec::new(),
            sensing: Vec::new(),
            sensor_events: Vec::new(),
            sensed: Vec::new(),
            sensing_next: Vec::new(),
            hit_events: Vec::new(),
            hit_candidates: Vec::new(),
            controlled: Vec::new(),
            control_pending: Vec::new(),
            profile: StepProfile::default(),
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

    /// Replaces the settings, checked first (the error names the bad field, and then nothing
    /// changes). Every sleeping body wakes: new gravity or solver settings concern them too.
    pub fn set_config(&mut self, config: WorldConfig) -> Result<(), WorldError> {
        config.validate()?;
        self.config = config;
        for (handle, body) in &mut self.bodies {
            if body.sleep.asleep {
                body.sleep.wake();
                self.active.note(handle);
            }
        }
        Ok(())
    }

    /// Adds a body; every field of `desc` is checked first, and on error (which names the
    /// field, e.g. `desc.linvel.x`) the world is unchanged.
    pub fn insert(&mut self, desc: BodyDesc) -> Result<BodyHandle, WorldError> {
        let body = desc.build()?;
        let handle = self.bodies.insert(body);
        self.active.note(handle);
        self.control_pending.push(handle);
        Ok(handle)
    }

    /// Removes a body and returns it; `None` for an unknown or already removed handle. Pairs it
    /// touched get a `Stopped` event; sleeping bodies it touched wake, with their islands.
    pub fn remove(&mut self, handle: BodyHandle) -> Option<RigidBody> {
        if !self.bodies.contains_key(handle) {
            return None;
        }
        self.remove_joints_of(handle);
        let body = self.bodies.remove(handle)?;
        self.controlled.retain(|&h| h != handle);
        self.active.note(handle);
        self.wake.clear();
        for &(a, b) in &self.touching {
            if a == handle {
                self.wake.push(b);
            } else if b == handle {
                self.wake.push(a);
            }
        }
        let events = &mut self.events;
        self.touching.retain(|&(a, b)| {
            let gone = a == handle || b == handle;
            if gone {
                events.push(ContactEvent::Stopped(a, b));
            }
            !gone
        });
        let events = &mut self.sensor_events;
        self.sensing.retain(|&(sensor, visitor)| {
            let gone = sensor == handle || visitor == handle;
            if gone {
                events.push(SensorEvent::End { sensor, visitor });
            }
            !gone
        });
        self.contacts.retain(|c| c.a != handle && c.b != handle);
        self.contact_cache
            .retain(|c| c.a != handle && c.b != handle);
        self.kept_contacts
            .retain(|c| c.a != handle && c.b != handle);
        self.axis_cache.retain(|c| c.a != handle && c.b != handle);
        sleep::wake_islands(
            &mut self.bodies,
            &self.touching,
            &self.joined,
            &self.wake,
            &mut self.islands,
            &mut self.woken,
        );
        self.note_woken();
        Some(body)
    }

    /// Wakes a body and, if it slept, every body of its island (see [`crate::SleepConfig`]);
    /// the error names an unknown or removed handle.
    pub fn wake(&mut self, handle: BodyHandle) -> Result<(), WorldError> {
        if !self.bodies.contains_key(handle) {
            return Err(WorldError::UnknownBody);
        }
        sleep::wake_islands(
            &mut self.bodies,
            &self.touching,
            &self.joined,
            &[handle],
            &mut self.islands,
            &mut self.woken,
        );
        self.note_woken();
        if let Some(body) = self.bodies.get_mut(handle) {
            body.sleep.wake();
            self.active.note(handle);
        }
        Ok(())
    }

    /// Chooses how many contact constraints the solver solves at a time, each in a SIMD lane:
    /// [`SolverLanes::WIDEST`] by default (eight where the build targets AVX, as the workspace's
    /// `-C target-cpu=native` does on a machine that has it; four with SSE). Like the thread
    /// count, this is how the step is computed, not what it computes: every width gives the
    /// same bits (`tests/solver_determinism.rs`), so it is not part of the world's state
    /// (neither saved nor hashed; a restored world solves at the default width).
    pub fn set_solver_lanes(&mut self, lanes: SolverLanes) {
        self.solver.lanes_per_batch = lanes;
    }

    /// How many contact constraints the solver solves at a time (see
    /// [`World::set_solver_lanes`]).
    pub fn solver_lanes(&self) -> SolverLanes {
        self.solver.lanes_per_batch
    }

    /// Solves several constraints at a time ([`SolverLanes::WIDEST`], `true`, the default) or
    /// one at a time (`false`): [`World::set_solver_lanes`] in short.
    pub fn set_wide_solver(&mut self, wide: bool) {
        self.set_solver_lanes(if wide {
            SolverLanes::WIDEST
        } else {
            SolverLanes::One
        });
    }

    /// Whether the contact solver solves several constraints at a time (see
    /// [`World::set_solver_lanes`]).
    pub fn wide_solver(&self) -> bool {
        self.solver.lanes_per_batch != SolverLanes::One
    }

    /// How many bodies sleep.
    pub fn sleeping_count(&self) -> usize {
        self.bodies.values().filter(|b| b.sleep.asleep).count()
    }

    /// The body of `handle`, if it is still in the world.
    pub fn body(&self, handle: BodyHandle) -> Option<&RigidBody> {
        self.bodies.get(handle)
    }

    /// The body of `handle` for changes through its checked setters.
    pub fn body_mut(&mut self, handle: BodyHandle) -> Option<&mut RigidBody> {
        // Its setters may move or wake it, or change its control: the next step looks at it
        // again.
        self.active.note(handle);
        self.control_pending.push(handle);
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

    /// The contacts of the last step that touched, in handle order. With the solver a contact
    /// may include speculative points (negative depth: the gap) beside touching ones; pairs that
    /// stayed apart are left out, and so are pairs that sleep (they are not tested while they
    /// sleep; they still touch, and get no `Stopped` event). A body against a triangle mesh or
    /// heightfield may have several, one after the other: a manifold per group of normals (a
    /// ball in a crease between two slopes touches both).
    pub fn contacts(&self) -> &[ContactPair] {
        &self.contacts
    }

    /// Contacts started and stopped in the last step (and by removals since), in handle order.
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// Sensors' events of the last step (and of removals since), in the order of (sensor,
    /// visitor): a body that began to overlap a sensor, or stopped. Each visit gives one
    /// `Begin` and one `End`; a body asleep inside a sensor stays inside.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// Hit events of the last step, in pair order: contacts that began with their bodies
    /// approaching faster than a collider of the pair asked for
    /// ([`crate::BodyDesc::hit_events`]).
    pub fn hit_events(&self) -> &[HitEvent] {
        &self.hit_events
    }

    /// The pairs (sensor, visitor) overlapping at the end of the last step, sorted.
    pub fn sensor_overlaps(&self) -> &[(BodyHandle, BodyHandle)] {
        &self.sensing
    }

    /// What each stage of the narrow-phase filter did in the last step.
    pub fn stage_counts(&self) -> StageCounts {
        self.collision.stage_counts
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
    ///
    /// With the solver (`Response::Solver`), the stages are:
    /// 0. the bodies changed since the last step looked at again (`step/active.rs`): those
    ///    that move are *live*, static and sleeping ones rest in the broad phase's tree;
    /// 1. collision detection (`step/collide.rs`) over the live bodies and the resting ones
    ///    they meet: world volumes and AABBs grown for speculative contacts, the broad phase,
    ///    the staged narrow phase (contacts within the margin included, those through the
    ///    seams of flush static boxes dropped: `step/seams.rs`);
    /// 2. the soft step (`response/solver/`): constraints prepared and warm started
    ///    from the persistent contact set, then per substep gravity, warm start, a soft
    ///    iteration, positions, a relax iteration; restitution; the impulses stored;
    /// 3. sleep, joints past their break thresholds, contact events from the change in
    ///    touching pairs, and the step counter; bodies that came to rest go to the tree.
    ///
    /// With `Response::Reflect` (and `None`): gravity into velocities, collision detection
    /// without margin, the reflection (`response/reflect.rs`), velocities into poses
    /// (`step/integrate.rs`), events.
    pub fn step(&mut self) {
        let start = Instant::now();
        let mut clock = Lap::start();
        let mut profile = StepProfile::default();
        let dt = self.config.dt;
        self.events.clear();
        self.joint_events.clear();
        self.sensor_events.clear();
        self.hit_events.clear();
        match self.config.response {
            Response::Solver => {
                self.wake_disturbed();
                let margin = self.config.solver.speculative_margin;
                self.active.sync(&self.bodies, 0.5 * margin);
                self.aim_kinematic(dt);
                profile.update = clock.lap();
                let distance = self.config.solver.reuse_distance;
                if distance == 0.0 {
                    self.kept_contacts.clear();
                }
                let reuse = (distance > 0.0).then_some((distance, &mut self.kept_contacts));
                self.collision.run(
                    &self.bodies,
                    &self.active,
                    &mut self.contacts,
                    Some((margin, dt)),
                    &mut self.wake,
                    reuse,
                    &self.unconnected,
                    &self.attached,
                    Some(&mut self.axis_cache),
                );
                clock.lap();
                if sleep::wake_islands(
                    &mut self.bodies,
                    &self.touching,
                    &self.joined,
                    &self.wake,
                    &mut self.islands,
                    &mut self.woken,
                ) > 0
                {
                    self.collision.test_woken(
                        &self.bodies,
                        &self.active,
                        &self.woken,
                        &self.unconnected,
                        &mut self.contacts,
                    );
                    self.active.woke(&self.woken);
                }
                self.collision
                    .take_sensed(&mut self.contacts, &mut self.sensed);
                self.find_hit_candidates();
                self.solver.special_colliders = self.collision.has_special_colliders();
                self.index_joints();
                profile.narrow_phase = clock.lap();
                self.solver.step(
                    &mut self.bodies,
                    &self.collision.handles,
                    &mut self.joints,
                    &self.joint_list,
                    &self.joint_indices,
                    &self.contacts,
                    &self.collision.contact_indices,
                    &mut self.contact_cache,
                    &self.config,
                    &mut self.touched,
                    self.active.some_asleep() || self.collision.some_asleep(),
                );
                clock.lap();
                self.end_step_control();
                self.update_sleep();
                profile.sleep = clock.lap();
                self.break_joints();
            }
            Response::Reflect | Response::None => {
                // Nothing sleeps with these responses (changing the settings wakes every
                // body): the live bodies are every body that is not static.
                self.active.sync(&self.bodies, 0.0);
                self.aim_kinematic(dt);
                integrate::velocities(
                    &mut self.bodies,
                    self.active.live(),
                    self.config.gravity,
                    dt,
                );
                profile.update = clock.lap();
                self.collision.run(
                    &self.bodies,
                    &self.active,
                    &mut self.contacts,
                    None,
                    &mut self.wake,
                    None,
                    &self.unconnected,
                    &self.attached,
                    None,
                );
                clock.lap();
                self.collision
                    .take_sensed(&mut self.contacts, &mut self.sensed);
                self.find_hit_candidates();
                profile.narrow_phase = clock.lap();
                if self.config.response == Response::Reflect {
                    reflect::reflect(&mut self.bodies, &self.contacts);
                }
                integrate::positions(&mut self.bodies, self.active.live(), dt);
                self.end_step_control();
                self.contact_cache.clear();
                self.kept_contacts.clear();
                self.axis_cache.clear();
                for &handle in self.active.live() {
                    self.bodies[handle].sleep.disturbed = false;
                }
            }
        }
        let may_sleep = self.config.sleep.enabled && self.config.response == Response::Solver;
        self.active.settle(&self.bodies, may_sleep);
        self.collision.release_volumes();
        self.update_events_and_contacts();
        self.update_sensor_events();
        self.update_hit_events();
        self.step_count = self.step_count.saturating_add(1);
        profile.events = clock.lap();
        let collision = &self.collision.profile;
        profile.volumes = collision.volumes;
        profile.broad_phase = collision.broad_phase;
        profile.narrow_phase += collision.narrow_phase;
        let solver = match self.config.response {
            Response::Solver => self.solver.profile,
            Response::Reflect | Response::None => StepProfile::default(),
        };
        profile.solver_place = solver.solver_place;
        profile.solver_solve = solver.solver_solve;
        profile.solver_store = solver.solver_store;
        profile.total = start.elapsed();
        self.profile = profile;
    }

    /// How long each stage of the last step took, by the wall clock. A measurement for
    /// tuning and benchmarks: not state (never saved, hashed or read by a step).
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// The persistent contact set: the impulses the solver applied at each point in the last
    /// step, per touching pair, in pair order (what the next step warm starts from).
    pub fn contact_impulses(&self) -> &[CachedContact] {
        &self.contact_cache
    }

    /// With contact reuse (`SolverConfig::reuse_distance`), the kept contacts: each pair's
    /// contact as last computed, in its bodies' collider frames, in pair order (what the next
    /// step reuses while the pair moves less than the reuse distance). Empty without.
    pub fn kept_contacts(&self) -> &[KeptContact] {
        &self.kept_contacts
    }

    /// How many pairs the last step reused a kept contact for instead of testing them (0
    /// without contact reuse).
    pub fn reused_contact_count(&self) -> usize {
        self.collision.reused
    }

    /// Before the collision stage: the list of controlled bodies brought up to date, and
    /// kinematic bodies with a target pose given the velocities that carry them there in `dt`.
    fn aim_kinematic(&mut self, dt: Real) {
        if !self.control_pending.is_empty() {
            let bodies = &self.bodies;
            let acts = |h: &BodyHandle| bodies.get(*h).is_some_and(|b| b.control.acts());
            self.control_pending.sort_unstable();
            self.control_pending.dedup();
            self.controlled.retain(|h| acts(h));
            for &handle in &self.control_pending {
                if acts(&handle)
                    && let Err(at) = self.controlled.binary_search(&handle)
                {
                    self.controlled.insert(at, handle);
                }
            }
            self.control_pending.clear();
        }
        self.solver.controlled = !self.controlled.is_empty();
        for &handle in &self.controlled {
            let body = &mut self.bodies[handle];
            if body.control.target.is_some() {
                body.aim(dt);
            }
        }
    }

    /// Every body's control looked at again at the next step (a restored world).
    pub(crate) fn note_controls(&mut self) {
        self.control_pending.extend(self.bodies.keys());
    }

    /// After the solve: forces are spent, and bodies with a target are put on it (a sleeping
    /// body holds neither: giving one wakes it); those whose control no longer acts leave the
    /// list.
    fn end_step_control(&mut self) {
        let bodies = &mut self.bodies;
        self.controlled.retain(|&handle| {
            let body = &mut bodies[handle];
            body.end_step_control();
            body.control.acts()
        });
    }

    /// Before a step: with sleeping off, every body wakes; with it on, the sleeping bodies
    /// touching a disturbed one wake, with their islands.
    fn wake_disturbed(&mut self) {
        if !self.config.sleep.enabled {
            // Nothing sleeps: turning sleeping off woke every body, and a snapshot with
            // sleeping bodies and sleeping off is refused.
            debug_assert!(self.bodies.values().all(|b| !b.sleep.asleep));
            return;
        }
        if !self.active.has_pending() {
            // Nothing was disturbed since the last step (every disturbance is noted).
            return;
        }
        sleep::disturbed_neighbours(&self.bodies, &self.touching, &self.joined, &mut self.wake);
        sleep::wake_islands(
            &mut self.bodies,
            &self.touching,
            &self.joined,
            &self.wake,
            &mut self.islands,
            &mut self.woken,
        );
        self.note_woken();
    }

    /// The bodies `wake_islands` just woke outside the collision stage: the next sync looks at
    /// them again.
    fn note_woken(&mut self) {
        for &handle in &self.woken {
            self.active.note(handle);
        }
    }

    /// After the solve: a sleeping body that an awake one touched wakes (with its island);
    /// then rest timers, islands, and islands at rest fall asleep.
    fn update_sleep(&mut self) {
        let pairs = &self.collision.contact_indices;
        let touched = &self.touched;
        let handles = &self.collision.handles;
        self.wake.clear();
        // A sleeping body that an awake one touched, or is jointed to, wakes. Only a body of
        // the dense set can be woken so, and only one that slept when the set was made (none
        // falls asleep before `sleep::update` below): without one, no pair is looked at (each
        // is two bodies read at random).
        if self.collision.some_asleep() {
            let linked = touched_pairs(pairs, touched).chain(self.joint_indices.iter().copied());
            for (i, j) in linked {
                let (a, b) = (handles[i as usize], handles[j as usize]);
                let (Some(body_a), Some(body_b)) = (self.bodies.get(a), self.bodies.get(b)) else {
                    continue;
                };
                if body_a.sleep.asleep && sleep::is_awake_movable(body_b) {
                    self.wake.push(a);
                } else if body_b.sleep.asleep && sleep::is_awake_movable(body_a) {
                    self.wake.push(b);
                }
            }
        }
        // `touching` is still last step's: the links between the sleepers, which have not moved.
        if sleep::wake_islands(
            &mut self.bodies,
            &self.touching,
            &self.joined,
            &self.wake,
            &mut self.islands,
            &mut self.woken,
        ) > 0
        {
            // They wake for the next step, and count their rest time from this one's end with
            // the rest: the dense set takes them in.
            self.collision
                .include(&self.bodies, &self.active, &self.woken, false);
            self.index_joints();
            self.active.woke(&self.woken);
        }
        // Joints link islands as touching contacts do.
        let touching_pairs = touched_pairs(&self.collision.contact_indices, &self.touched)
            .chain(self.joint_indices.iter().copied());
        sleep::update(
            &mut self.bodies,
            &self.collision.handles,
            touching_pairs,
            &self.config.sleep,
            self.config.dt,
            &mut self.islands,
        );
    }

    /// Rebuilds what is derived from the joints (see `joined`) after a restore or a removal of
    /// several.
    pub(crate) fn joints_changed(&mut self) {
        self.joints_indexed_for.forget();
        self.solver.joints_edited();
        self.collision.forget_skipped();
        self.breakable = self.joints.values().filter(|j| j.breakable()).count();
        self.joined.clear();
        self.unconnected.clear();
        self.attached.clear();
        for (handle, joint) in &self.joints {
            let pair = ordered(joint.bodies);
            self.joined.push(pair);
            if !joint.collide_connected {
                self.unconnected.push(pair);
            }
            let [a, b] = joint.bodies;
            self.attached.extend([(a, b, handle), (b, a, handle)]);
        }
        self.joined.sort_unstable();
        self.unconnected.sort_unstable();
        self.attached.sort_unstable();
    }

    /// Adds a joint's pair to what is derived from the joints (sorted lists that keep one entry
    /// per joint, so that removing one of two joints on a pair keeps the other's).
    pub(crate) fn link(&mut self, handle: JointHandle, joint: &Joint) {
        self.joints_indexed_for.forget();
        self.solver.joints_edited();
        self.collision.forget_skipped();
        self.breakable += usize::from(joint.breakable());
        let [a, b] = joint.bodies;
        for entry in [(a, b, handle), (b, a, handle)] {
            let at = self.attached.partition_point(|e| *e <= entry);
            self.attached.insert(at, entry);
        }
        let pair = ordered(joint.bodies);
        let at = self.joined.partition_point(|p| *p <= pair);
        self.joined.insert(at, pair);
        if !joint.collide_connected {
            let at = self.unconnected.partition_point(|p| *p <= pair);
            self.unconnected.insert(at, pair);
        }
    }

    /// The joints of `body`, in handle order (from `attached`).
    pub(crate) fn joints_attached_to(&self, body: BodyHandle) -> Vec<JointHandle> {
        let start = self.attached.partition_point(|e| e.0 < body);
        let mut handles: Vec<JointHandle> = (self.attached[start..].iter())
            .take_while(|e| e.0 == body)
            .map(|e| e.2)
            .collect();
        handles.sort_unstable();
        handles
    }

    /// Takes a removed joint's pair out of what is derived from the joints.
    pub(crate) fn unlink(&mut self, handle: JointHandle, joint: &Joint) {
        self.joints_indexed_for.forget();
        self.solver.joints_edited();
        self.collision.forget_skipped();
        self.breakable -= usize::from(joint.breakable());
        let [a, b] = joint.bodies;
        for entry in [(a, b, handle), (b, a, handle)] {
            if let Ok(at) = self.attached.binary_search(&entry) {
                self.attached.remove(at);
            }
        }
        let pair = ordered(joint.bodies);
        if let Ok(at) = self.joined.binary_search(&pair) {
            self.joined.remove(at);
        }
        if !joint.collide_connected
            && let Ok(at) = self.unconnected.binary_search(&pair)
        {
            self.unconnected.remove(at);
        }
    }

    /// The joints whose bodies are both in the step's dense set (every joint with a live
    /// body: the dense set holds the resting bodies jointed to live ones), in handle order,
    /// and their bodies' dense indices.
    ///
    /// When the dense set is a small part of the world, its bodies' joints are found through
    /// `attached` (sleeping jointed bodies cost nothing); otherwise every joint is looked at.
    fn index_joints(&mut self) {
        let handles = &self.collision.handles;
        if self.joints_indexed_for.holds(handles) {
            return;
        }
        let index = |h: BodyHandle| handles.binary_search(&h).ok().map(|i| i as u32);
        self.joint_list.clear();
        self.joint_indices.clear();
        if self.joints.is_empty() {
            return;
        }
        if 4 * handles.len() >= self.bodies.len() && self.dense_places.fill(handles) {
            // Most bodies are in the set: a table of their places by slot, rather than two
            // searches a joint.
            let places = &self.dense_places;
            let index = |h: BodyHandle| places.index(handles, h);
            for (handle, joint) in &self.joints {
                if let (Some(i), Some(j)) = (index(joint.bodies[0]), index(joint.bodies[1])) {
                    self.joint_list.push(handle);
                    self.joint_indices.push((i, j));
                }
            }
            return;
        }
        for &body in handles {
            let start = self.attached.partition_point(|e| e.0 < body);
            let of_body = self.attached[start..].iter().take_while(|e| e.0 == body);
            // Each joint from its lower body, if both are in the set.
            self.joint_list.extend(
                of_body
                    .filter(|e| e.1 > body && index(e.1).is_some())
                    .map(|e| e.2),
            );
        }
        self.joint_list.sort_unstable();
        for &handle in &self.joint_list {
            let [a, b] = self.joints[handle].bodies;
            if let (Some(i), Some(j)) = (index(a), index(b)) {
                self.joint_indices.push((i, j));
            }
        }
        #[cfg(debug_assertions)]
        {
            let every: Vec<JointHandle> = (self.joints.iter())
                .filter(|(_, j)| index(j.bodies[0]).is_some() && index(j.bodies[1]).is_some())
                .map(|(h, _)| h)
                .collect();
            debug_assert_eq!(
                every, self.joint_list,
                "a joint of the dense set was missed"
            );
        }
    }

    /// After the solve: every joint whose force or torque exceeded its threshold is removed
    /// and reported, in handle order.
    ///
    /// Only the joints of this step's dense set are looked at: another's force has not changed
    /// since it was last solved (and looked at).
    fn break_joints(&mut self) {
        if self.breakable == 0 {
            return;
        }
        let broken = |j: &Joint| {
            j.break_force.is_some_and(|f| j.force.norm() > f)
                || j.break_torque.is_some_and(|t| j.torque.norm() > t)
        };
        let joints = &self.joints;
        let gone: Vec<JointHandle> = (self.joint_list.iter())
            .copied()
            .filter(|&h| joints.get(h).is_some_and(broken))
            .collect();
        for handle in gone {
            if let Some(joint) = self.remove_joint(handle) {
                self.joint_events.push(JointEvent::Broken {
                    joint: handle,
                    bodies: joint.bodies,
                });
            }
        }
    }

    /// The step's contacts that touched kept (with the solver: the others dropped), and the
    /// contact events from the touching pairs' change ([`touching_events`]). With the solver
    /// the touching pairs are read from the contacts' dense indices, which are compact, rather
    /// than from the contacts, and the contacts that did not touch are dropped beside it.
    fn update_events_and_contacts(&mut self) {
        let mut now = std::mem::take(&mut self.touching_next);
        let bodies = &self.bodies;
        let (before, events) = (&self.touching, &mut self.events);
        if self.config.response != Response::Solver {
            let pairs = self.contacts.iter().map(|c| (c.a, c.b));
            touching_events(bodies, before, pairs, &mut now, events);
        } else {
            let (touched, contacts) = (&self.touched, &mut self.contacts);
            let handles = &self.collision.handles;
            debug_assert!(
                (self.collision.contact_indices.iter())
                    .zip(contacts.iter())
                    .all(|(&(i, j), c)| (handles[i as usize], handles[j as usize]) == (c.a, c.b)),
                "a contact's dense indices name its bodies"
            );
            let pairs = touched_pairs(&self.collision.contact_indices, touched)
                .map(|(i, j)| (handles[i as usize], handles[j as usize]));
            side_by_side(
                contacts.len() >= 2 * SIDE_BY_SIDE,
                || touching_events(bodies, before, pairs, &mut now, events),
                || {
                    let mut touched = touched.iter();
                    contacts.retain(|_| touched.next().copied().unwrap_or(false));
                },
            );
        }
        self.touching_next = std::mem::replace(&mut self.touching, now);
    }

    /// Before the response: the contacts that may begin this step (their pair was not
    /// touching) between colliders that ask for hits, with the bodies' approach speed at the
    /// deepest point along the normal, in pair order.
    fn find_hit_candidates(&mut self) {
        self.hit_candidates.clear();
        if !self.collision.asks_for_hits() {
            return;
        }
        for pair in &self.contacts {
            let (a, b) = (&self.bodies[pair.a], &self.bodies[pair.b]);
            let threshold = match (a.collider.flags.hit_speed, b.collider.flags.hit_speed) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => continue,
            };
            let listed = self.hit_candidates.last().map(|h| (h.a, h.b));
            if self.touching.binary_search(&(pair.a, pair.b)).is_ok()
                || listed == Some((pair.a, pair.b))
            {
                continue;
            }
            let Some(deepest) =
                (pair.contact.points.iter()).max_by(|p, q| p.depth.total_cmp(&q.depth))
            else {
                continue;
            };
            let point = deepest.position;
            let velocity = |body: &RigidBody| {
                body.linvel + body.angvel.cross(&(point - body.center_of_mass()))
            };
            let speed = -(velocity(b) - velocity(a)).dot(&pair.contact.normal);
            if speed > threshold {
                self.hit_candidates.push(HitEvent {
                    a: pair.a,
                    b: pair.b,
                    point,
                    normal: pair.contact.normal,
                    speed,
                });
            }
        }
    }

    /// After the events: the candidates whose pair did begin touching.
    fn update_hit_events(&mut self) {
        if self.hit_candidates.is_empty() {
            return;
        }
        for event in &self.events {
            if let ContactEvent::Started(a, b) = *event
                && let Ok(i) = self
                    .hit_candidates
                    .binary_search_by(|h| (h.a, h.b).cmp(&(a, b)))
            {
                self.hit_events.push(self.hit_candidates[i]);
            }
        }
    }

    /// Begin and end events from the last step's sensor overlaps to this step's: those the
    /// narrow phase found, and last step's whose pair was not tested because it sleeps
    /// (a body asleep inside a sensor stays inside).
    fn update_sensor_events(&mut self) {
        if self.sensing.is_empty() && self.sensed.is_empty() {
            return;
        }
        let bodies = &self.bodies;
        let mut now = std::mem::take(&mut self.sensing_next);
        now.clear();
        let asleep =
            |&&(a, b): &&(BodyHandle, BodyHandle)| sleep::is_sleeping_pair(&bodies[a], &bodies[b]);
        let mut sleeping = self.sensing.iter().filter(asleep).copied().peekable();
        for &pair in &self.sensed {
            while let Some(old) = sleeping.next_if(|&old| old < pair) {
                now.push(old);
            }
            sleeping.next_if(|&old| old == pair);
            now.push(pair);
        }
        now.extend(sleeping);
        let events = &mut self.sensor_events;
        diff_pairs(&self.sensing, &now, |began, (sensor, visitor)| {
            events.push(if began {
                SensorEvent::Begin { sensor, visitor }
            } else {
                SensorEvent::End { sensor, visitor }
            });
        });
        self.sensing_next = std::mem::replace(&mut self.sensing, now);
    }
}

/// The dense indices of the step's contacts that touched (`indices` and `touched`, one each
/// per contact), in contact order.
fn touched_pairs<'a>(
    indices: &'a [(u32, u32)],
    touched: &'a [bool],
) -> impl Iterator<Item = (u32, u32)> + 'a {
    indices
        .iter()
        .zip(touched)
        .filter(|&(_, &t)| t)
        .map(|(&pair, _)| pair)
}

/// Started and stopped events (into `events`) from the last step's touching pairs (`before`)
/// to this step's (into `now`): the pairs of this step's touching contacts (`pairs`, in pair
/// order; a pair against a surface may come several times, once per manifold), and the pairs
/// of `before` that still sleep (untested, they touch as they did).
fn touching_events(
    bodies: &SlotMap<BodyHandle, RigidBody>,
    before: &[(BodyHandle, BodyHandle)],
    pairs: impl Iterator<Item = (BodyHandle, BodyHandle)>,
    now: &mut Vec<(BodyHandle, BodyHandle)>,
    events: &mut Vec<ContactEvent>,
) {
    let sleeping_pair = |a, b| match (bodies.get(a), bodies.get(b)) {
        (Some(a), Some(b)) => sleep::is_sleeping_pair(a, b),
        _ => false,
    };
    now.clear();
    // Last step's touching pairs, merged with this step's contacts: a pair in both is listed
    // once; one that was not tested this step still touches if it sleeps (looked up only
    // then: most of a pile's pairs touch again).
    let mut old = before.iter().copied().peekable();
    for pair in pairs {
        if now.last() == Some(&pair) {
            continue;
        }
        while let Some(untested) = old.next_if(|&old| old < pair) {
            if sleeping_pair(untested.0, untested.1) {
                now.push(untested);
            }
        }
        old.next_if(|&old| old == pair);
        now.push(pair);
    }
    now.extend(old.filter(|&(a, b)| sleeping_pair(a, b)));
    diff_events(before, now, events);
}
