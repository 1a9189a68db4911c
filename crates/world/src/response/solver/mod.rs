//! The constraint solver (`Response::Solver`): the "soft step" of Box2D v3 and Box3D (E.
//! Catto, "Solver2D", 2024), which rapier also runs, over two kinds of constraint, each a
//! module with the same stages: `contact/` (one per touching pair with a dynamic body, solved
//! in SIMD lanes, a batch at a time) and `joint/` (one per joint with a body that moves, solved
//! one at a time). The stages, in the order they run (this file's [`Solver::solve`]):
//!
//! 1. place, once per step (`place.rs`): each awake body's solver state, group by group;
//!    each constraint's place in the solve order;
//! 2. prepare, group by group just before it solves: contacts gathered into their lanes and
//!    their rows computed (`contact/fill.rs`, `contact/prepare.rs`), last step's impulses
//!    matched by feature id (warm starting); joints' frames, anchors and masses (made at
//!    placing, `joint/`);
//! 3. per substep (`SolverConfig::substeps`, `h = dt / substeps`): integrate velocities
//!    (gravity, gyroscopic term; the contacts' warm start in the later substeps, per body, see
//!    `body::integrate_velocities`); warm start (joints every substep, contacts in the first);
//!    `SolverConfig::soft_iterations` soft iterations (joints, `joint_iterations` times, then
//!    contacts; speculative contacts, deep overlaps through push-out velocities); integrate
//!    positions (velocity plus push-out, which is then dropped); relax (one rigid iteration:
//!    joints, each first refreshed to the new positions (its frames, anchors and masses, made
//!    in the first substep's warm start), then contacts with friction);
//! 4. restitution (contacts), once;
//! 5. store (`store.rs`): the contacts' impulses into the persistent contact set (copied out
//!    of each group's batches after its restitution, while they are cached), the joints'
//!    impulses and reactions into the joints; poses and velocities written back.
//!
//! Stages 2 to 4 run group by group (`group`): whole islands (linked by contacts and joints),
//! each group's constraints made and then solved through all its substeps before the next
//! group's, so that its constraints and bodies stay in the cache; on several threads, small
//! groups at once, and a large one (an island of more than a thread's share of the
//! constraints) by a crew of every thread, stage by stage (`substeps`, `crew`).
//!
//! Awake bodies are solved densely, group by group and in handle order within a group
//! (static and sleeping ones share one fixed state); a group's joints in handle order, then its
//! contacts in colour order (`color`: the overflow in pair order, then each colour kind by
//! kind), four or eight at a time in SIMD lanes (`contact/batch.rs`, `lanes`) or one at a time:
//! the same world gives the same bits either way, on any number of threads.

mod algebra;
mod body;
mod color;
mod contact;
mod crew;
mod group;
mod gyroscopic;
mod joint;
mod lanes;
mod place;
mod schedule;
pub(crate) use schedule::side_by_side;
mod shared;
mod soft;
mod store;
mod substeps;

use body::{Drive, Integration};
use contact::Gather;
use place::Traits;
use store::Impulses;
use substeps::{Group, Steps};

use crate::ahead::SlotAhead;
use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::config::WorldConfig;
use crate::contact::{CachedContact, ContactPair};
use crate::joint::{Joint, JointHandle};
use crate::profile::{Lap, StepProfile};
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
use shared::Shared;
use slotmap::SlotMap;
use std::ops::Range;
use std::time::Instant;
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
    /// Per body (dense handle order), what its contacts read of it besides its state; empty
    /// when the step has no contact.
    surfaces: Vec<contact::Surface>,
    /// Per body (as `surfaces`), what its joints' constraints are made from; empty when the
    /// step has no joint.
    joint_bodies: Vec<joint::JointBody>,
    /// Per body (as `surfaces`), its conveyor's velocity, world space; empty when no body of
    /// the step has one.
    conveyors: Vec<Vector3>,
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
    /// Per slot, what acts on the body besides gravity (`None`: gravity alone).
    drives: Vec<Option<Drive>>,
    /// Per slot of each group with contacts, the body's velocities after this substep's
    /// velocity update, before any contact impulse (see `body::integrate_velocities`).
    uncontacted: Vec<[Vector3; 2]>,
    /// Per constraint in pair order, the index of its pair in the step's contacts; its place in
    /// solve order is `coloring.slots`.
    constraint_pairs: Vec<usize>,
    /// The constraints' colours, which give their solve order.
    coloring: Coloring,
    /// Per lane of the batches (batch times width plus lane), its constraint's index in
    /// `constraint_pairs` and its entry in `previous_cache` (`NONE` for none).
    members: Vec<(u32, u32)>,
    /// Per lane of the batches, its constraint's points' feature ids (for the contact set).
    ids: Vec<ArrayVec<FeatureId, 4>>,
    /// Per constraint in pair order, what the contact set keeps of it after the step, copied
    /// out of the batches group by group while they are cached (`store::Impulses`).
    results: Vec<Impulses>,
    /// The constraints in batches of one (the scalar solve), four or eight: their layout, and
    /// the buffers the groups make them in.
    scalar: Batches<f32>,
    four: Batches<f32x4>,
    eight: Batches<f32x8>,
    /// How many constraints a step solves at a time: the same bits at every width.
    pub(crate) lanes_per_batch: SolverLanes,
    /// Whether any body of the world has a control state that acts (the world says so before
    /// each step): without one, no body's control is read.
    pub(crate) controlled: bool,
    /// The world's rolling resistance this step (a collider may have its own).
    rolling_resistance: Real,
    /// Whether a collider of the step's bodies is not plain (the world says so before each
    /// step): without one, no body's collider flags are read.
    pub(crate) special_colliders: bool,
    /// Last step's persistent contact set, read while this step's is written.
    previous_cache: Vec<CachedContact>,
    /// Per contact (pair order), its entry in `previous_cache` to warm start from (`NONE`:
    /// none; `place::warm_starts`).
    warm: Vec<u32>,
    /// The step's joint constraints, group by group (in handle order within a group), each
    /// group's range of them, and per joint (handle order) its constraint (`NONE`: its bodies
    /// do not move this step). A constraint is a plain ball and socket's `Ball` or another
    /// joint's `JointConstraint`, in its place of `balls` or `joints` (the other list's entry
    /// there is not read); a ball's results are in its place of `ball_results`.
    joints: Vec<JointConstraint>,
    balls: Vec<joint::Ball>,
    /// What each joint's `Ball` is made from of the joint, kept from step to step while the
    /// joints do not change (`joint::BallSources`; the world forgets them when one does).
    pub(crate) ball_sources: joint::BallSources,
    ball_results: Vec<joint::BallResult>,
    joint_groups: Vec<Range<usize>>,
    joint_places: Vec<u32>,
    /// Per joint in solve order, its index in the step's list and its group's first slot;
    /// the joints' bodies' dense indices these places were made for (`place::place_joints`
    /// keeps them while those and the grouping are unchanged), and whether this step's
    /// grouping is the last one's.
    joint_made: Vec<(u32, u32)>,
    placed_for: Vec<(u32, u32)>,
    grouped_as_before: bool,
    /// Per constraint of `joints`, what its levels read (`place::Link`).
    joint_links: Vec<place::Link>,
    /// Per group, its joints in levels (`place::level_joints`): their indices from the group's
    /// first in level order, and the levels' starts in that order (each group's with a last
    /// entry, its count), each group's range of `joint_levels`; a buffer.
    joint_order: Vec<u32>,
    joint_levels: Vec<u32>,
    joint_level_groups: Vec<Range<usize>>,
    /// What the levels were last made from (`place::level_joints` makes them again only when
    /// that changed).
    last_levels: place::LastLevels,
    level_scratch: Vec<u32>,
    /// Per slot, the colours its joints took (a buffer of `place::colour_joints`).
    colour_scratch: Vec<u64>,
    /// The contacts' and the joints' body pairs (dense indices) that link islands into groups.
    links: Vec<(u32, u32)>,
    /// Per slot of each group with joints and contacts, what the joints changed its velocities
    /// by.
    jointed: Vec<[Vector3; 2]>,
    /// The last step's times: placing, solving and storing (the rest of the profile zero).
    pub(crate) profile: StepProfile,
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

impl Solver {
    /// A joint changed outside a step (added, removed, its settings set, the world restored):
    /// what the solver keeps of the joints from step to step is made again by the next step.
    pub(crate) fn joints_edited(&mut self) {
        self.ball_sources.forget();
    }
}

impl Default for Solver {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            moves: Vec::new(),
            groups: Vec::new(),
            grouping: Grouping::default(),
            surfaces: Vec::new(),
            conveyors: Vec::new(),
            joint_bodies: Vec::new(),
            states: Vec::new(),
            slot_groups: Vec::new(),
            traits: Vec::new(),
            kinds: Vec::new(),
            rotations: Vec::new(),
            inertias: Vec::new(),
            drives: Vec::new(),
            uncontacted: Vec::new(),
            constraint_pairs: Vec::new(),
            coloring: Coloring::default(),
            members: Vec::new(),
            ids: Vec::new(),
            results: Vec::new(),
            scalar: Batches::default(),
            four: Batches::default(),
            eight: Batches::default(),
            lanes_per_batch: SolverLanes::WIDEST,
            controlled: false,
            rolling_resistance: 0.0,
            special_colliders: false,
            previous_cache: Vec::new(),
            warm: Vec::new(),
            joints: Vec::new(),
            balls: Vec::new(),
            ball_sources: joint::BallSources::default(),
            ball_results: Vec::new(),
            joint_groups: Vec::new(),
            joint_places: Vec::new(),
            joint_made: Vec::new(),
            placed_for: Vec::new(),
            grouped_as_before: false,
            joint_links: Vec::new(),
            joint_order: Vec::new(),
            joint_levels: Vec::new(),
            joint_level_groups: Vec::new(),
            last_levels: place::LastLevels::default(),
            level_scratch: Vec::new(),
            colour_scratch: Vec::new(),
            links: Vec::new(),
            jointed: Vec::new(),
            profile: StepProfile::default(),
        }
    }
}

impl Solver {
    /// Runs the soft step over `dt`. `contacts` are this step's contacts (speculative ones
    /// included) with `indices`, the dense indices of their bodies; `cache` holds last step's
    /// impulses and is replaced by this step's. Sleeping bodies are held fixed; the impulses of
    /// pairs that sleep (untested this step) are kept as they were. Returns, through
    /// `touching`, whether each contact touched (overlapped, or was pushed apart by the
    /// solver). `handles` is the step's dense set (the bodies of the contacts and joints, and
    /// every awake body), whose indices `indices` are. The joints of `joint_list` (in handle
    /// order) are solved beside the contacts (`joint_indices`: their bodies' dense indices);
    /// their impulses and reactions are stored in them. Without `some_asleep`, no body sleeps.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        bodies: &mut SlotMap<BodyHandle, RigidBody>,
        handles: &[BodyHandle],
        joints: &mut SlotMap<JointHandle, Joint>,
        joint_list: &[JointHandle],
        joint_indices: &[(u32, u32)],
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        cache: &mut Vec<CachedContact>,
        config: &WorldConfig,
        touching: &mut Vec<bool>,
        some_asleep: bool,
    ) {
        let mut clock = Lap::start();
        self.profile = StepProfile::default();
        std::mem::swap(cache, &mut self.previous_cache);
        self.moves.clear();
        let ahead = SlotAhead::new(bodies, handles);
        self.moves
            .extend(handles.iter().enumerate().map(|(k, &handle)| {
                ahead.at(k);
                let body = &bodies[handle];
                !body.sleep.asleep && body.kind != BodyKind::Static
            }));
        if !self.moves.contains(&true) {
            // Nothing moves (a world at rest, asleep): no body to integrate, no constraint
            // (one needs a body that moves), so only the contact set is carried over.
            self.constraint_pairs.clear();
            self.store_impulses(bodies, contacts, cache, touching, some_asleep);
            self.profile.solver_store = clock.lap();
            return;
        }
        self.rolling_resistance = config.solver.rolling_resistance;
        self.gather(bodies, handles, indices, joint_indices);
        let h = config.dt / config.solver.substeps.max(1) as Real;
        self.place_joints(joints, joint_list, joint_indices, h);
        let gathered = clock.lap();
        self.profile.solver_place = gathered;
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
        // `solve` placed its constraints first: counted as placing, not solving.
        let placed = self.profile.solver_place - gathered;
        self.profile.solver_solve = clock.lap().saturating_sub(placed);
        self.store(
            bodies,
            handles,
            joints,
            joint_list,
            contacts,
            cache,
            touching,
            some_asleep,
            h,
        );
        self.profile.solver_store = clock.lap();
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
        let h = config.dt / substeps as Real;
        schedule::on_worker(contacts.len(), || {
            let clock = Instant::now();
            self.place(batches, contacts, indices);
            // Counted with the placing before it (`step`), not with the solve.
            self.profile.solver_place += clock.elapsed();
            let steps = Steps {
                substeps,
                soft_iterations: config.solver.soft_iterations.max(1),
                joint_iterations: config.solver.joint_iterations.max(1),
                h,
                settings: SolveSettings::new(&config.solver, h),
                restitution_threshold: config.solver.restitution_threshold,
                max_push_out_speed: config.solver.max_push_out_speed,
                gravity: config.gravity,
                gather: Gather {
                    contacts,
                    indices,
                    slots: &self.slots,
                    surfaces: &self.surfaces,
                    conveyors: &self.conveyors,
                    traits: &self.traits,
                    pairs: &self.constraint_pairs,
                    previous: &self.previous_cache,
                    speculative_margin: config.solver.speculative_margin,
                },
                bodies: Integration {
                    kinds: &self.kinds,
                    rotations: &self.rotations,
                    inertias: &self.inertias,
                    drives: &self.drives,
                },
            };
            let (plans, pool) = batches.groups_mut();
            self.results
                .resize(self.constraint_pairs.len(), Impulses::default());
            // Each group writes its own constraints' places (a constraint is in one group).
            let results = Shared::new(&mut self.results);
            let slots = || self.groups.iter().map(|slots| slots.len());
            let states = split(&mut self.states, slots());
            // The velocities before the contacts, per slot of each group that has contacts (an
            // empty slice for a group without: it has no contacts' warm start to carry).
            debug_assert_eq!(self.coloring.starts.len(), self.groups.len());
            let contacted = || {
                (self.coloring.starts.iter()).map(|starts| starts[color::COLORS + 1] > starts[0])
            };
            let uncontacted_lengths = || {
                (slots().zip(contacted())).map(|(len, contacted)| if contacted { len } else { 0 })
            };
            self.uncontacted
                .resize(uncontacted_lengths().sum(), [Vector3::zeros(); 2]);
            let uncontacted = split(&mut self.uncontacted, uncontacted_lengths());
            // What the joints changed, per slot of each group that has joints and contacts (an
            // empty slice for a group without either).
            let jointed_lengths = || {
                (uncontacted_lengths().zip(&self.joint_groups))
                    .map(|(len, joints)| if joints.is_empty() { 0 } else { len })
            };
            self.jointed.clear();
            self.jointed
                .resize(jointed_lengths().sum(), [Vector3::zeros(); 2]);
            let jointed = split(&mut self.jointed, jointed_lengths());
            // Each group's lanes of `members` and `ids`, as many as its batches have.
            let (mut members, mut ids) = (&self.members[..], &mut self.ids[..]);
            let joint_counts = || self.joint_groups.iter().map(|range| range.len());
            let joints = split(&mut self.joints, joint_counts());
            self.ball_results
                .resize(self.balls.len(), joint::BallResult::default());
            let balls = (self.joint_groups.iter()).map(|range| &self.balls[range.clone()]);
            let ball_results = split(&mut self.ball_results, joint_counts());
            let mut joint_order = &self.joint_order[..];
            let levels =
                (self.joint_level_groups.iter()).map(|range| &self.joint_levels[range.clone()]);
            let parts = states.zip(uncontacted).zip(jointed).zip(plans);
            let joint_parts = joints.zip(balls).zip(ball_results);
            let groups = parts.zip(joint_parts).zip(&self.groups).zip(levels).map(
                |(
                    (
                        ((((states, uncontacted), jointed), plan), ((joints, balls), ball_results)),
                        slots,
                    ),
                    joint_levels,
                )| {
                    // The group's leveled joints: as many as its levels' last start says.
                    let leveled = joint_levels.last().map_or(0, |&n| n as usize);
                    let (order, rest) = joint_order.split_at(leveled);
                    joint_order = rest;
                    let lanes = plan.len() * L::WIDTH;
                    let (own_members, rest) = members.split_at(lanes);
                    members = rest;
                    let (own_ids, rest) = std::mem::take(&mut ids).split_at_mut(lanes);
                    ids = rest;
                    Group {
                        states,
                        uncontacted,
                        jointed,
                        plan,
                        slots: slots.start as usize..slots.end as usize,
                        members: own_members,
                        ids: own_ids,
                        results: &results,
                        joints,
                        balls,
                        ball_results,
                        joint_order: order,
                        joint_levels,
                    }
                },
            );
            #[cfg(feature = "parallel")]
            let threads = rayon::current_num_threads();
            #[cfg(not(feature = "parallel"))]
            let threads = 1;
            if threads == 1 {
                for group in groups {
                    steps.solve(group, pool, 1);
                }
                // (Without the parallel feature nothing follows.)
                #[cfg_attr(not(feature = "parallel"), allow(clippy::needless_return))]
                return;
            }
            // A group of more than a thread's share of the constraints (a large island) is
            // solved by a crew of every thread; the others one to a thread, several at once.
            #[cfg(feature = "parallel")]
            {
                // A group's constraints: its contacts and its joints.
                let count = |(starts, joints): (&[u32; color::COLORS + 2], &Range<usize>)| {
                    (starts[color::COLORS + 1] - starts[0]) as usize + joints.len()
                };
                let counts = || {
                    self.coloring
                        .starts
                        .iter()
                        .zip(&self.joint_groups)
                        .map(count)
                };
                let total: usize = counts().sum();
                let crewed = counts().map(|constraints| {
                    constraints >= 2 * schedule::BLOCK && constraints > total / threads
                });
                let (large, small): (Vec<_>, Vec<_>) =
                    groups.zip(crewed).partition(|&(_, crewed)| crewed);
                for (group, _) in large {
                    steps.solve(group, pool, threads);
                }
                use rayon::prelude::*;
                small
                    .into_par_iter()
                    .for_each(|(group, _)| steps.solve(group, pool, 1));
            }
        });
    }
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

/// A lane of the batches without a constraint (`Solver::members`), or a constraint without an
/// entry in last step's contact set.
pub(super) const NONE: u32 = u32::MAX;
