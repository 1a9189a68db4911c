//! One group's solve as a crew's program (`crew`): its contacts prepared, then per substep the
//! velocity update, warm start, soft iterations, position update and relax iteration, then
//! restitution and the impulses copied out. Every stage is cut into blocks (bodies by slot,
//! contacts by colour); the joints, solved one at a time, are a stage of one block. The
//! threads reach the group's arrays through `shared`, by its rules.

#![allow(unsafe_code)]

use super::body::{Integration, SolverBody, integrate_positions, integrate_velocities};
use super::contact::{self, Gather, SolveSettings};
use super::crew::{self, Member};
use super::joint::{self, JointConstraint};
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
    /// (`Solver::members`), its points' feature ids, and what the contact set keeps of it.
    pub(super) members: &'a [(u32, u32)],
    pub(super) ids: &'a mut [ArrayVec<FeatureId, 4>],
    pub(super) results: &'a mut [Impulses],
    /// The group's joints.
    pub(super) joints: &'a mut [JointConstraint],
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
        } = group;
        let first = slots.start as u32;
        let bodies = self.bodies.slice(slots);
        let (states, uncontacted) = (Shared::new(states), Shared::new(uncontacted));
        let (jointed, joints) = (Shared::new(jointed), Shared::new(joints));
        let (ids, results) = (Shared::new(ids), Shared::new(results));
        let has_joints = joints.len() > 0;
        let settings = &self.settings;
        let width = L::WIDTH;
        plan.with_batches(pool, |batches| {
            // Every block of slots: a velocity or position update.
            let each_body = |member: &mut Member<'_>, update: &(dyn Fn(Range<usize>) + Sync)| {
                let len = states.len();
                member.stage(len.div_ceil(BODY_BLOCK), |b| {
                    update(b * BODY_BLOCK..(b * BODY_BLOCK + BODY_BLOCK).min(len));
                });
            };
            // A pass over the joints, one at a time, alone.
            let joint_pass = |member: &mut Member<'_>, soft: bool| {
                if has_joints {
                    member.alone(|| {
                        // SAFETY: a stage of one block.
                        let (joints, states, jointed) =
                            unsafe { (joints.all(), states.all(), jointed.all()) };
                        joint::solve(joints, states, jointed, soft, self.joint_iterations);
                    });
                }
            };
            let program = |member: &mut Member<'_>| {
                batches.each(member, |k, batch| {
                    let lanes = k * width..(k + 1) * width;
                    // SAFETY: the batch's own lanes; nobody writes the states in this stage.
                    let (ids, states) = unsafe { (ids.slice(lanes.clone()), states.as_slice()) };
                    self.gather.fill(batch, ids, &members[lanes], states, first);
                });
                for substep in 0..self.substeps {
                    let first_substep = substep == 0;
                    each_body(member, &|range| {
                        // SAFETY: the block's own slots.
                        let (states_block, uncontacted_block, jointed_block) = unsafe {
                            let jointed = if has_joints {
                                jointed.slice(range.clone())
                            } else {
                                &mut []
                            };
                            (
                                states.slice(range.clone()),
                                uncontacted.slice(range.clone()),
                                jointed,
                            )
                        };
                        integrate_velocities(
                            states_block,
                            uncontacted_block,
                            jointed_block,
                            &bodies.slice(range),
                            first_substep,
                            &self.gravity,
                            self.h,
                        );
                    });
                    if has_joints {
                        member.alone(|| {
                            // SAFETY: a stage of one block.
                            let (joints, states, jointed) =
                                unsafe { (joints.all(), states.all(), jointed.all()) };
                            joint::warm_start(joints, states, jointed);
                        });
                    }
                    if first_substep {
                        batches.for_each(member, &states, |c, b| contact::warm_start(c, b));
                    }
                    for _ in 0..self.soft_iterations {
                        joint_pass(member, true);
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
                    if has_joints {
                        member.alone(|| {
                            // SAFETY: a stage of one block, which writes no state.
                            let (joints, states) = unsafe { (joints.all(), states.as_slice()) };
                            joint::refresh(joints, states);
                        });
                    }
                    joint_pass(member, false);
                    batches.for_each(member, &states, |c, b| {
                        contact::solve::<_, _, false>(c, b, settings)
                    });
                }
                let threshold = self.restitution_threshold;
                batches.for_each(member, &states, |c, b| {
                    contact::restitution(c, b, threshold)
                });
                if has_joints {
                    member.alone(|| {
                        // SAFETY: a stage of one block.
                        let (joints, states) = unsafe { (joints.all(), states.all()) };
                        for joint in joints.iter_mut() {
                            joint.reaction = joint.reaction_of(states, self.h);
                        }
                    });
                }
                batches.each(member, |k, batch| {
                    let impulses = batch.impulses();
                    // SAFETY: the batch's own lanes.
                    let results = unsafe { results.slice(k * width..(k + 1) * width) };
                    for (lane, result) in results.iter_mut().enumerate() {
                        *result = Impulses::of(&impulses, lane);
                    }
                });
            };
            let blocks =
                (states.len().div_ceil(BODY_BLOCK)).max(batches.len().div_ceil(BLOCK / width));
            crew::run(threads, blocks, program);
        });
    }
}
