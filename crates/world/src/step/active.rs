//! Which bodies a step visits. A body *rests* when it is static or asleep and was not disturbed
//! (inserted, moved or woken) since the last step: nothing about it changes in a step, so no
//! pass of the step visits it, and its box waits in a [`RestingTree`] for the bodies that move
//! to find it. Every other body (awake dynamic, kinematic, disturbed) is *live*: listed in
//! handle order, and visited by every stage.
//!
//! The world tells the set about every body whose state may have changed outside the step
//! ([`Active::note`]: inserted, removed, handed out by `body_mut`, woken) and about the bodies
//! a step wakes ([`Active::woke`]); [`Active::sync`] brings the set up to date before a step
//! and [`Active::settle`] after it, when bodies fell asleep and disturbed ones calmed. Both cost
//! in proportion to what changed, never to the number of bodies. The set is derived state:
//! never saved, rebuilt from the bodies after a restore.

use super::merge_sorted;
use super::seams::Seams;
use crate::body::{BodyHandle, BodyKind, RigidBody};
use collide::broad::RestingTree;
use geom::{Aabb, Real};
use slotmap::{Key, SlotMap};

/// A body's slot: the index half of its handle, the id its box has in the tree.
#[inline]
pub(crate) fn slot_of(handle: BodyHandle) -> u32 {
    handle.data().as_ffi() as u32
}

/// The dense set something derived from it was last made for, kept while that holds: the
/// same set (and whatever else it was made from unchanged, which its owner tells by
/// [`MadeFor::forget`]) gives the same result, kept rather than made again.
#[derive(Debug, Clone, Default)]
pub(crate) struct MadeFor(Option<Vec<BodyHandle>>);

impl MadeFor {
    /// Whether it was made for `handles` and not forgotten since; if not, it is now taken to
    /// be (the caller makes it again).
    pub(crate) fn holds(&mut self, handles: &[BodyHandle]) -> bool {
        if self.0.as_deref() == Some(handles) {
            return true;
        }
        let mut made_for = self.0.take().unwrap_or_default();
        made_for.clear();
        made_for.extend_from_slice(handles);
        self.0 = Some(made_for);
        false
    }

    /// What it was made from changed: the next [`MadeFor::holds`] is false.
    pub(crate) fn forget(&mut self) {
        self.0 = None;
    }
}

/// Each dense index by body slot, for the step's dense set (`handles`, in handle order): the
/// place of a handle in one read rather than a binary search, for the joints and the jointed
/// pairs of a scene with many.
#[derive(Debug, Clone, Default)]
pub(crate) struct Places(Vec<u32>);

impl Places {
    /// Fills the table for `handles` when it pays: their slots span at most four times their
    /// count (a world of many resting bodies, whose dense set is a few of them, would
    /// otherwise clear a table of every slot each step). Returns whether it did.
    pub(crate) fn fill(&mut self, handles: &[BodyHandle]) -> bool {
        let span = handles.last().map_or(0, |&h| slot_of(h) as usize + 1);
        if span > 4 * handles.len() {
            return false;
        }
        self.0.clear();
        self.0.resize(span, 0);
        for (place, &h) in handles.iter().enumerate() {
            self.0[slot_of(h) as usize] = place as u32 + 1;
        }
        true
    }

    /// The dense index of `h` among the `handles` the table was filled for.
    #[inline]
    pub(crate) fn index(&self, handles: &[BodyHandle], h: BodyHandle) -> Option<u32> {
        let place = *self.0.get(slot_of(h) as usize)?;
        (place != 0 && handles[place as usize - 1] == h).then(|| place - 1)
    }
}

/// Whether `body` rests (see the module documentation).
#[inline]
pub(crate) fn rests(body: &RigidBody) -> bool {
    (body.kind == BodyKind::Static || body.sleep.asleep) && !body.sleep.disturbed
}

/// A resting body's box as the collision stage computes it for a body that does not move: its
/// collider's world AABB (`RigidBody::world_aabb`, the AABB of the volume the stage poses)
/// grown by `grow` (half the speculative margin) all round. (A static
/// body moves with no velocity; a sleeping one has none: a snapshot with a sleeping body
/// that moves is refused.)
#[inline]
pub(crate) fn resting_box(body: &RigidBody, grow: Real) -> Aabb {
    body.world_aabb().loosened(grow)
}

/// The live bodies and the resting ones' boxes; see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Active {
    /// The live bodies, in handle order.
    live: Vec<BodyHandle>,
    /// Bodies whose state may have changed since the set was last brought up to date.
    pending: Vec<BodyHandle>,
    /// The resting bodies' boxes, by slot, and each slot's handle.
    resting: RestingTree,
    handles: Vec<BodyHandle>,
    /// The static boxes' internal faces.
    seams: Seams,
    /// Per slot, whether its resting body sleeps (is not static), and how many do.
    sleeper: Vec<bool>,
    sleepers: usize,
    /// How much the resting boxes were grown by; they are made again when that changes.
    grown_by: Real,
    /// Whether the set must be made again from every body (a new or restored world).
    stale: bool,
    /// Whether a static body joined the live list since the last settle (it rests again once
    /// it is no longer disturbed).
    live_static: bool,
    /// Buffers.
    scratch: Vec<BodyHandle>,
    merged: Vec<BodyHandle>,
}

impl Default for Active {
    fn default() -> Self {
        Self {
            live: Vec::new(),
            pending: Vec::new(),
            resting: RestingTree::new(),
            handles: Vec::new(),
            seams: Seams::default(),
            sleeper: Vec::new(),
            sleepers: 0,
            grown_by: 0.0,
            stale: true,
            live_static: false,
            scratch: Vec::new(),
            merged: Vec::new(),
        }
    }
}

impl Active {
    /// The live bodies, in handle order (up to date after [`Active::sync`]).
    pub(crate) fn live(&self) -> &[BodyHandle] {
        &self.live
    }

    /// The resting bodies' boxes, by slot.
    pub(crate) fn resting(&self) -> &RestingTree {
        &self.resting
    }

    /// Whether some body sleeps (up to date after [`Active::sync`] and [`Active::woke`]; a body
    /// that falls asleep in a step counts from [`Active::settle`] on).
    pub(crate) fn some_asleep(&self) -> bool {
        self.sleepers > 0
    }

    /// The internal faces of the static box in `slot` (six bits, `step::seams`; 0 for any
    /// other body).
    pub(crate) fn covered(&self, slot: u32) -> u8 {
        self.seams.covered(slot)
    }

    /// The handle of the resting body in `slot`.
    pub(crate) fn handle_of(&self, slot: u32) -> BodyHandle {
        self.handles[slot as usize]
    }

    /// Whether the set must be made again from every body (no step since the world was made
    /// or restored): until then the live list and the tree say nothing.
    pub(crate) fn is_stale(&self) -> bool {
        self.stale
    }

    /// The bodies noted since the last sync, in the order they were noted (repeats kept).
    pub(crate) fn pending(&self) -> &[BodyHandle] {
        &self.pending
    }

    /// Whether some body was noted since the last sync (every body disturbed since the last
    /// step was).
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty() || self.stale
    }

    /// `handle`'s state may have changed (inserted, removed, changed by a setter, woken).
    pub(crate) fn note(&mut self, handle: BodyHandle) {
        self.pending.push(handle);
        // A world changed many times between steps keeps each body once.
        if self.pending.len() >= 1024 && self.pending.len().is_power_of_two() {
            self.pending.sort_unstable();
            self.pending.dedup();
        }
    }

    /// Brings the set up to date with `bodies` before a step whose resting boxes grow by
    /// `grow`.
    pub(crate) fn sync(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>, grow: Real) {
        if self.stale || grow != self.grown_by {
            self.rebuild(bodies, grow);
            return;
        }
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_unstable();
        pending.dedup();
        let mut joining = std::mem::take(&mut self.scratch);
        joining.clear();
        for &handle in &pending {
            self.seams.update(handle, bodies);
            self.unrest(handle);
            match bodies.get(handle) {
                Some(body) if rests(body) => self.rest(handle, body),
                Some(body) => {
                    self.live_static |= body.kind == BodyKind::Static;
                    joining.push(handle);
                }
                None => {}
            }
        }
        // The live list loses what was removed or now rests and gains what joined.
        self.live.retain(|&h| {
            pending.binary_search(&h).is_err() || bodies.get(h).is_some_and(|b| !rests(b))
        });
        merge_sorted(&mut self.live, &joining, &mut self.merged);
        pending.clear();
        self.pending = pending;
        self.scratch = joining;
        self.resting.settle();
        self.seams.settle();
    }

    /// The bodies of `woken` (sleeping until now, awake now) leave the tree and join the live
    /// list.
    pub(crate) fn woke(&mut self, woken: &[BodyHandle]) {
        if woken.is_empty() {
            return;
        }
        let mut joining = std::mem::take(&mut self.scratch);
        joining.clear();
        joining.extend_from_slice(woken);
        joining.sort_unstable();
        joining.dedup();
        for &handle in &joining {
            self.unrest(handle);
        }
        merge_sorted(&mut self.live, &joining, &mut self.merged);
        self.scratch = joining;
    }

    /// After a step: the live bodies that now rest (fell asleep, or static and no longer
    /// disturbed) go to the tree. Without `may_sleep` (sleeping off, or a response without
    /// it) only static ones can, and the live list is walked only if one joined it.
    pub(crate) fn settle(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>, may_sleep: bool) {
        if self.stale || !(may_sleep || self.live_static) {
            return;
        }
        self.live_static = false;
        let mut live = std::mem::take(&mut self.live);
        live.retain(|&handle| match bodies.get(handle) {
            Some(body) if rests(body) => {
                self.rest(handle, body);
                false
            }
            Some(_) => true,
            None => false,
        });
        self.live = live;
        self.resting.settle();
    }

    /// The set made again from every body.
    fn rebuild(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>, grow: Real) {
        self.resting.clear();
        self.sleeper.clear();
        self.sleepers = 0;
        self.live.clear();
        self.pending.clear();
        self.grown_by = grow;
        self.stale = false;
        for (handle, body) in bodies {
            if rests(body) {
                self.rest(handle, body);
            } else {
                self.live_static |= body.kind == BodyKind::Static;
                self.live.push(handle);
            }
        }
        self.resting.settle();
        self.seams.rebuild(bodies);
    }

    /// `body` goes to the tree.
    fn rest(&mut self, handle: BodyHandle, body: &RigidBody) {
        let slot = slot_of(handle);
        if self.handles.len() <= slot as usize {
            self.handles.resize(slot as usize + 1, BodyHandle::null());
        }
        self.handles[slot as usize] = handle;
        self.resting.insert(slot, resting_box(body, self.grown_by));
        if body.kind != BodyKind::Static {
            if self.sleeper.len() <= slot as usize {
                self.sleeper.resize(slot as usize + 1, false);
            }
            self.sleeper[slot as usize] = true;
            self.sleepers += 1;
        }
    }

    /// The body in `handle`'s slot leaves the tree, if it was there.
    fn unrest(&mut self, handle: BodyHandle) {
        let slot = slot_of(handle);
        if self.resting.remove(slot) && self.sleeper.get(slot as usize) == Some(&true) {
            self.sleeper[slot as usize] = false;
            self.sleepers -= 1;
        }
    }
}
