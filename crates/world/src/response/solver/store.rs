//! After the substeps: the persistent contact set written in pair order from the impulses each
//! group copied out of its batches, and which contacts touched.

use super::lanes::Lane;
use super::{NONE, Solver, body, contact, joint, schedule};
use crate::ahead::SlotAhead;
use crate::body::{BodyHandle, RigidBody};
use crate::contact::{CachedContact, CachedPoint, ContactPair};
use crate::joint::{Joint, JointHandle, JointImpulses};
use crate::step::sleep::is_sleeping_pair;
use arrayvec::ArrayVec;
use collide::FeatureId;
use geom::{Real, Vector3};
use slotmap::SlotMap;

impl Solver {
    /// Stage 5, after the substeps: the new persistent contact set and which contacts touched
    /// ([`contact_set`]); each solved joint's impulses and reaction (`joint_list`, in handle
    /// order) into it; each awake body's pose and velocities from its state (`handles`, the
    /// step's dense set). The three are written side by side on rayon's threads: each reads what
    /// the solve left and writes its own.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        bodies: &mut SlotMap<BodyHandle, RigidBody>,
        handles: &[BodyHandle],
        joints: &mut SlotMap<JointHandle, Joint>,
        joint_list: &[JointHandle],
        contacts: &[ContactPair],
        cache: &mut Vec<CachedContact>,
        touching: &mut Vec<bool>,
        some_asleep: bool,
        h: Real,
    ) {
        let mut previous = self.sleeping_entries(bodies, some_asleep);
        let (pairs, results) = (&self.constraint_pairs, &self.results);
        let contact_set = || contact_set(pairs, results, contacts, &mut previous, cache, touching);
        let sources = &mut self.ball_sources;
        let joint_walk = SlotAhead::new(joints, joint_list);
        let body_walk = SlotAhead::new(bodies, handles);
        let joints_back = || {
            let places = joint_list.iter().zip(&self.joint_places).enumerate();
            for (k, (&handle, &place)) in places {
                joint_walk.at(k);
                if place == NONE {
                    continue;
                }
                let place = place as usize;
                let joint = &mut joints[handle];
                // Held within what a snapshot accepts, so that every world a step makes
                // restores (a hostile one's huge masses can push them past it).
                let reaction = if self.joint_links[place].is_ball() {
                    // Its anchor impulse; its others cleared if it let go, else untouched
                    // (within the limits already: every joint's impulses are, from its
                    // insertion, a restore's checks or the last store).
                    let result = &self.ball_results[place];
                    if result.let_go {
                        joint.impulses = JointImpulses::default();
                    }
                    joint.impulses.linear = result.impulse.map(joint::bounded);
                    sources.set_impulse(k, joint.impulses.linear);
                    let force = (Vector3::zeros() + result.impulse) / h;
                    [force, Vector3::zeros() / h]
                } else {
                    let constraint = &self.joints[place];
                    joint.impulses = joint::within_limits(&constraint.impulses);
                    constraint.reaction
                };
                [joint.force, joint.torque] = reaction.map(|v| v.map(joint::bounded));
            }
        };
        let bodies_back = || {
            for (k, (&handle, &slot)) in handles.iter().zip(&self.slots).enumerate() {
                body_walk.at(k);
                if slot != 0 {
                    body::finish(&mut bodies[handle], &self.states[slot as usize]);
                }
            }
        };
        let worth = pairs.len() + joint_list.len() + handles.len() >= 2 * TOUCH_BLOCK;
        let back = || schedule::side_by_side(worth, joints_back, bodies_back);
        schedule::side_by_side(worth, contact_set, back);
        crate::plain::forget_all(&mut previous);
        self.previous_cache = previous;
    }

    /// The contact set and which contacts touched when nothing moves: last step's set, less
    /// the pairs that do not sleep (see [`Solver::store`]).
    pub(super) fn store_impulses(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        cache: &mut Vec<CachedContact>,
        touching: &mut Vec<bool>,
        some_asleep: bool,
    ) {
        let mut previous = self.sleeping_entries(bodies, some_asleep);
        contact_set(&[], &[], contacts, &mut previous, cache, touching);
        self.previous_cache = previous;
    }

    /// Last step's contact set, kept for the pairs that sleep (both bodies asleep, or one
    /// asleep and the other fixed): they keep their impulses for when they wake. Without
    /// `some_asleep`, none.
    fn sleeping_entries(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        some_asleep: bool,
    ) -> Vec<CachedContact> {
        let mut previous = std::mem::take(&mut self.previous_cache);
        if some_asleep {
            previous.retain(|e| match (bodies.get(e.a), bodies.get(e.b)) {
                (Some(a), Some(b)) => is_sleeping_pair(a, b),
                _ => false,
            });
        } else {
            crate::plain::forget_all(&mut previous);
        }
        previous
    }
}

/// The new persistent contact set `cache`, in pair order, from the constraints (`pairs`, the
/// index of each one's contact in `contacts`, and their `results`, in the same order): the
/// pairs that carried no impulse have nothing to warm start and are left out; the entries of
/// pairs that sleep, `asleep`, are merged in. Which contacts touched, into `touching`: those
/// that overlap, and those the solver pushed apart. Without constraints (nothing moved), the
/// set is `asleep`, swapped in as it lies.
fn contact_set(
    pairs: &[usize],
    results: &[Impulses],
    contacts: &[ContactPair],
    asleep: &mut Vec<CachedContact>,
    cache: &mut Vec<CachedContact>,
    touching: &mut Vec<bool>,
) {
    cache.clear();
    touching.clear();
    let touches = |pair: &ContactPair| pair.contact.points.iter().any(|p| p.depth >= 0.0);
    #[cfg(feature = "parallel")]
    if contacts.len() >= 2 * TOUCH_BLOCK && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        let contacts = contacts.par_iter().with_min_len(TOUCH_BLOCK);
        touching.par_extend(contacts.map(touches));
    } else {
        touching.extend(contacts.iter().map(touches));
    }
    #[cfg(not(feature = "parallel"))]
    touching.extend(contacts.iter().map(touches));
    if pairs.is_empty() {
        std::mem::swap(cache, asleep);
        return;
    }
    for (&k, result) in pairs.iter().zip(results) {
        touching[k] |= result.pushed;
    }
    // The results lie in pair order, as the constraints do (`Impulses`).
    let mut old = asleep.iter().peekable();
    for (&k, result) in pairs.iter().zip(results) {
        if !result.pushed {
            continue;
        }
        let entry = entry(&contacts[k], result);
        while let Some(old) = old.next_if(|e| (e.a, e.b) < (entry.a, entry.b)) {
            cache.push(old.clone());
        }
        cache.push(entry);
    }
    cache.extend(old.cloned());
}

/// Contacts per block when which touched is found on several threads; below twice as many
/// constraints and bodies, the store runs on one thread.
const TOUCH_BLOCK: usize = 1024;

/// The contact set's entry for `pair`, from its constraint's `result`.
fn entry(pair: &ContactPair, result: &Impulses) -> CachedContact {
    // Held within what a snapshot accepts, so that every world a step makes restores (a
    // hostile one's extreme masses and speeds can push them past it).
    let bounded = joint::bounded;
    CachedContact {
        a: pair.a,
        b: pair.b,
        points: (result.ids.iter().zip(result.normal))
            .map(|(&id, normal_impulse)| CachedPoint {
                id,
                normal_impulse: bounded(normal_impulse),
            })
            .collect(),
        friction_impulse: result.friction.map(bounded),
        twist_impulse: bounded(result.twist),
        tilt_impulse: result.tilt.map(bounded),
    }
}

/// What the contact set keeps of a constraint after a step: whether the solver pushed its
/// pair apart, its points' feature ids and its accumulated impulses (`Batch::impulses`).
/// Written by the group that solved it, in the constraint's place in pair order, so that the
/// contact set, written in pair order, reads them in order (read from the lanes of the
/// batches, at random, the large pyramid's loads missed the cache: a third of this stage).
#[derive(Debug, Clone, Default)]
pub(super) struct Impulses {
    pushed: bool,
    ids: ArrayVec<FeatureId, 4>,
    normal: [Real; 4],
    friction: Vector3,
    tilt: Vector3,
    twist: Real,
}

impl Impulses {
    /// The constraint in `lane` of a batch's impulses, its points' feature ids `ids`.
    #[inline]
    pub(super) fn of<L: Lane>(
        c: &contact::BatchImpulses<L>,
        lane: usize,
        ids: &ArrayVec<FeatureId, 4>,
    ) -> Self {
        Self {
            pushed: c.pushed.lane(lane) != 0.0,
            ids: ids.clone(),
            normal: c.normal.map(|x| x.lane(lane)),
            friction: c.friction.lane(lane),
            tilt: c.tilt.lane(lane),
            twist: c.twist.lane(lane),
        }
    }
}
