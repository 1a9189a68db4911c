//! The contact solver (`Response::Solver`): the "soft step" of Box2D v3 and Box3D (E. Catto,
//! "Solver2D", 2024), which rapier also runs. The stages, in the order they run:
//!
//! 1. prepare, once per step: for each contact pair with a dynamic body, anchors relative to
//!    the centres of mass, effective masses, the approach speed, and last step's impulses
//!    matched by feature id from the persistent contact set (warm starting);
//! 2. per substep (`SolverConfig::substeps`, `h = dt / substeps`):
//!    integrate velocities (gravity, gyroscopic term), warm start (apply the accumulated
//!    impulses: in the first substep constraint by constraint, in the later ones per body, as
//!    the velocity change the contacts made in the last substep; see [`integrate_velocities`]),
//!    solve (`SolverConfig::soft_iterations` soft iterations with position bias and speculative
//!    contacts; overlaps
//!    deeper than `contact::DEEP_OVERLAP` push out through push-out velocities instead),
//!    integrate positions (velocity plus push-out, which is then dropped), relax (one rigid
//!    iteration, with friction);
//! 3. restitution, once;
//! 4. store the impulses in the persistent contact set (copied out of each group's batches
//!    after its restitution, while they are cached); write poses and velocities back.
//!
//! Stages 1 to 3 run group by group (`group`): whole islands, each group's constraints made
//! and then solved through all its substeps before the next group's, so that its constraints
//! and bodies stay in the cache; on several threads, groups at once. (Where each constraint
//! goes, its colour, batch and lane, is worked out for all groups first.)
//!
//! Awake bodies are solved densely, group by group and in handle order within a group
//! (static and sleeping ones share one fixed state), and constraints in colour order
//! (`color`: the overflow in pair order, then each colour kind by kind), four at a time in SIMD
//! lanes (`batch`, `lanes`) or one at a time: the same world gives the same bits either way,
//! on any number of threads.

mod batch;
mod body;
mod color;
mod contact;
mod group;
mod joint;
mod lanes;
mod schedule;
mod soft;

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::config::WorldConfig;
use crate::contact::{CachedContact, CachedPoint, ContactPair};
use crate::joint::{Joint, JointHandle};
use crate::step::sleep::is_sleeping_pair;
use arrayvec::ArrayVec;
use body::SolverBody;
use collide::FeatureId;
use color::Coloring;
use contact::SolveSettings;
use geom::{Matrix3, Real, UnitQuaternion, Vector3};
use group::Grouping;
use joint::JointConstraint;
use lanes::Lane;
use schedule::Batches;
use slotmap::SlotMap;
use std::ops::Range;
use wide::{f32x4, f32x8};

/// The solver's buffers, refilled every step (never saved, never change a result).
#[derive(Debug, Clone)]
pub(crate) struct Solver {
    /// Per body (dense handle order), its slot in `states`: 0, a shared fixed state, for a
    /// static or sleeping body; its own slot for an awake dynamic or kinematic one. A world
    /// that mostly sleeps solves only its awake bodies.
    slots: Vec<u32>,
    /// Per body (dense handle order), whether it has a slot of its own.
    moves: Vec<bool>,
    /// The groups of islands solved one after the other, or at once on several threads
    /// (`group`): each group's slots, its fixed state first.
    groups: Vec<Range<u32>>,
    grouping: Grouping,
    /// Per body (dense handle order), what its constraints read of it besides its state.
    surfaces: Vec<contact::Surface>,
    /// Per slot, the solver's state of the body.
    states: Vec<SolverBody>,
    /// Per slot, its group.
    slot_groups: Vec<u32>,
    /// Per slot, what ordering and gathering the body's constraints read of it besides its
    /// state.
    traits: Vec<Traits>,
    /// Per slot, for integration: kind, rotation at the start of the step, body-frame inertia
    /// when the body feels a gyroscopic torque (`None` when its inertia is the same about every
    /// axis, as a cube's or a ball's: `w x I w` is then zero).
    kinds: Vec<BodyKind>,
    rotations: Vec<UnitQuaternion>,
    inertias: Vec<Option<Matrix3>>,
    /// Per slot, the body's velocities after this substep's velocity update, before any
    /// contact impulse (see [`integrate_velocities`]).
    uncontacted: Vec<[Vector3; 2]>,
    /// Per constraint in pair order, the index of its pair in the step's contacts; its place in
    /// solve order is `coloring.slots`.
    constraint_pairs: Vec<usize>,
    /// Per constraint in pair order, its lane of the batches (batch times width plus lane).
    lanes: Vec<u32>,
    /// The constraints' colours, which give their solve order.
    coloring: Coloring,
    /// Per lane of the batches (batch times width plus lane), its constraint's index in
    /// `constraint_pairs` and its entry in `previous_cache` (`NONE` for none).
    members: Vec<(u32, u32)>,
    /// Per lane of the batches, its constraint's points' feature ids (for the contact set).
    ids: Vec<ArrayVec<FeatureId, 4>>,
    /// Per lane of the batches, what the contact set keeps of its constraint after the step,
    /// copied out of the batches group by group while they are cached (the contact set is
    /// written in pair order, which would read the batches out of order).
    results: Vec<Impulses>,
    /// The constraints in batches of one (the scalar solve), four or eight: their layout, and
    /// the buffers the groups make them in.
    scalar: Batches<f32>,
    four: Batches<f32x4>,
    eight: Batches<f32x8>,
    /// How many constraints a step solves at a time: the same bits at every width.
    pub(crate) lanes_per_batch: SolverLanes,
    /// Last step's persistent contact set, read while this step's is written.
    previous_cache: Vec<CachedContact>,
    /// The step's joint constraints, group by group (in handle order within a group), each
    /// group's range of them, and per joint (handle order) its constraint (`NONE`: its bodies
    /// do not move this step).
    joints: Vec<JointConstraint>,
    joint_groups: Vec<Range<usize>>,
    joint_places: Vec<u32>,
    /// The contacts' and the joints' body pairs (dense indices) that link islands into groups.
    links: Vec<(u32, u32)>,
    /// Per slot of each group with joints, what they changed its velocities by.
    jointed: Vec<[Vector3; 2]>,
    /// Whether some body sleeps this step (else no pair sleeps, and no entry of the contact
    /// set is kept for one).
    some_asleep: bool,
}

/// How many contact constraints the solver solves at a time, each in a SIMD lane of its own
/// ([`World::set_solver_lanes`](crate::World::set_solver_lanes)). How a step is computed, not
/// what it computes: every width gives the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SolverLanes {
    /// One at a time (the scalar solve).
    One,
    /// Four (SSE on x86-64).
    Four,
    /// Eight (AVX where the build targets it; else two halves of four).
    Eight,
}

impl SolverLanes {
    /// The widest the build runs in one register: eight where it targets AVX (as the
    /// workspace's `.cargo/config.toml` asks, `-C target-cpu=native`, on a machine that has it),
    /// four elsewhere. The default.
    pub const WIDEST: SolverLanes = if cfg!(target_feature = "avx") {
        SolverLanes::Eight
    } else {
        SolverLanes::Four
    };
}

impl Default for Solver {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            moves: Vec::new(),
            groups: Vec::new(),
            grouping: Grouping::default(),
            surfaces: Vec::new(),
            states: Vec::new(),
            slot_groups: Vec::new(),
            traits: Vec::new(),
            kinds: Vec::new(),
            rotations: Vec::new(),
            inertias: Vec::new(),
            uncontacted: Vec::new(),
            constraint_pairs: Vec::new(),
            lanes: Vec::new(),
            coloring: Coloring::default(),
            members: Vec::new(),
            ids: Vec::new(),
            results: Vec::new(),
            scalar: Batches::default(),
            four: Batches::default(),
            eight: Batches::default(),
            lanes_per_batch: SolverLanes::WIDEST,
            previous_cache: Vec::new(),
            joints: Vec::new(),
            joint_groups: Vec::new(),
            joint_places: Vec::new(),
            links: Vec::new(),
            jointed: Vec::new(),
            some_asleep: false,
        }
    }
}

impl Solver {
    /// Runs the soft step over `dt`. `contacts` are this step's contacts (speculative ones
    /// included) with `indices`, the dense indices of their bodies; `cache` holds last step's
    /// impulses and is replaced by this step's. Sleeping bodies are held fixed; the impulses of
    /// pairs that sleep (untested this step) are kept as they were. Returns, through
    /// `touching`, whether each contact touched (overlapped, or was pushed apart by the
    /// solver). `joints` are solved beside the contacts (`joint_indices`: their bodies' dense
    /// indices, in handle order); their impulses and reactions are stored in them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        bodies: &mut SlotMap<BodyHandle, RigidBody>,
        joints: &mut SlotMap<JointHandle, Joint>,
        joint_indices: &[(u32, u32)],
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        cache: &mut Vec<CachedContact>,
        config: &WorldConfig,
        touching: &mut Vec<bool>,
    ) {
        std::mem::swap(cache, &mut self.previous_cache);
        self.moves.clear();
        self.moves.extend(
            bodies
                .values()
                .map(|body| !body.sleep.asleep && body.kind != BodyKind::Static),
        );
        if !self.moves.contains(&true) {
            // Nothing moves (a world at rest, asleep): no body to integrate, no constraint
            // (one needs a body that moves), so only the contact set is carried over.
            self.constraint_pairs.clear();
            self.some_asleep = bodies.values().any(|body| body.sleep.asleep);
            self.store_impulses(bodies, contacts, cache, touching);
            return;
        }
        self.gather(bodies, indices, joint_indices);
        let h = config.dt / config.solver.substeps.max(1) as Real;
        self.place_joints(bodies, joints, joint_indices, h);
        match self.lanes_per_batch {
            SolverLanes::One => {
                let mut batches = std::mem::take(&mut self.scalar);
                self.solve(&mut batches, contacts, indices, config);
                self.scalar = batches;
            }
            SolverLanes::Four => {
                let mut batches = std::mem::take(&mut self.four);
                self.solve(&mut batches, contacts, indices, config);
                self.four = batches;
            }
            SolverLanes::Eight => {
                let mut batches = std::mem::take(&mut self.eight);
                self.solve(&mut batches, contacts, indices, config);
                self.eight = batches;
            }
        }
        self.store_impulses(bodies, contacts, cache, touching);
        for (joint, &place) in joints.values_mut().zip(&self.joint_places) {
            if place != NONE {
                let constraint = &self.joints[place as usize];
                // Held within what a snapshot accepts, so that every world a step makes
                // restores (a hostile one's huge masses can push them past it).
                joint.impulses = joint::within_limits(&constraint.impulses);
                [joint.force, joint.torque] = constraint.reaction.map(|v| v.map(joint::bounded));
            }
        }
        for (body, &slot) in bodies.values_mut().zip(&self.slots) {
            if slot != 0 {
                body::finish(body, &self.states[slot as usize]);
            }
        }
    }

    /// Prepares the constraints into `batches`, then runs the substeps and restitution.
    fn solve<L: Lane>(
        &mut self,
        batches: &mut Batches<L>,
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        config: &WorldConfig,
    ) {
        let substeps = config.solver.substeps.max(1);
        let soft_iterations = config.solver.soft_iterations.max(1);
        let joint_iterations = config.solver.joint_iterations.max(1);
        let h = config.dt / substeps as Real;
        let settings = SolveSettings::new(&config.solver, h);
        let threshold = config.solver.restitution_threshold;
        let max_push_out_speed = config.solver.max_push_out_speed;
        schedule::on_worker(contacts.len(), || {
            self.place(batches, contacts, indices, &config.solver);
            self.uncontacted
                .resize(self.states.len(), [Vector3::zeros(); 2]);
            let bodies = Integration {
                kinds: &self.kinds,
                rotations: &self.rotations,
                inertias: &self.inertias,
            };
            let gather = Gather {
                contacts,
                indices,
                slots: &self.slots,
                surfaces: &self.surfaces,
                traits: &self.traits,
                pairs: &self.constraint_pairs,
                previous: &self.previous_cache,
                rolling_resistance: config.solver.rolling_resistance,
                speculative_margin: config.solver.speculative_margin,
            };
            let gravity = &config.gravity;
            // A group's constraints, then its substeps and restitution, on its own bodies and
            // batches. Each group's constraints are made just before it solves them, so that
            // its batches are still cached when its first pass reads them.
            let (plans, pool) = batches.groups_mut();
            let run = |group: Group<'_, L>| {
                let Group {
                    states,
                    uncontacted,
                    jointed,
                    plan,
                    slots,
                    members,
                    ids,
                    results,
                    joints,
                } = group;
                plan.with_batches(pool, |mut batches| {
                    gather.fill(
                        batches.batches_mut(),
                        ids,
                        members,
                        states,
                        slots.start as u32,
                    );
                    let bodies = bodies.slice(slots);
                    for substep in 0..substeps {
                        let first = substep == 0;
                        integrate_velocities(
                            states,
                            uncontacted,
                            jointed,
                            &bodies,
                            first,
                            gravity,
                            h,
                        );
                        joint::warm_start(joints, states, jointed);
                        if first {
                            batches.for_each(states, batch::warm_start);
                        }
                        for _ in 0..soft_iterations {
                            joint::solve(joints, states, jointed, true, joint_iterations);
                            batches
                                .for_each(states, |c, b| batch::solve::<_, true>(c, b, &settings));
                        }
                        integrate_positions(states, bodies.kinds, h, max_push_out_speed);
                        joint::refresh(joints, states);
                        joint::solve(joints, states, jointed, false, joint_iterations);
                        batches.for_each(states, |c, b| batch::solve::<_, false>(c, b, &settings));
                    }
                    batches.for_each(states, |c, b| batch::restitution(c, b, threshold));
                    for joint in joints.iter_mut() {
                        joint.reaction = joint.reaction_of(states, h);
                    }
                    let lanes = batches.batches().iter().zip(results.chunks_mut(L::WIDTH));
                    for (c, results) in lanes {
                        let impulses = c.impulses();
                        for (lane, result) in results.iter_mut().enumerate() {
                            *result = Impulses::of(&impulses, lane);
                        }
                    }
                });
            };
            self.results.resize(self.members.len(), Impulses::default());
            let slots = || self.groups.iter().map(|slots| slots.len());
            let states = split(&mut self.states, slots());
            let uncontacted = split(&mut self.uncontacted, slots());
            // What the joints changed, per slot of each group that has joints (an empty slice
            // for a group without).
            let jointed_lengths = || {
                self.groups
                    .iter()
                    .zip(&self.joint_groups)
                    .map(|(slots, joints)| if joints.is_empty() { 0 } else { slots.len() })
            };
            self.jointed.clear();
            self.jointed
                .resize(jointed_lengths().sum(), [Vector3::zeros(); 2]);
            let jointed = split(&mut self.jointed, jointed_lengths());
            // Each group's lanes of `members`, `ids` and `results`, as many as its batches
            // have.
            let (mut members, mut ids) = (&self.members[..], &mut self.ids[..]);
            let mut results = &mut self.results[..];
            let joint_counts = self.joint_groups.iter().map(|range| range.len());
            let joints = split(&mut self.joints, joint_counts);
            let parts = states.zip(uncontacted).zip(jointed).zip(plans).zip(joints);
            let groups = parts.zip(&self.groups).map(
                |(((((states, uncontacted), jointed), plan), joints), slots)| {
                    let lanes = plan.len() * L::WIDTH;
                    let (own_members, rest) = members.split_at(lanes);
                    members = rest;
                    let (own_ids, rest) = std::mem::take(&mut ids).split_at_mut(lanes);
                    ids = rest;
                    let (own, rest) = std::mem::take(&mut results).split_at_mut(lanes);
                    results = rest;
                    Group {
                        states,
                        uncontacted,
                        jointed,
                        plan,
                        slots: slots.start as usize..slots.end as usize,
                        members: own_members,
                        ids: own_ids,
                        results: own,
                        joints,
                    }
                },
            );
            #[cfg(feature = "parallel")]
            if self.groups.len() > 1 && rayon::current_num_threads() > 1 {
                use rayon::prelude::*;
                groups.collect::<Vec<_>>().into_par_iter().for_each(run);
                return;
            }
            groups.for_each(run);
        });
    }

    /// The solver state of every awake dynamic or kinematic body, group by group (`group`;
    /// the groups linked by `indices`, the dense indices of the step's contacts) and in handle
    /// order within a group, each group's after a fixed state of its own (the first group's in
    /// slot 0, the slot of every static and sleeping body); every body's surface. `moves`
    /// is already filled (by [`Solver::step`]).
    fn gather(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        indices: &[(u32, u32)],
        joint_indices: &[(u32, u32)],
    ) {
        let (moves, slots, groups) = (&self.moves, &mut self.slots, &mut self.groups);
        let links = if joint_indices.is_empty() {
            indices
        } else {
            // Joints link islands as contacts do.
            self.links.clear();
            self.links.extend_from_slice(indices);
            self.links.extend_from_slice(joint_indices);
            &self.links
        };
        self.grouping
            .group(moves, links, group::BUDGET, slots, groups);
        // Every slot but the groups' fixed states is written below.
        let count = self.groups.last().map_or(1, |slots| slots.end as usize);
        self.states.resize(count, SolverBody::FIXED);
        self.traits.resize(count, Traits::of(&SolverBody::FIXED));
        self.kinds.resize(count, BodyKind::Static);
        self.rotations.resize(count, UnitQuaternion::identity());
        self.inertias.resize(count, None);
        self.slot_groups.resize(count, 0);
        let fixed = std::iter::once(0).chain(self.groups.iter().map(|slots| slots.start as usize));
        for slot in fixed {
            self.states[slot] = SolverBody::FIXED;
            self.traits[slot] = Traits::of(&SolverBody::FIXED);
            self.kinds[slot] = BodyKind::Static;
        }
        for (group, slots) in self.groups.iter().enumerate() {
            self.slot_groups[slots.start as usize..slots.end as usize].fill(group as u32);
        }
        self.surfaces.clear();
        self.some_asleep = false;
        for (body, &slot) in bodies.values().zip(&self.slots) {
            self.surfaces.push(contact::Surface::of(body));
            self.some_asleep |= body.sleep.asleep;
            if slot == 0 {
                continue;
            }
            let slot = slot as usize;
            let state = SolverBody::of(body);
            self.traits[slot] = Traits::of(&state);
            self.states[slot] = state;
            self.kinds[slot] = body.kind;
            self.rotations[slot] = body.pose.rotation;
            let inertia = body.mass_properties.inertia;
            self.inertias[slot] = (!body::is_isotropic(&inertia)).then_some(inertia);
        }
    }

    /// One constraint per joint with a body that moves, in its group (handle order within
    /// it), and where each joint's is.
    fn place_joints(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        joints: &SlotMap<JointHandle, Joint>,
        joint_indices: &[(u32, u32)],
        h: Real,
    ) {
        self.joints.clear();
        self.joint_places.clear();
        self.joint_groups.clear();
        self.joint_groups.resize(self.groups.len(), 0..0);
        if joints.is_empty() {
            return;
        }
        // Per joint, its group (NONE: not solved), then each group's count.
        let mut counts = vec![0usize; self.groups.len()];
        for &(i, j) in joint_indices {
            let slots = (self.slots[i as usize], self.slots[j as usize]);
            if slots == (0, 0) {
                self.joint_places.push(NONE);
                continue;
            }
            let group = self.slot_groups[slots.0.max(slots.1) as usize];
            counts[group as usize] += 1;
            self.joint_places.push(group);
        }
        let mut start = 0;
        for (range, &count) in self.joint_groups.iter_mut().zip(&counts) {
            *range = start..start + count;
            start += count;
        }
        // The joints in solve order: group by group, handle order within each (a counting
        // sort of their indices), each made where it goes.
        let mut next: Vec<usize> = self.joint_groups.iter().map(|range| range.start).collect();
        let mut order = vec![NONE; start];
        for (k, place) in self.joint_places.iter_mut().enumerate() {
            if *place != NONE {
                let group = *place as usize;
                order[next[group]] = k as u32;
                *place = next[group] as u32;
                next[group] += 1;
            }
        }
        let list: Vec<&Joint> = joints.values().collect();
        for (group, range) in self.joint_groups.iter().enumerate() {
            let first = self.groups[group].start;
            for &index in &order[range.clone()] {
                let (joint, (i, j)) = (list[index as usize], joint_indices[index as usize]);
                let slots = [self.slots[i as usize], self.slots[j as usize]];
                let local = slots.map(|s| s.saturating_sub(first));
                let own = slots.map(|s| s != 0);
                let pair = joint.bodies.map(|h| &bodies[h]);
                let states = slots.map(|s| &self.states[s as usize]);
                self.joints
                    .push(JointConstraint::new(joint, pair, states, local, own, h));
            }
        }
    }

    /// Places one constraint per contact that involves an awake dynamic body in its lane of
    /// the batches, in the solve order of its colour, with its entry in last step's contact set
    /// (sorted by pair, as `contacts` are: one merge walk) to warm start from; each group's
    /// lanes are then filled just before it solves ([`Gather::fill`]).
    fn place<L: Lane>(
        &mut self,
        batches: &mut Batches<L>,
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        solver: &crate::config::SolverConfig,
    ) {
        self.constraint_pairs.clear();
        self.coloring.begin(self.states.len());
        for (k, (pair, &(i, j))) in contacts.iter().zip(indices).enumerate() {
            let surfaces = (&self.surfaces[i as usize], &self.surfaces[j as usize]);
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            let traits = (self.traits[i as usize], self.traits[j as usize]);
            let fixed = (traits.0.fixed, traits.1.fixed);
            if fixed.0 && fixed.1 {
                continue; // nothing moves (a pair that sleeps)
            }
            let isotropic = (traits.0.isotropic, traits.1.isotropic);
            let kind = contact::kind(pair, surfaces, isotropic, solver.rolling_resistance);
            // A body that moves is in the group of the other one that moves, if any.
            let group = self.slot_groups[i.max(j) as usize];
            self.coloring.add((i, j), fixed, kind, group);
            self.constraint_pairs.push(k);
        }
        self.coloring.finish(self.groups.len());
        batches.layout(&self.coloring);
        let lanes = batches.count() * L::WIDTH;
        self.members.clear();
        self.members.resize(lanes, (NONE, NONE));
        self.ids.resize_with(lanes, ArrayVec::new);
        let (pairs, previous, coloring) =
            (&self.constraint_pairs, &self.previous_cache, &self.coloring);
        let mut cached = previous.iter().enumerate().peekable();
        let placed = coloring
            .slots
            .iter()
            .zip(&coloring.colors)
            .zip(&coloring.groups);
        self.lanes.clear();
        for (n, (&k, ((&place, &color), &group))) in pairs.iter().zip(placed).enumerate() {
            let pair = &contacts[k];
            while cached
                .next_if(|(_, c)| (c.a, c.b) < (pair.a, pair.b))
                .is_some()
            {}
            let warm = cached.next_if(|(_, c)| (c.a, c.b) == (pair.a, pair.b));
            let member = (n as u32, warm.map_or(NONE, |(w, _)| w as u32));
            let (batch, lane) = batches.locate(group, color, place);
            self.members[batch * L::WIDTH + lane] = member;
            self.lanes.push((batch * L::WIDTH + lane) as u32);
        }
    }

    /// The new persistent contact set, in pair order (pairs that carried no impulse have
    /// nothing to warm start and are left out; pairs that sleep keep theirs, moved from last
    /// step's set), and which contacts touched.
    fn store_impulses(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        cache: &mut Vec<CachedContact>,
        touching: &mut Vec<bool>,
    ) {
        cache.clear();
        touching.clear();
        touching.extend(
            contacts
                .iter()
                .map(|pair| pair.contact.points.iter().any(|p| p.depth >= 0.0)),
        );
        let sleeping_pair = |a, b| match (bodies.get(a), bodies.get(b)) {
            (Some(a), Some(b)) => is_sleeping_pair(a, b),
            _ => false,
        };
        let mut previous = std::mem::take(&mut self.previous_cache);
        if self.some_asleep {
            previous.retain(|e| sleeping_pair(e.a, e.b));
        } else {
            previous.clear();
        }
        if self.constraint_pairs.is_empty() {
            // Nothing solved (a world at rest, every body asleep): the new set is the sleeping
            // pairs' entries, as they lie, without copying them one by one.
            std::mem::swap(cache, &mut previous);
            self.previous_cache = previous;
            return;
        }
        let mut sleeping = previous.drain(..).peekable();
        for (&k, &at) in self.constraint_pairs.iter().zip(&self.lanes) {
            let result = &self.results[at as usize];
            if !result.pushed {
                continue;
            }
            touching[k] = true;
            let pair = &contacts[k];
            // Held within what a snapshot accepts, so that every world a step makes restores
            // (a hostile one's extreme masses and speeds can push them past it).
            let bounded = joint::bounded;
            let entry = CachedContact {
                a: pair.a,
                b: pair.b,
                points: self.ids[at as usize]
                    .iter()
                    .zip(result.normal)
                    .map(|(&id, normal_impulse)| CachedPoint {
                        id,
                        normal_impulse: bounded(normal_impulse),
                    })
                    .collect(),
                friction_impulse: result.friction.map(bounded),
                twist_impulse: bounded(result.twist),
                tilt_impulse: result.tilt.map(bounded),
            };
            while let Some(old) = sleeping.next_if(|e| (e.a, e.b) < (entry.a, entry.b)) {
                cache.push(old);
            }
            cache.push(entry);
        }
        // Pairs that sleep keep their impulses for when they wake.
        cache.extend(sleeping);
        self.previous_cache = previous;
    }
}

/// Per slot, what the velocity update reads of a body besides its state.
struct Integration<'a> {
    kinds: &'a [BodyKind],
    rotations: &'a [UnitQuaternion],
    inertias: &'a [Option<Matrix3>],
}

impl Integration<'_> {
    /// The entries of `slots`.
    fn slice(&self, slots: Range<usize>) -> Integration<'_> {
        Integration {
            kinds: &self.kinds[slots.clone()],
            rotations: &self.rotations[slots.clone()],
            inertias: &self.inertias[slots],
        }
    }
}

/// What the constraints are made from, shared by the groups as each fills its batches.
struct Gather<'a> {
    contacts: &'a [ContactPair],
    /// Per contact, its bodies' dense indices.
    indices: &'a [(u32, u32)],
    slots: &'a [u32],
    surfaces: &'a [contact::Surface],
    traits: &'a [Traits],
    /// Per constraint in pair order, its contact.
    pairs: &'a [usize],
    /// Last step's contact set.
    previous: &'a [CachedContact],
    rolling_resistance: Real,
    speculative_margin: Real,
}

/// A lane of the batches without a constraint (`Solver::members`), or a constraint without an
/// entry in last step's contact set.
const NONE: u32 = u32::MAX;

impl Gather<'_> {
    /// Fills a group's `batches` (their lanes' constraints and warm-start entries `members`,
    /// their points' feature ids into `ids`) from its bodies' `states`, the group's slots from
    /// `first`: batch by batch (on several threads, in blocks of batches), each batch's rows
    /// prepared as soon as its lanes are filled, so that its lines are written together and
    /// read again while cached. (In pair order, as the contacts lie, the constraints of some
    /// twenty colours and kinds interleave, each writing one lane of every line of its batch,
    /// and prepare would then read the batches back from memory.) Each constraint from its own
    /// inputs: the same bits on any number of threads, and whichever group fills first.
    fn fill<L: Lane>(
        &self,
        batches: &mut [batch::Batch<L>],
        ids: &mut [ArrayVec<FeatureId, 4>],
        members: &[(u32, u32)],
        states: &[SolverBody],
        first: u32,
    ) {
        // A static or sleeping body (slot 0) is the group's fixed state, its first slot.
        let local = |slot: u32| slot.saturating_sub(first);
        // Gathers the `n`th constraint (in pair order), warm started from `previous[warm]`,
        // into `batch`'s `lane`.
        let gather = |batch: &mut batch::Batch<L>,
                      lane: usize,
                      ids: &mut ArrayVec<FeatureId, 4>,
                      (n, warm): (u32, u32)| {
            let k = self.pairs[n as usize];
            let (pair, (i, j)) = (&self.contacts[k], self.indices[k]);
            let surfaces = (&self.surfaces[i as usize], &self.surfaces[j as usize]);
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            let inputs = contact::Inputs {
                pair,
                slots: (local(i), local(j)),
                surfaces,
                states: (&states[local(i) as usize], &states[local(j) as usize]),
                isotropic: self.traits[i as usize].isotropic && self.traits[j as usize].isotropic,
                cached: self.previous.get(warm as usize),
            };
            contact::gather(batch, lane, Some(&inputs), self.rolling_resistance, ids);
        };
        let parallel = schedule::fills_in_parallel::<L>(batches.len());
        schedule::fill(batches, ids, members, parallel, |batch, ids, members| {
            for (lane, (ids, &member)) in ids.iter_mut().zip(members).enumerate() {
                if member.0 == NONE {
                    contact::gather(batch, lane, None, self.rolling_resistance, ids);
                } else {
                    gather(batch, lane, ids, member);
                }
            }
            contact::prepare(batch, states, self.speculative_margin);
        });
    }
}

/// One group's share of a solve: its bodies' states and velocities after the velocity update
/// (its slots of the solver's arrays, its fixed state first), and the plan of its batches
/// (made when it runs, in a buffer lent to it).
struct Group<'a, L: Lane> {
    states: &'a mut [SolverBody],
    uncontacted: &'a mut [[Vector3; 2]],
    /// Per slot, what the joints changed its velocities by since the last substep's velocity
    /// update (empty without joints; see [`integrate_velocities`]).
    jointed: &'a mut [[Vector3; 2]],
    plan: schedule::GroupPlan<'a, L>,
    slots: Range<usize>,
    /// Per lane of the group's batches, its constraint and warm-start entry
    /// (`Solver::members`), its points' feature ids, and what the contact set keeps of it.
    members: &'a [(u32, u32)],
    ids: &'a mut [ArrayVec<FeatureId, 4>],
    results: &'a mut [Impulses],
    /// The group's joints.
    joints: &'a mut [JointConstraint],
}

/// `items` cut into consecutive slices of `lengths`.
fn split<T>(
    mut items: &mut [T],
    lengths: impl Iterator<Item = usize>,
) -> impl Iterator<Item = &mut [T]> {
    lengths.map(move |length| {
        let (head, tail) = std::mem::take(&mut items).split_at_mut(length);
        items = tail;
        head
    })
}

/// What the contact set keeps of a constraint after a step: whether the solver pushed its
/// pair apart, and its accumulated impulses (`Batch::impulses`).
#[derive(Debug, Clone, Copy, Default)]
struct Impulses {
    pushed: bool,
    normal: [Real; 4],
    friction: Vector3,
    tilt: Vector3,
    twist: Real,
}

impl Impulses {
    /// The constraint in `lane` of a batch's impulses.
    #[inline]
    fn of<L: Lane>(c: &batch::BatchImpulses<L>, lane: usize) -> Self {
        Self {
            pushed: c.pushed.lane(lane) != 0.0,
            normal: c.normal.map(|x| x.lane(lane)),
            friction: c.friction.lane(lane),
            tilt: c.tilt.lane(lane),
            twist: c.twist.lane(lane),
        }
    }
}

/// What ordering and gathering a body's constraints read of it besides its state, kept per
/// slot (two bytes instead of a state and a matrix comparison per constraint).
#[derive(Debug, Clone, Copy)]
struct Traits {
    /// Zero inverse mass: no impulse moves it.
    fixed: bool,
    /// [`SolverBody::is_isotropic`].
    isotropic: bool,
}

impl Traits {
    fn of(state: &SolverBody) -> Self {
        Self {
            fixed: state.inverse_mass == 0.0,
            isotropic: state.is_isotropic(),
        }
    }
}

/// Per substep, the velocity update of every awake dynamic body (`body::integrate_velocity`),
/// and after the first substep the warm start: each body's velocities gain what the contact
/// impulses changed them by in the last substep (its velocities then less `uncontacted`, those
/// it had after that substep's update). Within a step the constraints' Jacobians are fixed, so
/// that change is `M^-1 J^T lambda` summed over the body's constraints at their accumulated
/// impulses, which is what warm starting applies (Box2D v3 applies it constraint by constraint,
/// a pass over every constraint per substep; here a body at a time, in the pass over the
/// bodies that runs anyway), up to rounding and whatever the speed limits took off in the
/// position update. The first substep's warm start, from last step's impulses, is the
/// constraints' own pass (`batch::warm_start`). Large pyramid (5,050 cubes, 4 substeps),
/// perf over 60 steps, three alternating runs: warm start from 1,723 to 586 samples of about
/// 22,000; its largest displacement after 200 steps 0.6734 m before, 0.6736 m after.
///
/// What the joints changed (`jointed`, per slot, empty in a group without joints) is left out
/// and zeroed: a joint's Jacobian turns with its bodies within a step (its anchors' arms), so
/// last substep's change would push along last substep's directions; the joints warm start
/// themselves every substep instead (`joint::warm_start`). Measured: a ragdoll's ball head
/// against the ground spun up to 400 rad/s and its neck came 95 mm apart when the joints rode
/// on this warm start; 0.2 mm with their own.
fn integrate_velocities(
    states: &mut [SolverBody],
    uncontacted: &mut [[Vector3; 2]],
    jointed: &mut [[Vector3; 2]],
    bodies: &Integration<'_>,
    first: bool,
    gravity: &Vector3,
    h: Real,
) {
    for (k, (state, uncontacted)) in states.iter_mut().zip(uncontacted).enumerate() {
        if bodies.kinds[k] == BodyKind::Dynamic {
            let warm = (!first).then(|| {
                let mut warm = [state.linvel - uncontacted[0], state.angvel - uncontacted[1]];
                if let Some(joints) = jointed.get_mut(k) {
                    warm[0] -= joints[0];
                    warm[1] -= joints[1];
                    *joints = [Vector3::zeros(); 2];
                }
                warm
            });
            let gyroscopic = bodies.inertias[k]
                .as_ref()
                .map(|inertia| (state.delta_rotation * bodies.rotations[k], inertia));
            body::integrate_velocity(state, gyroscopic, gravity, h);
            *uncontacted = [state.linvel, state.angvel];
            if let Some([linear, angular]) = warm {
                state.linvel += linear;
                state.angvel += angular;
            }
        }
    }
}

/// Per substep, the position update of every awake dynamic or kinematic body.
fn integrate_positions(
    states: &mut [SolverBody],
    kinds: &[BodyKind],
    h: Real,
    max_push_out_speed: Real,
) {
    for (state, &kind) in states.iter_mut().zip(kinds) {
        if kind != BodyKind::Static {
            body::integrate_position(state, h, max_push_out_speed);
        }
    }
}
