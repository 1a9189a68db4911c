//! One group's solve as a crew's program (`crew`): its contacts prepared, then per substep the
//! velocity update, warm start, soft iterations, position update and relax iteration, then
//! restitution and the impulses copied out. Every stage is cut into blocks (bodies by slot,
//! contacts by colour); the joints, solved one at a time, are a stage of one block. The
//! threads reach the group's arrays through `shared`, by its rules.

#![allow(unsafe_code)]

use super::NONE;
use super::body::{Integration, SolverBody, integrate_positions, integrate_velocities};
use super::contact::{self, Gather, SolveSettings};
use super::crew::{self, Member};
use super::joint::{self, Ball, BallBatch, BallResult, JointBodies, JointConstraint, Owned, Pass};
use super::lanes::Lane;
use super::schedule::{BLOCK, GroupPlan, Pool};
use super::shared::Shared;
use super::store::Impulses;
use arrayvec::ArrayVec;
use collide::FeatureId;
use geom::{Real, Vector3};
use std::ops::Range;

/// Bodies per block of the velocity and position updates.
const BODY_BLOCK: usize = 256;

/// Joints per block of a level or of the results.
const JOINT_BLOCK: usize = 16;

/// How many joints a group's levels must hold on average for a crew to solve them level by
/// level: four blocks.
const WIDE_LEVEL: usize = 4 * JOINT_BLOCK;

/// The group's states and `jointed` shared by a crew, for a level's joints (which move
/// disjoint bodies: `shared`'s rules).
struct Crewed<'a, 'b> {
    states: &'a Shared<'b, SolverBody>,
    jointed: &'a Shared<'b, [Vector3; 2]>,
}

impl JointBodies for Crewed<'_, '_> {
    #[inline(always)]
    fn state(&self, slot: usize) -> &SolverBody {
        // SAFETY: a body of this joint, which no other joint of its level moves.
        unsafe { self.states.get(slot) }
    }

    #[inline(always)]
    fn set_changed(&mut self, slot: usize, linvel: Vector3, angvel: Vector3, change: [Vector3; 2]) {
        // SAFETY: a body this joint moves, which no other joint of its level reads.
        let state = unsafe { self.states.get_mut(slot) };
        // SAFETY: as the state (a group without contacts has no `jointed`).
        let jointed = (!self.jointed.is_empty()).then(|| unsafe { self.jointed.get_mut(slot) });
        joint::set_changed(state, jointed, [linvel, angvel], change);
    }

    #[inline(always)]
    fn keeps_changes(&self) -> bool {
        !self.jointed.is_empty()
    }
}

/// One group's share of a solve: its bodies' states and velocities after the velocity update
/// (its slots of the solver's arrays, its fixed state first), and the plan of its batches
/// (made when it runs, in a buffer lent to it).
pub(super) struct Group<'a> {
    pub(super) states: &'a mut [SolverBody],
    pub(super) uncontacted: &'a mut [[Vector3; 2]],
    /// Per slot, what the joints changed its velocities by since the last substep's velocity
    /// update (empty without joints; see [`integrate_velocities`]).
    pub(super) jointed: &'a mut [[Vector3; 2]],
    pub(super) plan: GroupPlan,
    pub(super) slots: Range<usize>,
    /// Per lane of the group's batches, its constraint and warm-start entry
    /// (`Solver::members`) and its points' feature ids; per constraint of the step in pair
    /// order, what the contact set keeps of it (this group writes its own constraints').
    pub(super) members: &'a [(u32, u32)],
    pub(super) ids: &'a mut [ArrayVec<FeatureId, 4>],
    pub(super) results: &'a Shared<'a, Impulses>,
    /// The group's joints, and their levels (`place::level_joints`): their indices in level
    /// order, and where each level starts in it (then the count).
    pub(super) joints: &'a mut [JointConstraint],
    /// The group's plain ball and sockets in their places of its constraints (`Solver::balls`),
    /// and their results.
    pub(super) balls: &'a [Ball],
    pub(super) ball_results: &'a mut [BallResult],
    pub(super) joint_order: &'a [u32],
    pub(super) joint_levels: &'a [u32],
}

/// What every group's solve reads: the settings of the step and what the bodies and
/// constraints are made from.
pub(super) struct Steps<'a> {
    pub(super) substeps: u32,
    pub(super) soft_iterations: u32,
    pub(super) joint_iterations: u32,
    pub(super) h: Real,
    pub(super) settings: SolveSettings,
    pub(super) restitution_threshold: Real,
    pub(super) max_push_out_speed: Real,
    pub(super) gravity: Vector3,
    pub(super) gather: Gather<'a>,
    pub(super) bodies: Integration<'a>,
}

impl Steps<'_> {
    /// Solves `group` on `threads` threads (the caller's among them), its batches made in a
    /// buffer of `pool`.
    pub(super) fn solve<L: Lane>(&self, group: Group<'_>, pool: &Pool<L>, threads: usize) {
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
            balls: ball_joints,
            ball_results,
            joint_order,
            joint_levels,
        } = group;
        let first = slots.start as u32;
        let bodies = self.bodies.slice(slots);
        let (states, uncontacted) = (Shared::new(states), Shared::new(uncontacted));
        let jointed = Shared::new(jointed);
        let ids = Shared::new(ids);
        let has_joints = !joints.is_empty();
        let settings = &self.settings;
        let width = L::WIDTH;
        plan.with_batches(pool, |batches, balls| {
            // The plain ball and sockets of each level in batches of their own.
            let layout = balls.lay_out(joint_levels, joint_order);
            let (ball_starts, ball_members, loose) = (layout.starts, layout.members, layout.loose);
            let balls = Shared::new(layout.batches);
            let joints = Shared::new(joints);
            let ball_results = Shared::new(ball_results);
            // Every block of slots: a velocity or position update.
            let each_body = |member: &mut Member<'_>, update: &(dyn Fn(Range<usize>) + Sync)| {
                let len = states.len();
                member.stage(len.div_ceil(BODY_BLOCK), |b| {
                    update(b * BODY_BLOCK..(b * BODY_BLOCK + BODY_BLOCK).min(len));
                });
            };
            // A pass over the joints, level by level (the same bits as one at a time in handle
            // order: `place::level_joints`), each level's batches of balls, then its other
            // joints one at a time; alone, or on a crew, each level's batches and joints in
            // blocks, where the levels are wide enough that the wait after each costs little
            // beside it. (Box3D's joint grid, 19,800 joints in 395 levels: the levels on two
            // threads took its solve from 1,193 to 1,501 ms before the batches.)
            let level_count = joint_levels.len() / 2;
            let levels_pay =
                threads > 1 && level_count > 0 && joints.len() >= WIDE_LEVEL * level_count;
            // Per level: its batches of balls, and its other joints, solved one at a time.
            let level = |l: usize| {
                let batches = ball_starts[l] as usize..ball_starts[l + 1] as usize;
                let others = joint_levels[2 * l + 1] as usize..joint_levels[2 * l + 2] as usize;
                (batches, others)
            };
            // Joints per block of a level or of the results, as batches.
            let ball_block = (JOINT_BLOCK / width).max(1);
            // With `refresh`, each joint's anchors and masses are refreshed just before its
            // first pass (the first substep's warm start, each relax after the position update):
            // a refresh reads only its own bodies' positions, which no pass moves, so it gives
            // what a refresh of every joint before the pass gives, while its bodies' lines are
            // in the cache for the pass.
            let joint_pass =
                |member: &mut Member<'_>, pass: Pass, iterations: u32, refresh: bool| {
                    if !has_joints {
                        return;
                    }
                    let (soft, warm) = (pass == Pass::Soft, pass == Pass::Warm);
                    if !levels_pay {
                        member.alone(|| {
                            // SAFETY: a stage of one block.
                            let (joints, states, jointed, balls) =
                                unsafe { (joints.all(), states.all(), jointed.all(), balls.all()) };
                            let mut bodies = Owned { states, jointed };
                            for iteration in 0..iterations {
                                let refresh = refresh && iteration == 0;
                                for l in 0..level_count {
                                    let (batches, others) = level(l);
                                    BallBatch::pass_each(
                                        &mut balls[batches],
                                        &mut bodies,
                                        refresh,
                                        soft,
                                        warm,
                                    );
                                    for &k in &joint_order[others] {
                                        let joint = &mut joints[k as usize];
                                        if refresh {
                                            joint.refresh_from(&bodies);
                                        }
                                        joint.pass(&mut bodies, pass);
                                    }
                                }
                            }
                        });
                        return;
                    }
                    for iteration in 0..iterations {
                        let refresh = refresh && iteration == 0;
                        for l in 0..level_count {
                            let (batches, others) = level(l);
                            let batch_blocks = batches.len().div_ceil(ball_block);
                            let blocks = batch_blocks + others.len().div_ceil(JOINT_BLOCK);
                            member.stage(blocks, |b| {
                                let mut bodies = Crewed {
                                    states: &states,
                                    jointed: &jointed,
                                };
                                if b < batch_blocks {
                                    let start = batches.start + b * ball_block;
                                    let range = start..(start + ball_block).min(batches.end);
                                    // SAFETY: each batch of the level is in one block, and the
                                    // level's joints move disjoint bodies (so the next batch
                                    // a pass asks ahead for, of this block, has bodies that
                                    // are this thread's to read).
                                    let block = unsafe { balls.slice(range) };
                                    BallBatch::pass_each(block, &mut bodies, refresh, soft, warm);
                                    return;
                                }
                                let start = others.start + (b - batch_blocks) * JOINT_BLOCK;
                                for &k in &joint_order[start..(start + JOINT_BLOCK).min(others.end)]
                                {
                                    // SAFETY: each joint of the level is in one block.
                                    let joint = unsafe { joints.get_mut(k as usize) };
                                    if refresh {
                                        joint.refresh_from(&bodies);
                                    }
                                    joint.pass(&mut bodies, pass);
                                }
                            });
                        }
                    }
                };
            let ball_blocks = balls.len().div_ceil(ball_block);
            // The joints that are not plain balls, for the results (each_joint).
            let count = loose.len();
            // Each batch of balls, then each other joint (by index), in blocks (of batches,
            // then of joints) shared by the crew: `ball` and `other` are given the states,
            // which every block reads and none writes, and only their block's batches and
            // joints.
            let each_joint =
                |member: &mut Member<'_>,
                 ball: &(dyn Fn(&mut BallBatch<L>, &[SolverBody]) + Sync),
                 other: &(dyn Fn(usize, &[SolverBody]) + Sync)| {
                    member.stage(ball_blocks + count.div_ceil(JOINT_BLOCK), |b| {
                        // SAFETY: nobody writes the states.
                        let states = unsafe { states.as_slice() };
                        if b < ball_blocks {
                            let range =
                                b * ball_block..(b * ball_block + ball_block).min(balls.len());
                            // SAFETY: the block's own batches.
                            for batch in unsafe { balls.slice(range) } {
                                ball(batch, states);
                            }
                            return;
                        }
                        let b = b - ball_blocks;
                        for &k in
                            &loose[b * JOINT_BLOCK..(b * JOINT_BLOCK + JOINT_BLOCK).min(count)]
                        {
                            other(k as usize, states);
                        }
                    });
                };
            let program = |member: &mut Member<'_>| {
                batches.each(member, |k, batch| {
                    let lanes = k * width..(k + 1) * width;
                    // SAFETY: the batch's own lanes; nobody writes the states in this stage.
                    let (ids, states) = unsafe { (ids.slice(lanes.clone()), states.as_slice()) };
                    if let Some(next) = members.get(lanes.end..lanes.end + width) {
                        self.gather.prefetch(next, states, first);
                    }
                    self.gather.fill(batch, ids, &members[lanes], states, first);
                });
                member.stage(ball_blocks, |b| {
                    let range = b * ball_block..(b * ball_block + ball_block).min(balls.len());
                    // SAFETY: the block's own batches; nobody writes the states in this stage.
                    let (batches, states) =
                        unsafe { (balls.slice(range.clone()), states.as_slice()) };
                    let of = |k: usize| {
                        ball_members
                            .get(k)
                            .map_or(&[][..], |m| &joint_order[m.start as usize..m.end as usize])
                    };
                    for (batch, k) in batches.iter_mut().zip(range) {
                        // Asked for ahead: the batch after next's joints, the next one's bodies.
                        joint::prefetch_balls(ball_joints, of(k + 2), of(k + 1), states);
                        batch.fill(ball_joints, of(k), states, self.h);
                    }
                });
                for substep in 0..self.substeps {
                    let first_substep = substep == 0;
                    each_body(member, &|range| {
                        // SAFETY: the block's own slots.
                        // (Empty `uncontacted` and `jointed` stay empty: a group without
                        // contacts, or without joints.)
                        let part = |len: usize| if len == 0 { 0..0 } else { range.clone() };
                        let (states_block, uncontacted_block, jointed_block) = unsafe {
                            (
                                states.slice(range.clone()),
                                uncontacted.slice(part(uncontacted.len())),
                                jointed.slice(part(jointed.len())),
                            )
                        };
                        integrate_velocities::<L>(
                            states_block,
                            uncontacted_block,
                            jointed_block,
                            &bodies.slice(range),
                            first_substep,
                            &self.gravity,
                            self.h,
                        );
                    });
                    // The joints' anchors and masses made in the first substep's warm start and
                    // refreshed in each relax, after the position update.
                    joint_pass(member, Pass::Warm, 1, first_substep);
                    if first_substep {
                        batches.for_each(member, &states, |c, b| contact::warm_start(c, b));
                    }
                    for _ in 0..self.soft_iterations {
                        joint_pass(member, Pass::Soft, self.joint_iterations, false);
                        batches.for_each(member, &states, |c, b| {
                            contact::solve::<_, _, true>(c, b, settings)
                        });
                    }
                    each_body(member, &|range| {
                        // SAFETY: the block's own slots.
                        let states_block = unsafe { states.slice(range.clone()) };
                        let bodies = bodies.slice(range);
                        integrate_positions(states_block, &bodies, self.h, self.max_push_out_speed);
                    });
                    joint_pass(member, Pass::Relax, self.joint_iterations, true);
                    batches.for_each(member, &states, |c, b| {
                        contact::solve::<_, _, false>(c, b, settings)
                    });
                }
                let threshold = self.restitution_threshold;
                batches.for_each(member, &states, |c, b| {
                    contact::restitution(c, b, threshold)
                });
                if has_joints {
                    // Each joint's impulses from its batch (every plain ball and socket is in
                    // one) and its reaction.
                    let h = self.h;
                    let ball = |batch: &mut BallBatch<L>, states: &[SolverBody]| {
                        for (k, result) in batch.results(states) {
                            // SAFETY: a joint is in one batch, and its batch in one block.
                            *unsafe { ball_results.get_mut(k) } = result;
                        }
                    };
                    each_joint(member, &ball, &|k, states| {
                        // SAFETY: its block's own joint.
                        let joint = unsafe { joints.get_mut(k) };
                        joint.reaction = joint.reaction_of(states, h);
                    });
                }
                batches.each(member, |k, batch| {
                    let impulses = batch.impulses();
                    let lanes = k * width..(k + 1) * width;
                    // The places the next batch writes lie in pair order, all over the list:
                    // asked for now, they have arrived when it writes them.
                    for &(n, _) in members.get(lanes.end..lanes.end + width).unwrap_or(&[]) {
                        results.prefetch(n as usize);
                    }
                    for (lane, &(n, _)) in members[lanes.clone()].iter().enumerate() {
                        if n != NONE {
                            // SAFETY: the batch's own lanes, and its constraints' places, which
                            // no other lane (of this group or another) has.
                            let (ids, result) = unsafe {
                                (ids.get(lanes.start + lane), results.get_mut(n as usize))
                            };
                            *result = Impulses::of(&impulses, lane, ids);
                        }
                    }
                });
            };
            // The largest stage: the bodies', the batches' or the joints' results.
            let blocks = (states.len().div_ceil(BODY_BLOCK))
                .max(batches.len().div_ceil(BLOCK / width))
                .max(ball_blocks + joints.len().div_ceil(JOINT_BLOCK));
            crew::run(threads, blocks, program);
        });
    }
}
