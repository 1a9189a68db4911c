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
        if some_asleep {
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
        // The results lie in pair order, as the constraints do (`Impulses`).
        for (&k, result) in self.constraint_pairs.iter().zip(&self.results) {
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
                points: result
                    .ids
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
