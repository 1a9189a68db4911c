//! Collision detection for a step: every collider's world volume and AABB, densely in handle
//! order; the broad phase's overlapping pairs; the staged narrow phase's contacts. Pairs in
//! which nothing moves (sleeping against sleeping or static) are not tested. The narrow phase
//! runs in blocks of pairs on rayon's threads when there are several; the contacts come out in
//! pair order either way.
//!
//! With contact reuse (`SolverConfig::reuse_distance`), a pair whose relative pose has
//! moved less than the reuse distance since its contact was computed keeps that contact,
//! carried with the bodies (`KeptContact`), and skips the narrow phase.

use super::active::{Active, MadeFor, Places, slot_of};
use super::seams;
use super::sleep::is_awake_movable;
use super::{merge_from_back, merge_sorted};
use crate::ahead::SlotAhead;
use crate::body::{BodyHandle, BodyKind, ColliderFlags, RigidBody};
use crate::contact::{CachedAxis, ContactPair, KeptContact};
use crate::joint::JointHandle;
use crate::profile::{Lap, StepProfile};
use arrayvec::ArrayVec;
use collide::broad::FatSweep;
#[cfg(debug_assertions)]
use collide::broad::RowSweep;
use collide::staged::{Posed, StageCounts, StagedFilter};
use collide::{Contact, PartAxis, has_several_manifolds};
use geom::{Aabb, Isometry3, Real, Vector3};
use slotmap::SlotMap;
use std::time::{Duration, Instant};

/// Pairs per block handed to a thread in the narrow phase.
#[cfg(feature = "parallel")]
const PAIR_BLOCK: usize = 256;

/// Bodies per block whose dense-set entries are made on a thread of their own.
#[cfg(feature = "parallel")]
const BODY_BLOCK: usize = 512;

/// Pairs handed to the staged filter at a time when it tests them in windows
/// ([`Collision::test_block_within`]).
const PAIR_WINDOW: usize = 64;

/// Up to this many bodies woken after the narrow phase, [`Collision::test_woken`] compares
/// their boxes with every box of the dense set rather than sweep them all again (a sweep costs
/// a few hundred nanoseconds a box, a comparison one or two).
const FEW_WOKEN: usize = 64;

/// Every pair `(i, j)`, `i < j`, of boxes that intersect with `flagged[i]` or `flagged[j]`,
/// sorted, into `pairs`: the pairs of [`RowSweep::pairs_of`] with a flagged box (it reports
/// exactly the pairs whose boxes `intersects`, NaN or inverted boxes too), each flagged box
/// compared with every box. `boxes(k)` is box `k` of `flagged.len()`.
fn pairs_with_flagged(
    boxes: impl Fn(usize) -> Aabb,
    flagged: &[bool],
    pairs: &mut Vec<(u32, u32)>,
) {
    pairs.clear();
    for (w, _) in flagged.iter().enumerate().filter(|&(_, &f)| f) {
        let aabb = boxes(w);
        for (j, &other_flagged) in flagged.iter().enumerate() {
            // A pair of two flagged boxes is found from its lower one only.
            if j != w && !(other_flagged && j < w) && aabb.intersects(&boxes(j)) {
                pairs.push((w.min(j) as u32, w.max(j) as u32));
            }
        }
    }
    pairs.sort_unstable();
}

/// Drops from `pairs` those in `skipped` (both sorted: one merge walk).
fn skip(pairs: &mut Vec<(u32, u32)>, skipped: &[(u32, u32)]) {
    if skipped.is_empty() {
        return;
    }
    let mut skipped = skipped.iter().peekable();
    pairs.retain(|pair| {
        while skipped.next_if(|&s| s < pair).is_some() {}
        skipped.peek() != Some(&pair)
    });
}

/// What the narrow phase found in one block of pairs (on one of rayon's threads).
#[cfg(feature = "parallel")]
#[derive(Debug, Clone, Default)]
struct Found {
    contacts: Vec<ContactPair>,
    indices: Vec<(u32, u32)>,
    wake: Vec<BodyHandle>,
    counts: StageCounts,
    kept: KeptDraft,
    reused: usize,
    axes: Vec<CachedAxis>,
}

/// Adds `more`'s counts to `total`'s.
fn add_counts(total: &mut StageCounts, more: &StageCounts) {
    total.pairs += more.pairs;
    total.rejected_by_sphere += more.rejected_by_sphere;
    total.rejected_by_aabb += more.rejected_by_aabb;
    total.rejected_by_exact += more.rejected_by_exact;
    total.touching += more.touching;
}

/// One body's entry in a step's dense set (see [`Collision`]), kept in four columns: what
/// the narrow phase reads of every pair (its volumes, its motion), what the broad phase's
/// filter reads (its flags), and the rest.
#[derive(Debug, Clone, Copy)]
struct Entry {
    handle: BodyHandle,
    pose: Isometry3,
    radius: Real,
    aabb: Aabb,
    reach: Real,
    /// A resting static box's internal faces (six bits, `step::seams`); 0 for other bodies.
    covered: u8,
}

/// How a body of the dense set moves this step (see [`Collision::pair_margin`]).
#[derive(Debug, Clone, Copy)]
struct Motion {
    velocity: Vector3,
    spin: Real,
}

/// What a body of the dense set is this step (see [`Collision::tested`]).
#[derive(Debug, Clone, Copy)]
struct Flags {
    asleep: bool,
    moving: bool,
    resting_kinematic: bool,
    disturbed: bool,
    /// Whether the collider's filter or sensor flag is not the default (the pair test then
    /// reads them, in their own column).
    special: bool,
}

impl Flags {
    /// Whether a pair of bodies so flagged, with these colliders, is tested (see
    /// [`Collision::tested`]): one of them moves or was disturbed, and unless both colliders
    /// are plain, their filters let them collide and they are not both sensors.
    #[inline]
    fn tested(
        a: &Self,
        b: &Self,
        colliders: impl FnOnce() -> (ColliderFlags, ColliderFlags),
    ) -> bool {
        let awake_or_disturbed = |k: &Self, other: &Self| {
            (k.resting_kinematic && !other.asleep) || (k.disturbed && other.asleep)
        };
        (a.moving || b.moving || awake_or_disturbed(a, b) || awake_or_disturbed(b, a))
            && (!(a.special || b.special) || {
                let (a, b) = colliders();
                a.filter.collides(&b.filter) && !(a.sensor && b.sensor)
            })
    }
}

/// A body's entry in its four columns.
#[derive(Debug, Clone)]
struct Made {
    entry: Entry,
    posed: Posed,
    motion: Motion,
    flags: Flags,
    collider: ColliderFlags,
}

impl Entry {
    /// `body`'s entry. With speculative contacts (`Some((margin, dt))`), its AABB grows by
    /// half the margin and how far its spin can carry a point (spin times bounding radius,
    /// times `dt`) all round, and is then swept along the step's translation (`v dt`), so that
    /// two AABBs meet whenever the bodies could within the step at their velocities; two
    /// bodies flying apart are not paired.
    #[inline]
    fn of(handle: BodyHandle, body: &RigidBody, speculative: Option<(Real, Real)>) -> Made {
        let pose = body.collider.world_pose(&body.pose);
        let posed = Posed::new(&body.collider.shape, &pose);
        let (velocity, spin) = if body.kind == BodyKind::Static {
            (Vector3::zeros(), 0.0)
        } else {
            (body.linvel, body.angvel.norm() * posed.sphere.radius)
        };
        let (aabb, reach) = match speculative {
            None => (posed.aabb, 0.0),
            Some((margin, dt)) => {
                let grown = posed.aabb.loosened(0.5 * margin + spin * dt);
                let swept = grown.merged(&grown.translated(&(velocity * dt)));
                (swept, 0.5 * margin + (velocity.norm() + spin) * dt)
            }
        };
        let moving = is_awake_movable(body);
        Made {
            entry: Self {
                handle,
                pose,
                radius: body.collider.shape.bounding_radius(),
                aabb,
                reach,
                covered: 0,
            },
            posed,
            motion: Motion { velocity, spin },
            flags: Flags {
                asleep: body.sleep.asleep,
                moving,
                resting_kinematic: body.kind == BodyKind::Kinematic && !moving,
                disturbed: body.sleep.disturbed,
                special: body.collider.flags != ColliderFlags::default(),
            },
            collider: body.collider.flags,
        }
    }
}

impl Made {
    /// With the internal faces `active` keeps for the body (a resting static box's).
    fn seamed(mut self, active: &Active) -> Self {
        self.entry.covered = active.covered(slot_of(self.entry.handle));
        self
    }

    /// The entry of a body woken in this step as it was before it woke: asleep, still.
    fn into_sleeper(mut self) -> Self {
        self.flags = Flags {
            asleep: true,
            moving: false,
            resting_kinematic: false,
            disturbed: false,
            ..self.flags
        };
        self
    }
}

/// The broad phase's sweep with the bodies whose boxes it swept last, in order: its fat boxes
/// and their pairs are kept while they are the same bodies (`FatSweep`).
#[derive(Debug, Clone, Default)]
struct Broad {
    sweep: FatSweep,
    swept: Vec<BodyHandle>,
}

impl Broad {
    /// The overlapping pairs of `boxes`, those of the bodies `handles` in that order
    /// (`FatSweep::pairs_of`).
    fn pairs_of(&mut self, boxes: &[Aabb], handles: &[BodyHandle], pairs: &mut Vec<(u32, u32)>) {
        let same = self.swept == handles;
        self.sweep.pairs_of(boxes, same, pairs);
        if !same {
            self.swept.clear();
            self.swept.extend_from_slice(handles);
        }
    }
}

/// The collision stage's buffers, refilled every step (never saved, never change a result).
///
/// A step's *dense set* is its live bodies ([`Active`]: awake, kinematic or disturbed), the
/// resting bodies (static or asleep) whose boxes meet a live one's, and the resting bodies
/// jointed to a live one: every body a pair tested this step can have, and no other, so that
/// nothing here costs in proportion to the bodies that rest. Index `i` of `handles` and of
/// the dense set's columns (`dense`, `posed`, `motion`, `flags`) is the `i`-th body of it in
/// handle order (its *dense index*), so that pairs sorted by index are sorted by handle.
#[derive(Debug, Clone, Default)]
pub(crate) struct Collision {
    broad: Broad,
    /// The last run's times: volumes, broad and narrow phase (the rest of the profile zero).
    pub(crate) profile: StepProfile,
    pub(crate) handles: Vec<BodyHandle>,
    /// Per body of the dense set, its entry in four columns (see [`Entry`]).
    dense: Vec<Entry>,
    posed: Vec<Posed>,
    motion: Vec<Motion>,
    flags: Vec<Flags>,
    /// Per body of the dense set, its collider's filter and flags (read for the pairs with a
    /// collider that is not plain).
    colliders: Vec<ColliderFlags>,
    /// How many bodies of the dense set have a collider that is not plain (`Flags::special`).
    specials: usize,
    /// How many bodies of the dense set are static boxes with internal faces (`Entry::covered`).
    seamed: usize,
    /// Overlapping pairs of dense indices.
    pairs: Vec<(u32, u32)>,
    /// Pairs never tested (jointed bodies that do not collide), indices as above, sorted; the
    /// dense set they were indexed for, while the pairs they index are unchanged
    /// ([`Collision::forget_skipped`]).
    skipped: Vec<(u32, u32)>,
    skipped_for: MadeFor,
    half_margin: Real,
    dt: Real,
    /// For each contact of the last run, the indices of its two bodies.
    pub(crate) contact_indices: Vec<(u32, u32)>,
    /// Buffers of the dense set's making: the live bodies' boxes, the resting bodies to add,
    /// their entries, and old dense indices to new ones.
    live_aabbs: Vec<Aabb>,
    partners: Vec<BodyHandle>,
    /// The resting bodies the live ones' boxes met: (index among the live, handle); the
    /// pairs they make, and a buffer to merge them with the live pairs.
    met: Vec<(u32, BodyHandle)>,
    extra_pairs: Vec<(u32, u32)>,
    pair_scratch: Vec<(u32, u32)>,
    partner_entries: Vec<Made>,
    /// Per block of bodies, its entries, made on several threads (`push_all`; unused
    /// without the parallel feature).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    made_blocks: Vec<Vec<Made>>,
    /// Dense indices by body slot (a buffer of `index_skipped`).
    places: Places,
    /// How long the last run's sweep and resting-tree queries took (inside `make_dense`).
    sweep_time: Duration,
    renumbered: Vec<u32>,
    /// Per body, whether it woke after the narrow phase (see [`Self::test_woken`]).
    woken: Vec<bool>,
    /// Whether the last run found speculative contacts.
    speculative: bool,
    /// What each stage of the narrow phase did in the last run (pairs whose contact was
    /// reused did not go through it).
    pub(crate) stage_counts: StageCounts,
    /// How many pairs' contacts the last run reused instead of testing them.
    pub(crate) reused: usize,
    /// How the last run made its kept contacts, and the kept contacts of the run before it
    /// (buffers).
    draft: KeptDraft,
    kept_before: Vec<KeptContact>,
    /// The axes of the run before the last (a buffer: see `run`'s `axes`).
    axes_before: Vec<CachedAxis>,
    /// Per block of pairs tested on a thread of its own, what it found.
    #[cfg(feature = "parallel")]
    found: Vec<Found>,
}

impl Collision {
    /// Fills `contacts` with the touching pairs of the step's dense set (see [`Collision`]),
    /// in handle order. With `speculative = Some(margin, dt)`, pairs closer than `margin` plus
    /// the distance the two bodies can cover in `dt` are reported too, their gaps as negative
    /// depths. Pairs in which nothing moves (sleeping or static bodies) are not tested. `wake`
    /// receives the sleeping bodies that a moving or disturbed body can reach within the step.
    /// With `reuse = Some((distance, kept))`, `kept` holds the kept contacts of the last run
    /// (sorted by pair), which pairs that moved less than `distance` reuse, and is replaced by
    /// this run's: one per pair with a contact (reused or computed). The pairs of `skipped`
    /// (sorted, lower handle first: jointed bodies that do not collide) are never tested;
    /// `attached` lists each joint twice, as (a body, the other, the joint), sorted. With
    /// `axes`, the pairs of polyhedra try the separating axes the last run left there first
    /// (sorted by pair), and this run's replace them (a pair that reuses its contact carries
    /// its axes over).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        contacts: &mut Vec<ContactPair>,
        speculative: Option<(Real, Real)>,
        wake: &mut Vec<BodyHandle>,
        reuse: Option<(Real, &mut Vec<KeptContact>)>,
        skipped: &[(BodyHandle, BodyHandle)],
        attached: &[(BodyHandle, BodyHandle, JointHandle)],
        axes: Option<&mut Vec<CachedAxis>>,
    ) {
        self.speculative = speculative.is_some();
        if let Some((margin, dt)) = speculative {
            self.half_margin = 0.5 * margin;
            self.dt = dt;
        }
        let mut clock = Lap::start();
        self.sweep_time = Duration::ZERO;
        self.make_dense(bodies, active, attached, speculative);
        self.index_skipped(skipped);
        // The dense set is made beside the broad phase's sweep and tree queries.
        self.profile.volumes = clock.lap().saturating_sub(self.sweep_time);
        self.broad_phase();
        #[cfg(debug_assertions)]
        self.check_pairs(bodies, speculative, skipped);
        self.profile.broad_phase = clock.lap() + self.sweep_time;
        crate::plain::forget_all(contacts);
        self.contact_indices.clear();
        self.stage_counts = StageCounts::default();
        self.reused = 0;
        wake.clear();
        let pairs = std::mem::take(&mut self.pairs);
        let mut indices = std::mem::take(&mut self.contact_indices);
        // The last run's axes are read from `before`; this run's are written into the list.
        let mut before = std::mem::take(&mut self.axes_before);
        before.clear();
        let mut axes = axes;
        if let Some(axes) = axes.as_deref_mut() {
            std::mem::swap(axes, &mut before);
        }
        let axes = axes.map(|after| (before.as_slice(), after));
        match reuse {
            Some((distance, kept)) => {
                let mut draft = std::mem::take(&mut self.draft);
                draft.clear();
                let reuse = Reuse {
                    distance,
                    before: kept,
                };
                self.test_pairs(
                    &pairs,
                    contacts,
                    &mut indices,
                    wake,
                    Some((reuse, &mut draft)),
                    axes,
                );
                draft.apply(kept, &mut self.kept_before);
                self.draft = draft;
            }
            None => self.test_pairs(&pairs, contacts, &mut indices, wake, None, axes),
        }
        self.axes_before = before;
        (self.pairs, self.contact_indices) = (pairs, indices);
        self.profile.narrow_phase = clock.lap();
    }

    /// Moves the contacts of pairs with a sensor out of `contacts` (and their indices): they
    /// push nothing. The pairs among them that overlap (depth at least 0; a speculative contact
    /// is a gap) go to `overlaps` as (sensor, visitor), sorted, once each.
    pub(crate) fn take_sensed(
        &mut self,
        contacts: &mut Vec<ContactPair>,
        overlaps: &mut Vec<(BodyHandle, BodyHandle)>,
    ) {
        overlaps.clear();
        if self.specials == 0 || !self.colliders.iter().any(|c| c.sensor) {
            return;
        }
        let (flags, indices) = (&self.colliders, &mut self.contact_indices);
        let mut kept = 0;
        for k in 0..contacts.len() {
            let (i, j) = indices[k];
            let (a_senses, b_senses) = (flags[i as usize].sensor, flags[j as usize].sensor);
            if a_senses || b_senses {
                let pair = &contacts[k];
                if pair.contact.depth >= 0.0 {
                    overlaps.push(if a_senses {
                        (pair.a, pair.b)
                    } else {
                        (pair.b, pair.a)
                    });
                }
            } else {
                contacts.swap(kept, k);
                indices.swap(kept, k);
                kept += 1;
            }
        }
        contacts.truncate(kept);
        indices.truncate(kept);
        overlaps.sort_unstable();
        overlaps.dedup();
    }

    /// Whether a collider of the dense set asks for hit events.
    pub(crate) fn asks_for_hits(&self) -> bool {
        self.specials > 0 && self.colliders.iter().any(|c| c.hit_speed.is_some())
    }

    /// Whether a body of the dense set has a collider that is not plain (a filter, a sensor,
    /// hits, its own rolling resistance or a conveyor).
    pub(crate) fn has_special_colliders(&self) -> bool {
        self.specials > 0
    }

    /// Whether a body of the dense set sleeps (a sleeping body the last run met, or one
    /// disturbed without waking, as a hostile snapshot can hold).
    pub(crate) fn some_asleep(&self) -> bool {
        self.flags.iter().any(|f| f.asleep)
    }

    /// The pairs never tested (the `skipped` of [`Collision::run`]) changed: the next run
    /// indexes them again.
    pub(crate) fn forget_skipped(&mut self) {
        self.skipped_for.forget();
    }

    /// The dense indices of the pairs of `skipped` whose bodies are both in the dense set:
    /// kept from the last call while the dense set is the same and the pairs are (the world
    /// calls [`Collision::forget_skipped`] when they change; Box3D's joint grid indexes its
    /// 19,800 pairs once rather than every step).
    fn index_skipped(&mut self, skipped: &[(BodyHandle, BodyHandle)]) {
        if self.skipped_for.holds(&self.handles) {
            return;
        }
        self.skipped.clear();
        let handles = &self.handles;
        // Many pairs: the dense indices from a table by slot rather than two searches a pair.
        let table = skipped.len() >= 64 && self.places.fill(handles);
        let places = &self.places;
        let index = |h: &BodyHandle| {
            if table {
                places.index(handles, *h)
            } else {
                handles.binary_search(h).ok().map(|i| i as u32)
            }
        };
        self.skipped.extend(
            skipped
                .iter()
                .filter_map(|(a, b)| Some((index(a)?, index(b)?))),
        );
    }

    /// The dense set and its arrays, and the overlapping pairs with a live body (into
    /// `self.pairs`, sorted): the live bodies' entries and the pairs among them (the row
    /// sweep), then the resting bodies their boxes meet (the resting tree's queries: those
    /// pairs too) or that are jointed to them, merged in handle order. A resting body's box in
    /// the tree is the one its entry gets ([`super::active::resting_box`]), so these are the
    /// pairs a sweep of the whole dense set finds, less those between resting bodies (never
    /// tested).
    fn make_dense(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        attached: &[(BodyHandle, BodyHandle, JointHandle)],
        speculative: Option<(Real, Real)>,
    ) {
        let resting = active.resting();
        if resting.len() <= active.live().len() {
            self.sweep_all(bodies, active, speculative);
            return;
        }
        self.clear_dense();
        self.push_all(bodies, active, active.live(), speculative);
        let mut boxes = std::mem::take(&mut self.live_aabbs);
        boxes.clear();
        boxes.extend(self.dense.iter().map(|e| e.aabb));
        let mut pairs = std::mem::take(&mut self.pairs);
        let sweep = Instant::now();
        self.broad.pairs_of(&boxes, active.live(), &mut pairs);
        let mut partners = std::mem::take(&mut self.partners);
        partners.clear();
        let mut met = std::mem::take(&mut self.met);
        met.clear();
        if !resting.is_empty() {
            for (k, entry) in self.dense.iter().enumerate() {
                resting.query(&entry.aabb, |slot| {
                    let handle = active.handle_of(slot);
                    partners.push(handle);
                    met.push((k as u32, handle));
                });
            }
            let rests = |h: BodyHandle| resting.contains(slot_of(h));
            if !attached.is_empty() {
                for &body in active.live() {
                    let start = attached.partition_point(|e| e.0 < body);
                    let of_body = attached[start..].iter().take_while(|e| e.0 == body);
                    partners.extend(of_body.filter(|e| rests(e.1)).map(|e| e.1));
                }
            }
        }
        self.sweep_time = sweep.elapsed();
        partners.sort_unstable();
        partners.dedup();
        let mut partner_entries = std::mem::take(&mut self.partner_entries);
        partner_entries.clear();
        partner_entries.extend(
            partners
                .iter()
                .map(|&h| Entry::of(h, &bodies[h], speculative).seamed(active)),
        );
        let mut live_at = std::mem::take(&mut self.renumbered);
        self.spread(&mut partner_entries, &mut live_at);
        if !partner_entries.is_empty() {
            // Dense indices grow with live ones: the live pairs stay ordered.
            for pair in &mut pairs {
                *pair = (live_at[pair.0 as usize], live_at[pair.1 as usize]);
            }
        }
        self.handles.clear();
        self.handles.extend(self.dense.iter().map(|e| e.handle));
        if !met.is_empty() {
            // The pairs with a resting body, ordered, merged into the live pairs' order.
            let handles = &self.handles;
            let dense = |h: BodyHandle| handles.binary_search(&h).map_or(0, |i| i as u32);
            let mut extra = std::mem::take(&mut self.extra_pairs);
            extra.clear();
            extra.extend(met.iter().map(|&(k, h)| {
                let (i, j) = (live_at[k as usize], dense(h));
                (i.min(j), i.max(j))
            }));
            extra.sort_unstable();
            merge_sorted(&mut pairs, &extra, &mut self.pair_scratch);
            self.extra_pairs = extra;
        }
        self.pairs = pairs;
        (self.partners, self.partner_entries) = (partners, partner_entries);
        (self.live_aabbs, self.met, self.renumbered) = (boxes, met, live_at);
    }

    /// [`Self::make_dense`] when no more bodies rest than live: every resting body joins the
    /// dense set, and the row sweep finds the pairs among all of them (cheaper then than a
    /// query per live body; the pairs between resting bodies are never tested).
    fn sweep_all(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        speculative: Option<(Real, Real)>,
    ) {
        let mut resting = std::mem::take(&mut self.partners);
        resting.clear();
        active
            .resting()
            .for_each_id(|slot| resting.push(active.handle_of(slot)));
        resting.sort_unstable();
        self.clear_dense();
        let mut handles = std::mem::take(&mut self.handles);
        handles.clear();
        let mut others = resting.iter().copied().peekable();
        for &h in active.live() {
            while let Some(other) = others.next_if(|&o| o < h) {
                handles.push(other);
            }
            handles.push(h);
        }
        handles.extend(others);
        self.push_all(bodies, active, &handles, speculative);
        self.handles = handles;
        let mut boxes = std::mem::take(&mut self.live_aabbs);
        boxes.clear();
        boxes.extend(self.dense.iter().map(|e| e.aabb));
        let sweep = Instant::now();
        self.broad.pairs_of(&boxes, &self.handles, &mut self.pairs);
        self.sweep_time = sweep.elapsed();
        (self.live_aabbs, self.partners) = (boxes, resting);
    }

    /// Merges `more` (in handle order, no handle in the dense set) into the dense set in
    /// place, from the back (each entry moved once, by a swap: the posed volumes, which may
    /// hold a surface's `Arc`, are never cloned); `more` is left holding what was swapped out.
    /// `moved[k]` becomes the new dense index of the entry that was at `k`.
    fn spread(&mut self, more: &mut [Made], moved: &mut Vec<u32>) {
        let old = self.dense.len();
        moved.clear();
        moved.extend(0..old as u32);
        if more.is_empty() {
            return;
        }
        // The columns grow by `more`'s length; the merge below fills every new place.
        for made in more.iter() {
            self.push(made.clone());
        }
        let (mut i, mut j, mut w) = (old, more.len(), old + more.len());
        while j > 0 {
            w -= 1;
            if i > 0 && self.dense[i - 1].handle > more[j - 1].entry.handle {
                self.dense.swap(i - 1, w);
                self.posed.swap(i - 1, w);
                self.motion.swap(i - 1, w);
                self.flags.swap(i - 1, w);
                self.colliders.swap(i - 1, w);
                moved[i - 1] = w as u32;
                i -= 1;
            } else {
                let made = &mut more[j - 1];
                self.dense[w] = made.entry;
                std::mem::swap(&mut self.posed[w], &mut made.posed);
                self.motion[w] = made.motion;
                self.flags[w] = made.flags;
                self.colliders[w] = made.collider;
                j -= 1;
            }
        }
    }

    /// Lets the posed volumes go once the step is done with them (nothing after the step reads
    /// them): a volume may hold a surface's `Arc`, so dropping a column of them walks it, and
    /// the step that made a large dense set (a level's first, with every static body new)
    /// pays for it rather than the next.
    pub(crate) fn release_volumes(&mut self) {
        self.posed.clear();
    }

    fn clear_dense(&mut self) {
        self.dense.clear();
        self.posed.clear();
        self.motion.clear();
        self.flags.clear();
        self.colliders.clear();
        self.specials = 0;
        self.seamed = 0;
    }

    /// Appends the entries of `handles`, in that order (as [`Self::push`] one by one). With the
    /// parallel feature and several threads, they are made in blocks on rayon's threads and
    /// written in place: each entry reads its own body alone, so the columns are the same.
    fn push_all(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        handles: &[BodyHandle],
        speculative: Option<(Real, Real)>,
    ) {
        // Asked for ahead: the bodies lie several cache lines apart.
        let ahead = SlotAhead::new(bodies, handles);
        let made = |k: usize, h: BodyHandle| {
            ahead.at(k);
            Entry::of(h, &bodies[h], speculative).seamed(active)
        };
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 && handles.len() >= 2 * BODY_BLOCK {
            use rayon::prelude::*;
            // Each block's entries made into a buffer of its own (kept from run to run), then
            // moved into the columns in block order.
            let mut blocks = std::mem::take(&mut self.made_blocks);
            blocks.resize_with(handles.len().div_ceil(BODY_BLOCK), Vec::new);
            (blocks.par_iter_mut())
                .zip(handles.par_chunks(BODY_BLOCK))
                .enumerate()
                .for_each(|(b, (block, handles))| {
                    block.clear();
                    let first = b * BODY_BLOCK;
                    block.extend(handles.iter().enumerate().map(|(k, &h)| made(first + k, h)));
                });
            for block in &mut blocks {
                for made in block.drain(..) {
                    self.push(made);
                }
            }
            self.made_blocks = blocks;
            return;
        }
        for (k, &h) in handles.iter().enumerate() {
            self.push(made(k, h));
        }
    }

    fn push(&mut self, made: Made) {
        self.dense.push(made.entry);
        self.posed.push(made.posed);
        self.motion.push(made.motion);
        self.specials += usize::from(made.flags.special);
        self.seamed += usize::from(made.entry.covered != 0);
        self.flags.push(made.flags);
        self.colliders.push(made.collider);
    }

    /// Adds to the dense set the bodies of `woken` (sleeping when the step began, woken since)
    /// not yet in it, and with `partners`, the resting bodies whose boxes meet a woken body's;
    /// new bodies that woke enter as they were before (asleep). The dense indices of the run's
    /// contacts follow.
    pub(crate) fn include(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        woken: &[BodyHandle],
        partners: bool,
    ) {
        let speculative = self
            .speculative
            .then_some((2.0 * self.half_margin, self.dt));
        let mut extra = std::mem::take(&mut self.partners);
        extra.clear();
        let resting = active.resting();
        for &handle in woken {
            if self.handles.binary_search(&handle).is_err() {
                extra.push(handle);
            }
            if partners {
                let aabb = Entry::of(handle, &bodies[handle], speculative).entry.aabb;
                resting.query(&aabb, |slot| {
                    let h = active.handle_of(slot);
                    if self.handles.binary_search(&h).is_err() {
                        extra.push(h);
                    }
                });
            }
        }
        extra.sort_unstable();
        extra.dedup();
        if !extra.is_empty() {
            let mut sorted_woken = woken.to_vec();
            sorted_woken.sort_unstable();
            let mut added = std::mem::take(&mut self.partner_entries);
            added.clear();
            added.extend(extra.iter().map(|&h| {
                let made = Entry::of(h, &bodies[h], speculative).seamed(active);
                if sorted_woken.binary_search(&h).is_ok() {
                    made.into_sleeper()
                } else {
                    made
                }
            }));
            let mut renumbered = std::mem::take(&mut self.renumbered);
            self.spread(&mut added, &mut renumbered);
            for pair in &mut self.contact_indices {
                *pair = (renumbered[pair.0 as usize], renumbered[pair.1 as usize]);
            }
            self.handles.clear();
            self.handles.extend(self.dense.iter().map(|e| e.handle));
            self.renumbered = renumbered;
            self.partner_entries = added;
        }
        self.partners = extra;
    }

    /// The speculative margin of the pair of bodies `i` and `j`: the configured margin plus how
    /// far the two can close in one step, their relative speed plus both spins' reach, times
    /// `dt`. Two bodies falling side by side close at their relative speed, not the sum of
    /// their speeds (their AABBs, each grown by its own travel, still meet wherever the pair
    /// could).
    #[inline]
    fn pair_margin(&self, i: usize, j: usize) -> Real {
        let relative = (self.motion[i].velocity - self.motion[j].velocity).norm();
        2.0 * self.half_margin + (relative + self.motion[i].spin + self.motion[j].spin) * self.dt
    }

    /// Whether the pair of bodies `i` and `j` is tested this step: one of them moves; or one
    /// is a kinematic body at rest (it may move) and the other is awake; or one was disturbed
    /// and the other sleeps (it may have to wake). Static pairs, and sleeping bodies against
    /// static ones or kinematic ones at rest, are not.
    #[inline]
    fn tested(&self, i: usize, j: usize) -> bool {
        Flags::tested(&self.flags[i], &self.flags[j], || {
            (self.colliders[i], self.colliders[j])
        })
    }

    /// The pairs tested this step, sorted by index, which is handle order: the overlapping
    /// pairs with a live body ([`Self::make_dense`]: every tested pair has one), those tested
    /// kept, the skipped ones dropped.
    fn broad_phase(&mut self) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.retain(|&(i, j)| self.tested(i as usize, j as usize));
        skip(&mut pairs, &self.skipped);
        self.pairs = pairs;
    }

    /// In debug builds: the pairs found are those a sweep of every body finds (the broad
    /// phase before the resting tree), tested and not skipped, as handle pairs.
    #[cfg(debug_assertions)]
    fn check_pairs(
        &self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        speculative: Option<(Real, Real)>,
        skipped: &[(BodyHandle, BodyHandle)],
    ) {
        let all: Vec<Made> = bodies
            .iter()
            .map(|(h, body)| Entry::of(h, body, speculative))
            .collect();
        let boxes: Vec<Aabb> = all.iter().map(|m| m.entry.aabb).collect();
        let mut expected = Vec::new();
        RowSweep::new().pairs_of(&boxes, &mut expected);
        let expected: Vec<(BodyHandle, BodyHandle)> = expected
            .into_iter()
            .filter(|&(i, j)| {
                let (a, b) = (&all[i as usize], &all[j as usize]);
                Flags::tested(&a.flags, &b.flags, || (a.collider, b.collider))
            })
            .map(|(i, j)| (all[i as usize].entry.handle, all[j as usize].entry.handle))
            .filter(|pair| skipped.binary_search(pair).is_err())
            .collect();
        let found: Vec<(BodyHandle, BodyHandle)> = (self.pairs.iter())
            .map(|&(i, j)| (self.handles[i as usize], self.handles[j as usize]))
            .collect();
        debug_assert_eq!(found, expected, "the broad phase missed or invented a pair");
    }

    /// After the sleeping bodies of `woken` woke (the active set not yet told): they and the
    /// resting bodies their boxes meet join the dense set, the pairs skipped this step in
    /// which one of them now moves are tested, and their contacts merged into `contacts` in
    /// pair order.
    pub(crate) fn test_woken(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        active: &Active,
        woken: &[BodyHandle],
        skipped: &[(BodyHandle, BodyHandle)],
        contacts: &mut Vec<ContactPair>,
    ) {
        self.include(bodies, active, woken, true);
        self.index_skipped(skipped);
        let mut flags = std::mem::take(&mut self.woken);
        flags.clear();
        flags.extend(
            self.handles
                .iter()
                .enumerate()
                .map(|(i, &h)| self.flags[i].asleep && !bodies[h].sleep.asleep),
        );
        // The pairs that were not tested and now are (a woken body moves). `tested` reads only
        // its two bodies' flags, and only the woken ones' change: each such pair holds a woken
        // body, so a few woken bodies' boxes are compared with every box of the dense set;
        // many, and all pairs of the dense set are swept again.
        let mut pairs = self.overlapping_woken(&flags);
        pairs.retain(|&(i, j)| !self.tested(i as usize, j as usize));
        for (i, &w) in flags.iter().enumerate() {
            if w {
                self.flags[i].asleep = false;
                self.flags[i].moving = true;
            }
        }
        self.woken = flags;
        pairs.retain(|&(i, j)| self.tested(i as usize, j as usize));
        skip(&mut pairs, &self.skipped);
        if pairs.is_empty() {
            return;
        }
        let (mut found, mut found_indices) = (Vec::new(), Vec::new());
        // Nothing sleeps in these pairs any more: nothing to wake. Their contacts are
        // computed, and not kept (a kept contact would have to be merged into the run's list):
        // the next step computes them again and keeps them.
        self.test_pairs(
            &pairs,
            &mut found,
            &mut found_indices,
            &mut Vec::new(),
            None,
            None,
        );
        merge_from_back(
            contacts,
            &mut self.contact_indices,
            &mut found,
            &found_indices,
        );
    }

    /// The overlapping pairs of the dense set with a body flagged in `woken` (sorted, lower
    /// index first, each once): every overlapping pair when more than [`FEW_WOKEN`] are.
    fn overlapping_woken(&mut self, woken: &[bool]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        if woken.iter().filter(|&&w| w).count() > FEW_WOKEN {
            let boxes: Vec<Aabb> = self.dense.iter().map(|e| e.aabb).collect();
            self.broad.sweep.pairs_of_others(&boxes, &mut pairs);
        } else {
            pairs_with_flagged(|k| self.dense[k].aabb, woken, &mut pairs);
        }
        pairs
    }

    /// Seed 004's staged filter on each pair of `pairs`; with a margin, each pair's margin is
    /// the sum of its two bodies' reaches. Contacts go to `contacts`, their bodies' indices to
    /// `indices`, in the order of `pairs`; a sleeping body found within reach of a moving or
    /// disturbed one goes to `wake`. With the parallel feature and several threads, blocks of
    /// pairs are tested on rayon's threads and their findings joined in order: the same
    /// contacts in the same order as on one thread. With `reuse`, kept contacts are reused
    /// where the pair moved little, and this run's go to its list. With `axes`, the
    /// polyhedra's pairs try the cached axes of the first list first, and leave theirs in the
    /// second, in pair order (a pair that reuses its contact carries its own over).
    fn test_pairs(
        &mut self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
        reuse: Option<(Reuse<'_>, &mut KeptDraft)>,
        axes: Option<(&[CachedAxis], &mut Vec<CachedAxis>)>,
    ) {
        let (axes_before, axes_after) = match axes {
            Some((before, after)) => (Some(before), Some(after)),
            None => (None, None),
        };
        let (reuse, kept) = match reuse {
            Some((reuse, kept)) => (Some(reuse), Some(kept)),
            None => (None, None),
        };
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 && pairs.len() >= 2 * PAIR_BLOCK {
            use rayon::prelude::*;
            let blocks = pairs.len().div_ceil(PAIR_BLOCK);
            let mut found = std::mem::take(&mut self.found);
            found.resize_with(blocks, Found::default);
            let this = &*self;
            found[..blocks]
                .par_iter_mut()
                .zip(pairs.par_chunks(PAIR_BLOCK))
                .for_each(|(found, pairs)| {
                    found.contacts.clear();
                    found.indices.clear();
                    found.wake.clear();
                    found.kept.clear();
                    found.axes.clear();
                    (found.counts, found.reused) = this.test_block(
                        pairs,
                        &mut found.contacts,
                        &mut found.indices,
                        &mut found.wake,
                        reuse.map(|r| (r, &mut found.kept)),
                        axes_before.map(|before| (before, &mut found.axes)),
                    );
                });
            let (mut kept, mut axes_after) = (kept, axes_after);
            for found in &mut found[..blocks] {
                contacts.append(&mut found.contacts);
                indices.append(&mut found.indices);
                wake.append(&mut found.wake);
                if let Some(kept) = kept.as_deref_mut() {
                    kept.append(&mut found.kept);
                }
                if let Some(after) = axes_after.as_deref_mut() {
                    after.append(&mut found.axes);
                }
                add_counts(&mut self.stage_counts, &found.counts);
                self.reused += found.reused;
            }
            self.found = found;
            return;
        }
        let axes = axes_before.zip(axes_after);
        let (counts, reused) =
            self.test_block(pairs, contacts, indices, wake, reuse.zip(kept), axes);
        add_counts(&mut self.stage_counts, &counts);
        self.reused += reused;
    }

    /// [`Self::test_pairs`] on one block of pairs, on this thread: what each stage did, and
    /// how many pairs reused their kept contact. With a margin (the solver) the pairs go
    /// through [`Self::test_block_within`]; without (seed 003's reflection, which neither
    /// reuses contacts nor caches axes) one at a time.
    fn test_block(
        &self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
        reuse: Option<(Reuse<'_>, &mut KeptDraft)>,
        axes: Option<(&[CachedAxis], &mut Vec<CachedAxis>)>,
    ) -> (StageCounts, usize) {
        if self.speculative {
            return self.test_block_within(pairs, contacts, indices, wake, reuse, axes);
        }
        debug_assert!(reuse.is_none() && axes.is_none(), "the solver's alone");
        let mut filter = StagedFilter::new();
        for &(i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (self.handles[i], self.handles[j]);
            let found_so_far = contacts.len();
            if has_several_manifolds(&self.posed[i].volume, &self.posed[j].volume) {
                filter.contacts_of(&self.posed[i], &self.posed[j], 0.0, |contact| {
                    if !self.through_seam(i, j, &contact) {
                        contacts.push(ContactPair { a, b, contact });
                    }
                });
            } else if let Some(contact) = filter.contact(&self.posed[i], &self.posed[j])
                && !self.through_seam(i, j, &contact)
            {
                contacts.push(ContactPair { a, b, contact });
            }
            if contacts.len() > found_so_far {
                self.wake_sleeper(i, j, &contacts[found_so_far].contact, wake);
            }
            for _ in found_so_far..contacts.len() {
                indices.push((i as u32, j as u32));
            }
        }
        (filter.counts, 0)
    }

    /// [`Self::test_block`] with a margin (the solver's): the pairs go through the staged
    /// filter a window at a time ([`StagedFilter::contacts_within`], which tests the box pairs
    /// among them eight at a time in SIMD lanes). The same contacts, in the same order, as one
    /// pair at a time.
    ///
    /// With `axes`, each pair's cached axes (one per pair of parts) are found in the first
    /// list (sorted by pair, one merge walk) and handed to the filter, and the axes it leaves
    /// go to the second.
    ///
    /// With `reuse` (contact reuse, as Box3D's contact recycling), a pair with one manifold
    /// whose relative pose has drifted less than the reuse distance since its kept contact was
    /// computed keeps that contact, carried with the bodies, and is not tested; its cached
    /// axes are carried over as they are (Box3D keeps a recycled contact's cache). The others
    /// are tested as above, and each contact computed for a pair with one manifold is kept
    /// for the next runs. Returns what each stage did and how many pairs reused their contact.
    fn test_block_within(
        &self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
        mut reuse: Option<(Reuse<'_>, &mut KeptDraft)>,
        mut axes: Option<(&[CachedAxis], &mut Vec<CachedAxis>)>,
    ) -> (StageCounts, usize) {
        let mut filter = StagedFilter::new();
        let handles_of = |(i, j): (u32, u32)| (self.handles[i as usize], self.handles[j as usize]);
        // Both lists are sorted by pair, as `pairs` are: one merge walk each from the first.
        let first = pairs.first().map(|&pair| handles_of(pair));
        let mut cursor = match (&axes, first) {
            (Some((before, _)), Some(first)) => before.partition_point(|e| (e.a, e.b) < first),
            _ => 0,
        };
        let mut kept_cursor = match (&reuse, first) {
            (Some((r, _)), Some(first)) => r.before.partition_point(|k| (k.a, k.b) < first),
            _ => 0,
        };
        let mut reused = 0;
        let (mut held, mut left, mut carried) = (Vec::new(), Vec::new(), Vec::new());
        // (Filled per window where read, with reuse; made once for the block.)
        let mut relatives = [Isometry3::identity(); PAIR_WINDOW];
        for window in pairs.chunks(PAIR_WINDOW) {
            // Which pairs keep their contact (the index of their kept entry), and the others,
            // which are tested; with reuse, each pair's relative pose (its second body's in
            // the first's frame), read again by a kept contact and a computed one.
            let mut keeps = [None; PAIR_WINDOW];
            if let Some((r, _)) = &reuse {
                for (k, &(i, j)) in window.iter().enumerate() {
                    let (i, j) = (i as usize, j as usize);
                    if has_several_manifolds(&self.posed[i].volume, &self.posed[j].volume) {
                        continue;
                    }
                    let key = handles_of(window[k]);
                    while r.before.get(kept_cursor).is_some_and(|e| (e.a, e.b) < key) {
                        kept_cursor += 1;
                    }
                    let relative = self.dense[i].pose.inv_mul(&self.dense[j].pose);
                    relatives[k] = relative;
                    keeps[k] = r.before.get(kept_cursor).and_then(|e| {
                        ((e.a, e.b) == key && e.drift(&relative, self.dense[j].radius) < r.distance)
                            .then_some(kept_cursor as u32)
                    });
                }
            }
            let tested: ArrayVec<usize, PAIR_WINDOW> =
                (0..window.len()).filter(|&k| keeps[k].is_none()).collect();
            let posed: ArrayVec<_, PAIR_WINDOW> = tested
                .iter()
                .map(|&k| {
                    let (i, j) = (window[k].0 as usize, window[k].1 as usize);
                    (&self.posed[i], &self.posed[j], self.pair_margin(i, j))
                })
                .collect();
            // The window's contacts in pair order: a kept pair's before the next tested
            // pair's (`upto`, the window's pairs before it not yet given theirs).
            let mut upto = 0;
            let mut emit = |k_end: usize, computed: Option<(usize, Contact)>| {
                for k in upto..k_end {
                    let (Some(index), Some((r, draft))) = (keeps[k], reuse.as_mut()) else {
                        continue;
                    };
                    let (i, j) = (window[k].0 as usize, window[k].1 as usize);
                    let (pose_a, relative) = (&self.dense[i].pose, &relatives[k]);
                    // Written straight into the list: a contact returned by value and then
                    // pushed is copied twice through the stack.
                    let (a, b) = handles_of(window[k]);
                    contacts.push(ContactPair {
                        a,
                        b,
                        contact: Contact {
                            normal: Vector3::zeros(),
                            depth: 0.0,
                            points: ArrayVec::new(),
                        },
                    });
                    reused += 1;
                    let old = &r.before[index as usize];
                    let last = contacts.len() - 1;
                    let margin = self.pair_margin(i, j);
                    if old.contact_into(pose_a, relative, margin, &mut contacts[last].contact)
                        && !self.through_seam(i, j, &contacts[last].contact)
                    {
                        draft.order.push(KeptFrom::Reused(index));
                        self.wake_sleeper(i, j, &contacts[last].contact, wake);
                        indices.push(window[k]);
                    } else {
                        contacts.pop();
                    }
                }
                upto = upto.max(k_end);
                let Some((k, contact)) = computed else {
                    return;
                };
                let (i, j) = (window[k].0 as usize, window[k].1 as usize);
                if self.through_seam(i, j, &contact) {
                    return;
                }
                let (a, b) = handles_of(window[k]);
                if let Some((_, draft)) = reuse.as_mut()
                    && !has_several_manifolds(&self.posed[i].volume, &self.posed[j].volume)
                {
                    let (pose_a, pose_b) = (&self.dense[i].pose, &self.dense[j].pose);
                    let new = KeptContact::new((a, b), &contact, (pose_a, pose_b), relatives[k]);
                    if new.is_sound((self.dense[i].radius, self.dense[j].radius)) {
                        draft.order.push(KeptFrom::Computed);
                        draft.computed.push(new);
                    }
                }
                self.wake_sleeper(i, j, &contact, wake);
                contacts.push(ContactPair { a, b, contact });
                indices.push(window[k]);
                upto = upto.max(k + 1);
            };
            let mut found =
                |t: usize, contact: Contact| emit(tested[t], Some((tested[t], contact)));
            let Some((before, after)) = axes.as_mut() else {
                filter.contacts_within(&posed, &mut found);
                emit(window.len(), None);
                continue;
            };
            // Each pair's entries (one per pair of parts), copied without their handles for a
            // tested pair, carried over as they are for a kept one.
            held.clear();
            carried.clear();
            let mut ranges = ArrayVec::<(usize, usize), PAIR_WINDOW>::new();
            for (k, &pair) in window.iter().enumerate() {
                let key = handles_of(pair);
                while before.get(cursor).is_some_and(|e| (e.a, e.b) < key) {
                    cursor += 1;
                }
                let start = held.len();
                while let Some(e) = before.get(cursor).filter(|e| (e.a, e.b) == key) {
                    if keeps[k].is_some() {
                        carried.push((k, *e));
                    } else {
                        held.push(e.held());
                    }
                    cursor += 1;
                }
                if keeps[k].is_none() {
                    ranges.push((start, held.len()));
                }
            }
            let lists: ArrayVec<&[PartAxis], PAIR_WINDOW> = ranges
                .iter()
                .map(|&(start, end)| &held[start..end])
                .collect();
            left.clear();
            filter.contacts_within_cached(&posed, &lists, &mut left, &mut found);
            emit(window.len(), None);
            // This run's axes in pair order: the tested pairs' left, the kept pairs' carried.
            let mut carried = carried.iter().peekable();
            for &(t, axis) in &left {
                let k = tested[t];
                while let Some((_, e)) = carried.next_if(|(c, _)| *c < k) {
                    after.push(*e);
                }
                let (a, b) = handles_of(window[k]);
                after.push(CachedAxis::new(a, b, axis));
            }
            after.extend(carried.map(|(_, e)| *e));
        }
        (filter.counts, reused)
    }

    /// Whether the contact of bodies `i` and `j` points out through an internal face of one
    /// of them (a static box flush with another: `step::seams`), and is dropped.
    #[inline]
    fn through_seam(&self, i: usize, j: usize, contact: &Contact) -> bool {
        // (Most dense sets have no box with internal faces: nothing to read then.)
        if self.seamed == 0 {
            return false;
        }
        let (a, b) = (&self.dense[i], &self.dense[j]);
        (a.covered != 0 && seams::through_seam(contact, &a.pose, a.covered, true))
            || (b.covered != 0 && seams::through_seam(contact, &b.pose, b.covered, false))
    }

    /// After bodies `i` and `j` were found to meet in `contact`: if one sleeps and the other
    /// moves (or was disturbed), the sleeper goes to `wake` when it can be reached within the
    /// step.
    fn wake_sleeper(&self, i: usize, j: usize, contact: &Contact, wake: &mut Vec<BodyHandle>) {
        if self.flags[i].asleep == self.flags[j].asleep {
            return;
        }
        let (sleeper, mover) = if self.flags[i].asleep { (i, j) } else { (j, i) };
        let travel = if self.speculative {
            self.dense[mover].reach - self.half_margin
        } else {
            0.0
        };
        let deepest = contact
            .points
            .iter()
            .map(|p| p.depth)
            .fold(Real::MIN, Real::max);
        if deepest + travel >= 0.0 {
            wake.push(self.handles[sleeper]);
        }
    }
}

/// Contact reuse in a run: the reuse distance and the last run's kept contacts.
#[derive(Debug, Clone, Copy)]
struct Reuse<'a> {
    distance: Real,
    before: &'a [KeptContact],
}

/// Where a kept contact of a run comes from: the last run's entry at an index (reused) or the
/// run's next computed entry (they are taken in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeptFrom {
    Reused(u32),
    Computed,
}

/// A run's kept contacts as the narrow phase decided them, in pair order: which of the last
/// run's it reuses and which it computed. Reused entries stay where they are: a run that
/// reuses every entry of the last one leaves the list as it is, and any other run moves the
/// reused entries into a new list (never copying them through a pair's test).
#[derive(Debug, Clone, Default)]
pub(crate) struct KeptDraft {
    order: Vec<KeptFrom>,
    computed: Vec<KeptContact>,
}

impl KeptDraft {
    fn clear(&mut self) {
        self.order.clear();
        self.computed.clear();
    }

    /// Appends `other`'s entries (those of the blocks of pairs after this one's).
    #[cfg(feature = "parallel")]
    fn append(&mut self, other: &mut KeptDraft) {
        self.order.append(&mut other.order);
        self.computed.append(&mut other.computed);
    }

    /// Makes `kept`, the last run's kept contacts, this run's; `spare` is a buffer. The
    /// reused indices increase along the order (pairs and kept contacts are both sorted by
    /// pair); the computed ones are taken in order.
    fn apply(&mut self, kept: &mut Vec<KeptContact>, spare: &mut Vec<KeptContact>) {
        let unchanged = self.computed.is_empty()
            && self.order.len() == kept.len()
            && (self.order.iter().enumerate()).all(|(k, &from)| from == KeptFrom::Reused(k as u32));
        if unchanged {
            return;
        }
        spare.clear();
        let mut old = kept.drain(..);
        let mut next_old = 0;
        let mut computed = self.computed.drain(..);
        for &from in &self.order {
            let entry = match from {
                KeptFrom::Reused(k) => {
                    let k = k as usize;
                    debug_assert!(k >= next_old, "reused entries out of order");
                    let entry = old.nth(k - next_old);
                    next_old = k + 1;
                    entry
                }
                KeptFrom::Computed => computed.next(),
            };
            spare.extend(entry);
        }
        drop(old);
        std::mem::swap(kept, spare);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slotmap::KeyData;

    /// A kept contact of the pair `(a, b)` (handles made from numbers), told apart by its
    /// normal's `x`.
    fn entry(a: u64, b: u64, tag: Real) -> KeptContact {
        let handle = |k: u64| BodyHandle::from(KeyData::from_ffi((1 << 32) | k));
        KeptContact {
            a: handle(a),
            b: handle(b),
            relative: Isometry3::identity(),
            normal: Vector3::new(tag, 0.0, 0.0),
            points: ArrayVec::new(),
        }
    }

    #[test]
    fn a_draft_keeps_reused_entries_and_inserts_computed_ones_in_order() {
        let mut kept = vec![entry(0, 1, 0.0), entry(0, 2, 1.0), entry(1, 2, 2.0)];
        let mut spare = Vec::new();
        // The pair (0, 1) lost its contact, (0, 2) was reused, (0, 3) is new, (1, 2) was
        // computed again.
        let mut draft = KeptDraft {
            order: vec![KeptFrom::Reused(1), KeptFrom::Computed, KeptFrom::Computed],
            computed: vec![entry(0, 3, 10.0), entry(1, 2, 11.0)],
        };
        draft.apply(&mut kept, &mut spare);
        assert_eq!(
            kept,
            [entry(0, 2, 1.0), entry(0, 3, 10.0), entry(1, 2, 11.0)]
        );
        assert!(draft.computed.is_empty());
    }

    #[test]
    fn a_draft_that_reuses_every_entry_leaves_the_list_in_place() {
        let mut kept = vec![entry(0, 1, 0.0), entry(0, 2, 1.0)];
        let (address, before) = (kept.as_ptr(), kept.clone());
        let mut draft = KeptDraft {
            order: vec![KeptFrom::Reused(0), KeptFrom::Reused(1)],
            computed: Vec::new(),
        };
        draft.apply(&mut kept, &mut Vec::new());
        assert_eq!(kept, before);
        assert_eq!(kept.as_ptr(), address, "the list was copied");
        // Every entry reused but the last: a shorter list.
        draft.order.pop();
        draft.apply(&mut kept, &mut Vec::new());
        assert_eq!(kept, before[..1]);
    }

    #[test]
    fn the_pairs_with_a_flagged_box_are_the_broad_phases_pairs_with_one() {
        // Boxes scattered by a fixed LCG, some of them NaN, infinite or inverted, and a few
        // flagged: the same pairs as the sweep's that hold a flagged box.
        let mut seed = 12345_u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as Real / (1 << 24) as Real
        };
        let mut boxes = Vec::new();
        for k in 0..600 {
            let mins = Vector3::new(next(), next(), next()) * 10.0;
            let size = Vector3::new(next(), next(), next()) * 1.5;
            let mut aabb = Aabb::new(mins.into(), (mins + size).into());
            match k % 97 {
                0 => aabb.mins.x = Real::NAN,
                1 => aabb.maxs.y = Real::INFINITY,
                2 => std::mem::swap(&mut aabb.mins, &mut aabb.maxs),
                _ => {}
            }
            boxes.push(aabb);
        }
        let mut all = Vec::new();
        RowSweep::new().pairs_of(&boxes, &mut all);
        for flagged_every in [1, 7, 50, 601] {
            let flagged: Vec<bool> = (0..boxes.len())
                .map(|k| k % flagged_every < 1 || k == 300)
                .collect();
            let mut pairs = vec![(7, 7)];
            pairs_with_flagged(|k| boxes[k], &flagged, &mut pairs);
            let expected: Vec<(u32, u32)> = all
                .iter()
                .copied()
                .filter(|&(i, j)| flagged[i as usize] || flagged[j as usize])
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(pairs, expected, "flagged every {flagged_every}");
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn appended_drafts_keep_their_entries_in_order() {
        let mut first = KeptDraft {
            order: vec![KeptFrom::Computed, KeptFrom::Reused(0)],
            computed: vec![entry(0, 1, 10.0)],
        };
        let mut second = KeptDraft {
            order: vec![KeptFrom::Reused(1), KeptFrom::Computed],
            computed: vec![entry(2, 3, 11.0)],
        };
        first.append(&mut second);
        assert_eq!(
            first.order,
            [
                KeptFrom::Computed,
                KeptFrom::Reused(0),
                KeptFrom::Reused(1),
                KeptFrom::Computed
            ]
        );
        assert!(second.order.is_empty() && second.computed.is_empty());
        let mut kept = vec![entry(0, 2, 0.0), entry(1, 2, 1.0)];
        first.apply(&mut kept, &mut Vec::new());
        let tags: Vec<Real> = kept.iter().map(|k| k.normal.x).collect();
        assert_eq!(tags, [10.0, 0.0, 1.0, 11.0]);
    }
}
