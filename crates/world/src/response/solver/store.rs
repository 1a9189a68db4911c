//! After the substeps: the persistent contact set written in pair order from the impulses each
//! group copied out of its batches, and which contacts touched.

use super::lanes::Lane;
use super::{Solver, contact, joint};
use crate::body::{BodyHandle, RigidBody};
use crate::contact::{CachedContact, CachedPoint, ContactPair};
use crate::step::sleep::is_sleeping_pair;
use arrayvec::ArrayVec;
use collide::FeatureId;
use geom::{Real, Vector3};
use slotmap::SlotMap;

impl Solver {
    /// The new persistent contact set, in pair order (pairs that carried no impulse have
    /// nothing to warm start and are left out; pairs that sleep keep theirs, moved from last
    /// step's set), and which contacts touched. Without `some_asleep` no pair sleeps.
    pub(super) fn store_impulses(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        cache: &mut Vec<CachedContact>,
        touching: &mut Vec<bool>,
        some_asleep: bool,
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
        let sleeping_pair = |a, b| match (bodies.get(a), bodies.get(b)) {
            (Some(a), Some(b)) => is_sleeping_pair(a, b),
            _ => false,
        };
        let mut previous = std::mem::take(&mut self.previous_cache);
        if some_asleep {
            previous.retain(|e| sleeping_pair(e.a, e.b));
        } else {
            crate::plain::forget_all(&mut previous);
        }
        if self.constraint_pairs.is_empty() {
            // Nothing solved (a world at rest, every body asleep): the new set is the sleeping
            // pairs' entries, as they lie, without copying them one by one.
            std::mem::swap(cache, &mut previous);
            self.previous_cache = previous;
            return;
        }
        let (pairs, results) = (&self.constraint_pairs, &self.results);
        for (&k, result) in pairs.iter().zip(results) {
            touching[k] |= result.pushed;
        }
        // The results lie in pair order, as the constraints do (`Impulses`).
        let mut asleep = previous.iter().peekable();
        for (&k, result) in pairs.iter().zip(results) {
            if !result.pushed {
                continue;
            }
            let entry = entry(&contacts[k], result);
            while let Some(old) = asleep.next_if(|e| (e.a, e.b) < (entry.a, entry.b)) {
                cache.push(old.clone());
            }
            cache.push(entry);
        }
        // Pairs that sleep keep their impulses for when they wake.
        cache.extend(asleep.cloned());
        crate::plain::forget_all(&mut previous);
        self.previous_cache = previous;
    }
}

/// Contacts per block when which touched is found on several threads.
#[cfg(feature = "parallel")]
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
