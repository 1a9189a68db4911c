//! Collision detection for a step: every collider's world volume and AABB, densely in handle
//! order; the broad phase's overlapping pairs; the staged narrow phase's contacts.

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::contact::ContactPair;
use collide::broad::RowSweep;
use collide::staged::{Posed, StageCounts, StagedFilter};
use geom::{Aabb, Real};
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
    /// Per body, how far its AABB is grown for speculative contacts (metres).
    reach: Vec<Real>,
    /// For each contact of the last run, the indices of its two bodies.
    pub(crate) contact_indices: Vec<(u32, u32)>,
    /// What each stage of the narrow phase did in the last run.
    pub(crate) stage_counts: StageCounts,
}

impl Collision {
    /// Fills `contacts` with the touching pairs of `bodies`, in handle order. With
    /// `speculative = Some(margin, dt)`, pairs closer than `margin` plus the distance the two
    /// bodies can cover in `dt` are reported too, their gaps as negative depths.
    pub(crate) fn run(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &mut Vec<ContactPair>,
        speculative: Option<(Real, Real)>,
    ) {
        self.update_volumes(bodies, speculative);
        self.broad_phase();
        self.narrow_phase(contacts, speculative.is_some());
    }

    /// World volumes and AABBs, densely in handle order (the order slots are visited). With
    /// speculative contacts, each AABB grows by half the margin plus the distance the body can
    /// travel in one step (its speed, and its spin times its bounding radius), so that two
    /// AABBs meet whenever the bodies could within the step.
    fn update_volumes(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        speculative: Option<(Real, Real)>,
    ) {
        self.handles.clear();
        self.posed.clear();
        self.aabbs.clear();
        self.movable.clear();
        self.reach.clear();
        for (handle, body) in bodies {
            debug_assert!(self.handles.last().is_none_or(|&last| last < handle));
            let posed = Posed::new(&body.collider.shape, &body.collider.world_pose(&body.pose));
            self.handles.push(handle);
            match speculative {
                None => self.aabbs.push(posed.aabb),
                Some((margin, dt)) => {
                    let travel = if body.kind == BodyKind::Static {
                        0.0
                    } else {
                        (body.linvel.norm() + body.angvel.norm() * posed.sphere.radius) * dt
                    };
                    let reach = 0.5 * margin + travel;
                    self.reach.push(reach);
                    self.aabbs.push(posed.aabb.loosened(reach));
                }
            }
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

    /// Seed 004's staged filter on every overlapping pair; with a margin, each pair's margin
    /// is the sum of its two bodies' reaches.
    fn narrow_phase(&mut self, contacts: &mut Vec<ContactPair>, speculative: bool) {
        let mut filter = StagedFilter::new();
        contacts.clear();
        self.contact_indices.clear();
        for &(i, j) in &self.pairs {
            let (i, j) = (i as usize, j as usize);
            let found = if speculative {
                let margin = self.reach[i] + self.reach[j];
                filter.contact_within(&self.posed[i], &self.posed[j], margin)
            } else {
                filter.contact(&self.posed[i], &self.posed[j])
            };
            if let Some(contact) = found {
                contacts.push(ContactPair {
                    a: self.handles[i],
                    b: self.handles[j],
                    contact,
                });
                self.contact_indices.push((i as u32, j as u32));
            }
        }
        self.stage_counts = filter.counts;
    }
}
