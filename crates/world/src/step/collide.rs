//! Collision detection for a step: every collider's world volume and AABB, densely in handle
//! order; the broad phase's overlapping pairs; the staged narrow phase's contacts.

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::contact::ContactPair;
use collide::broad::RowSweep;
use collide::staged::{Posed, StageCounts, StagedFilter};
use geom::Aabb;
use slotmap::SlotMap;

/// The collision stage's buffers, refilled every step (never saved, never change a result).
/// Index `i` of `handles`, `posed`, `aabbs` and `movable` is the `i`-th body in handle order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Collision {
    broad: RowSweep,
    pub(crate) handles: Vec<BodyHandle>,
    posed: Vec<Posed>,
    aabbs: Vec<Aabb>,
    movable: Vec<bool>,
    /// Overlapping pairs of indices into the vectors above.
    pairs: Vec<(u32, u32)>,
    /// What each stage of the narrow phase did in the last run.
    pub(crate) stage_counts: StageCounts,
}

impl Collision {
    /// Fills `contacts` with the touching pairs of `bodies`, in handle order.
    pub(crate) fn run(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &mut Vec<ContactPair>,
    ) {
        self.update_volumes(bodies);
        self.broad_phase();
        self.narrow_phase(contacts);
    }

    /// World volumes and AABBs, densely in handle order (the order slots are visited).
    fn update_volumes(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>) {
        self.handles.clear();
        self.posed.clear();
        self.aabbs.clear();
        self.movable.clear();
        for (handle, body) in bodies {
            debug_assert!(self.handles.last().is_none_or(|&last| last < handle));
            let posed = Posed::new(&body.collider.shape, &body.collider.world_pose(&body.pose));
            self.handles.push(handle);
            self.aabbs.push(posed.aabb);
            self.posed.push(posed);
            self.movable.push(body.kind != BodyKind::Static);
        }
    }

    /// Overlapping AABB pairs, sorted by index, which is handle order. Pairs of bodies that can
    /// never move are skipped.
    fn broad_phase(&mut self) {
        self.broad.pairs_of(&self.aabbs, &mut self.pairs);
        let movable = &self.movable;
        self.pairs
            .retain(|&(i, j)| movable[i as usize] || movable[j as usize]);
    }

    /// Seed 004's staged filter on every overlapping pair.
    fn narrow_phase(&mut self, contacts: &mut Vec<ContactPair>) {
        let mut filter = StagedFilter::new();
        contacts.clear();
        for &(i, j) in &self.pairs {
            let (i, j) = (i as usize, j as usize);
            if let Some(contact) = filter.contact(&self.posed[i], &self.posed[j]) {
                contacts.push(ContactPair {
                    a: self.handles[i],
                    b: self.handles[j],
                    contact,
                });
            }
        }
        self.stage_counts = filter.counts;
    }
}
