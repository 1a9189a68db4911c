//! Filling a group's batches: each contact constraint gathered into its lane and each batch's
//! rows prepared as soon as its lanes are filled.

use super::batch::Batch;
use super::prepare::{self, Inputs, Surface};
use crate::ahead::prefetch_lines;
use crate::contact::{CachedContact, ContactPair};
use crate::response::solver::body::SolverBody;
use crate::response::solver::lanes::Lane;
use crate::response::solver::{NONE, Traits};
use arrayvec::ArrayVec;
use collide::FeatureId;
use geom::{Real, Vector3};

/// What the constraints are made from, shared by the groups as each fills its batches.
pub(in crate::response::solver) struct Gather<'a> {
    pub(in crate::response::solver) contacts: &'a [ContactPair],
    /// Per contact, its bodies' dense indices.
    pub(in crate::response::solver) indices: &'a [(u32, u32)],
    pub(in crate::response::solver) slots: &'a [u32],
    pub(in crate::response::solver) surfaces: &'a [Surface],
    /// Per body (as `surfaces`), its conveyor's velocity; empty when no body has one.
    pub(in crate::response::solver) conveyors: &'a [Vector3],
    pub(in crate::response::solver) traits: &'a [Traits],
    /// Per constraint in pair order, its contact.
    pub(in crate::response::solver) pairs: &'a [usize],
    /// Last step's contact set.
    pub(in crate::response::solver) previous: &'a [CachedContact],
    pub(in crate::response::solver) speculative_margin: Real,
}

impl Gather<'_> {
    /// Asks for what the constraints `members` read (see [`Gather::fill`]) to be brought into
    /// the cache: it lies all over memory (pair order, last step's order, slot order), and
    /// asked for a batch ahead, it has arrived when the batch is filled.
    pub(in crate::response::solver) fn prefetch(
        &self,
        members: &[(u32, u32)],
        states: &[SolverBody],
        first: u32,
    ) {
        for &(n, warm) in members {
            if n == NONE {
                continue;
            }
            let k = self.pairs[n as usize];
            let (i, j) = self.indices[k];
            prefetch_lines(&self.contacts[k]);
            if let Some(cached) = self.previous.get(warm as usize) {
                prefetch_lines(cached);
            }
            for i in [i, j] {
                let slot = self.slots[i as usize].saturating_sub(first);
                if let Some(state) = states.get(slot as usize) {
                    prefetch_lines(state);
                }
                prefetch_lines(&self.surfaces[i as usize]);
            }
        }
    }

    /// Fills one of a group's batches (its lanes' constraints and warm-start entries
    /// `members`, their points' feature ids into `ids`) from its bodies' `states`, the group's
    /// slots from `first`, and prepares its rows at once, so that its lines are written together
    /// and read again while cached. (In pair order, as the contacts lie, the constraints of some
    /// twenty colours and kinds interleave, each writing one lane of every line of its batch,
    /// and prepare would then read the batches back from memory.) Each constraint from its own
    /// inputs: the same bits whichever thread fills which batch, and whichever group fills
    /// first.
    pub(in crate::response::solver) fn fill<L: Lane>(
        &self,
        batch: &mut Batch<L>,
        ids: &mut [ArrayVec<FeatureId, 4>],
        members: &[(u32, u32)],
        states: &[SolverBody],
        first: u32,
    ) {
        // A static or sleeping body (slot 0) is the group's fixed state, its first slot.
        let local = |slot: u32| slot.saturating_sub(first);
        for (lane, (ids, &(n, warm))) in ids.iter_mut().zip(members).enumerate() {
            if n == NONE {
                prepare::gather(batch, lane, None, ids);
                continue;
            }
            // The `n`th constraint (in pair order), warm started from `previous[warm]`.
            let k = self.pairs[n as usize];
            let (pair, (i, j)) = (&self.contacts[k], self.indices[k]);
            let surfaces = (&self.surfaces[i as usize], &self.surfaces[j as usize]);
            let (ii, jj) = (i as usize, j as usize);
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            let inputs = Inputs {
                pair,
                slots: (local(i), local(j)),
                surfaces,
                states: (&states[local(i) as usize], &states[local(j) as usize]),
                isotropic: self.traits[i as usize].isotropic && self.traits[j as usize].isotropic,
                cached: self.previous.get(warm as usize),
                conveyor: match (self.conveyors.get(ii), self.conveyors.get(jj)) {
                    (Some(a), Some(b)) => a - b,
                    _ => Vector3::zeros(),
                },
            };
            prepare::gather(batch, lane, Some(&inputs), ids);
        }
        prepare::prepare(batch, states, self.speculative_margin);
    }
}
