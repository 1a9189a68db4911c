//! Collision detection for a step: every collider's world volume and AABB, densely in handle
//! order; the broad phase's overlapping pairs; the staged narrow phase's contacts. Pairs in
//! which nothing moves (sleeping against sleeping or static) are not tested. The narrow phase
//! runs in blocks of pairs on rayon's threads when there are several; the contacts come out in
//! pair order either way.
//!
//! With contact reuse (`SolverConfig::reuse_distance`), a pair whose relative pose has
//! moved less than the reuse distance since its contact was computed keeps that contact,
//! carried with the bodies (`KeptContact`), and skips the narrow phase.

use super::sleep::is_awake_movable;
use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::contact::{ContactPair, KeptContact};
use arrayvec::ArrayVec;
use collide::Contact;
use collide::broad::RowSweep;
use collide::staged::{Posed, StageCounts, StagedFilter};
use geom::{Aabb, Isometry3, Real, Vector3};
use slotmap::SlotMap;

/// Pairs per block handed to a thread in the narrow phase.
#[cfg(feature = "parallel")]
const PAIR_BLOCK: usize = 256;

/// Pairs handed to the staged filter at a time when it tests them in windows
/// ([`Collision::test_block_within`]).
const PAIR_WINDOW: usize = 64;

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
}

/// Adds `more`'s counts to `total`'s.
fn add_counts(total: &mut StageCounts, more: &StageCounts) {
    total.pairs += more.pairs;
    total.rejected_by_sphere += more.rejected_by_sphere;
    total.rejected_by_aabb += more.rejected_by_aabb;
    total.rejected_by_exact += more.rejected_by_exact;
    total.touching += more.touching;
}

/// `v[k] = value`, or pushed when `k` is `v`'s length.
fn set<T>(v: &mut Vec<T>, k: usize, value: T) {
    if k < v.len() {
        v[k] = value;
    } else {
        debug_assert_eq!(k, v.len());
        v.push(value);
    }
}

/// The collision stage's buffers, refilled every step but for sleeping bodies' volumes (never
/// saved, never change a result).
/// Index `i` of `handles`, `posed`, `aabbs` and `movable` is the `i`-th body in handle order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Collision {
    broad: RowSweep,
    pub(crate) handles: Vec<BodyHandle>,
    posed: Vec<Posed>,
    /// Per body, its collider's world pose (what contact reuse carries kept points with) and
    /// its shape's bounding radius about the collider's origin.
    poses: Vec<Isometry3>,
    radii: Vec<Real>,
    aabbs: Vec<Aabb>,
    /// Per body: moves this step (awake dynamic, or kinematic with a velocity), is a kinematic
    /// body at rest, sleeps, was disturbed.
    moving: Vec<bool>,
    resting_kinematic: Vec<bool>,
    asleep: Vec<bool>,
    disturbed: Vec<bool>,
    /// Overlapping pairs of indices into the vectors above.
    pairs: Vec<(u32, u32)>,
    /// Pairs never tested (jointed bodies that do not collide), indices as above, sorted.
    skipped: Vec<(u32, u32)>,
    /// Per body, half the margin plus how far it can travel in one step (metres): how far a
    /// moving body reaches a sleeping one it may wake.
    reach: Vec<Real>,
    /// Per body, the velocity it moves with this step (zero for a static body) and how fast a
    /// point of it can move about its centre (spin times bounding radius): a pair's margin
    /// grows by how far the two can close in one step ([`Self::pair_margin`]).
    velocities: Vec<Vector3>,
    spins: Vec<Real>,
    half_margin: Real,
    dt: Real,
    /// For each contact of the last run, the indices of its two bodies.
    pub(crate) contact_indices: Vec<(u32, u32)>,
    /// The bodies swept by the last broad phase (indices, increasing) and their AABBs.
    candidates: Vec<u32>,
    candidate_aabbs: Vec<Aabb>,
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
    /// Per block of pairs tested on a thread of its own, what it found.
    #[cfg(feature = "parallel")]
    found: Vec<Found>,
}

impl Collision {
    /// Fills `contacts` with the touching pairs of `bodies`, in handle order. With
    /// `speculative = Some(margin, dt)`, pairs closer than `margin` plus the distance the two
    /// bodies can cover in `dt` are reported too, their gaps as negative depths. Pairs in which
    /// nothing moves (sleeping or static bodies) are not tested. `wake` receives the sleeping
    /// bodies that a moving or disturbed body can reach within the step. With
    /// `reuse = Some((distance, kept))`, `kept` holds the kept contacts of the last run
    /// (sorted by pair), which pairs that moved less than `distance` reuse, and is replaced by
    /// this run's: one per pair with a contact (reused or computed). The pairs of `skipped`
    /// (sorted, lower handle first: jointed bodies that do not collide) are never tested.
    pub(crate) fn run(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &mut Vec<ContactPair>,
        speculative: Option<(Real, Real)>,
        wake: &mut Vec<BodyHandle>,
        reuse: Option<(Real, &mut Vec<KeptContact>)>,
        skipped: &[(BodyHandle, BodyHandle)],
    ) {
        self.update_volumes(bodies, speculative);
        // Dense indices follow handle order, so the pairs stay sorted.
        self.skipped.clear();
        let handles = &self.handles;
        let index = |h: &BodyHandle| handles.binary_search(h).ok().map(|i| i as u32);
        self.skipped.extend(
            skipped
                .iter()
                .filter_map(|(a, b)| Some((index(a)?, index(b)?))),
        );
        self.broad_phase();
        contacts.clear();
        self.contact_indices.clear();
        self.stage_counts = StageCounts::default();
        self.reused = 0;
        wake.clear();
        let pairs = std::mem::take(&mut self.pairs);
        let mut indices = std::mem::take(&mut self.contact_indices);
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
                );
                draft.apply(kept, &mut self.kept_before);
                self.draft = draft;
            }
            None => self.test_pairs(&pairs, contacts, &mut indices, wake, None),
        }
        (self.pairs, self.contact_indices) = (pairs, indices);
    }

    /// World volumes and AABBs, densely in handle order (the order slots are visited). With
    /// speculative contacts, each AABB grows by half the margin and how far its spin can carry
    /// a point (spin times bounding radius, times `dt`) all round, and is then swept along the
    /// step's translation (`v dt`), so that two AABBs meet whenever the bodies could within the
    /// step at their velocities; two bodies flying apart are not paired. A body that slept
    /// through the last run at the same index, with the same margin, keeps its volumes and its
    /// (zero) velocity and spin: a sleeping body does not move (every setter wakes it), so they
    /// are the ones it would get.
    fn update_volumes(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        speculative: Option<(Real, Real)>,
    ) {
        let half_margin = speculative.map(|(margin, _)| 0.5 * margin);
        let same_margin = self.speculative && half_margin == Some(self.half_margin);
        self.moving.clear();
        self.resting_kinematic.clear();
        self.disturbed.clear();
        self.speculative = speculative.is_some();
        if let Some((margin, dt)) = speculative {
            self.half_margin = 0.5 * margin;
            self.dt = dt;
        }
        for (k, (handle, body)) in bodies.iter().enumerate() {
            debug_assert!(k == 0 || self.handles[k - 1] < handle);
            let posed_now = |pose: &Isometry3| Posed::new(&body.collider.shape, pose);
            let kept = same_margin
                && body.sleep.asleep
                && self.handles.get(k) == Some(&handle)
                && self.asleep[k];
            debug_assert!(
                !kept
                    || posed_now(&body.collider.world_pose(&body.pose)).aabb == self.posed[k].aabb,
                "a sleeping body moved"
            );
            if !kept {
                let pose = body.collider.world_pose(&body.pose);
                let posed = posed_now(&pose);
                let (velocity, spin) = if body.kind == BodyKind::Static {
                    (Vector3::zeros(), 0.0)
                } else {
                    (body.linvel, body.angvel.norm() * posed.sphere.radius)
                };
                let (aabb, reach) = match speculative {
                    None => (posed.aabb, 0.0),
                    Some((margin, dt)) => {
                        // Grown by half the margin and the spin's reach all round, then swept
                        // along the step's translation: wherever the body can be in the step.
                        let grown = posed.aabb.loosened(0.5 * margin + spin * dt);
                        let swept = grown.merged(&grown.translated(&(velocity * dt)));
                        (swept, 0.5 * margin + (velocity.norm() + spin) * dt)
                    }
                };
                set(&mut self.handles, k, handle);
                set(&mut self.posed, k, posed);
                set(&mut self.poses, k, pose);
                set(&mut self.radii, k, body.collider.shape.bounding_radius());
                set(&mut self.aabbs, k, aabb);
                set(&mut self.reach, k, reach);
                set(&mut self.velocities, k, velocity);
                set(&mut self.spins, k, spin);
            }
            set(&mut self.asleep, k, body.sleep.asleep);
            let moving = is_awake_movable(body);
            self.moving.push(moving);
            self.resting_kinematic
                .push(body.kind == BodyKind::Kinematic && !moving);
            self.disturbed.push(body.sleep.disturbed);
        }
        let count = bodies.len();
        self.handles.truncate(count);
        self.posed.truncate(count);
        self.poses.truncate(count);
        self.radii.truncate(count);
        self.aabbs.truncate(count);
        self.reach.truncate(count);
        self.velocities.truncate(count);
        self.spins.truncate(count);
        self.asleep.truncate(count);
    }

    /// The speculative margin of the pair of bodies `i` and `j`: the configured margin plus how
    /// far the two can close in one step, their relative speed plus both spins' reach, times
    /// `dt`. Two bodies falling side by side close at their relative speed, not the sum of
    /// their speeds (their AABBs, each grown by its own travel, still meet wherever the pair
    /// could).
    #[inline]
    fn pair_margin(&self, i: usize, j: usize) -> Real {
        let relative = (self.velocities[i] - self.velocities[j]).norm();
        2.0 * self.half_margin + (relative + self.spins[i] + self.spins[j]) * self.dt
    }

    /// Whether the pair of bodies `i` and `j` is tested this step: one of them moves; or one
    /// is a kinematic body at rest (it may move) and the other is awake; or one was disturbed
    /// and the other sleeps (it may have to wake). Static pairs, and sleeping bodies against
    /// static ones or kinematic ones at rest, are not.
    #[inline]
    fn tested(&self, i: usize, j: usize) -> bool {
        let awake_or_disturbed = |k: usize, other: usize| {
            (self.resting_kinematic[k] && !self.asleep[other])
                || (self.disturbed[k] && self.asleep[other])
        };
        self.moving[i] || self.moving[j] || awake_or_disturbed(i, j) || awake_or_disturbed(j, i)
    }

    /// The pairs tested this step, sorted by index, which is handle order. Every tested pair
    /// has a body that moves, is a kinematic body at rest, or was disturbed (an *active* body),
    /// and its other body's AABB meets that one's, so within the box bounding the active
    /// bodies' AABBs: only the bodies whose AABBs meet that box are swept. In a world that
    /// mostly sleeps that is a few bodies, not all of them; when everything is awake it is all
    /// of them, swept as they are.
    fn broad_phase(&mut self) {
        let mut pairs = std::mem::take(&mut self.pairs);
        let active = |k: usize| self.moving[k] || self.resting_kinematic[k] || self.disturbed[k];
        let mut reach: Option<Aabb> = None;
        for (k, aabb) in self.aabbs.iter().enumerate() {
            if active(k) {
                reach = Some(reach.map_or(*aabb, |r| r.merged(aabb)));
            }
        }
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        if let Some(reach) = reach {
            candidates.extend(
                (0..self.aabbs.len() as u32).filter(|&k| self.aabbs[k as usize].intersects(&reach)),
            );
        }
        if candidates.len() == self.aabbs.len() {
            self.broad.pairs_of(&self.aabbs, &mut pairs);
        } else {
            let mut boxes = std::mem::take(&mut self.candidate_aabbs);
            boxes.clear();
            boxes.extend(candidates.iter().map(|&k| self.aabbs[k as usize]));
            self.broad.pairs_of(&boxes, &mut pairs);
            // `candidates` is increasing, so the pairs stay sorted and `i < j`.
            for pair in &mut pairs {
                *pair = (candidates[pair.0 as usize], candidates[pair.1 as usize]);
            }
            self.candidate_aabbs = boxes;
        }
        self.candidates = candidates;
        pairs.retain(|&(i, j)| self.tested(i as usize, j as usize));
        skip(&mut pairs, &self.skipped);
        #[cfg(debug_assertions)]
        {
            let mut all = Vec::new();
            RowSweep::new().pairs_of(&self.aabbs, &mut all);
            all.retain(|&(i, j)| self.tested(i as usize, j as usize));
            skip(&mut all, &self.skipped);
            debug_assert_eq!(all, pairs, "the active bodies' sweep missed a pair");
        }
        self.pairs = pairs;
    }

    /// After some sleeping bodies woke (`bodies` says which): tests the pairs skipped this step
    /// in which one of them now moves, and merges their contacts into `contacts` in pair
    /// order.
    pub(crate) fn test_woken(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &mut Vec<ContactPair>,
    ) {
        let mut woken = std::mem::take(&mut self.woken);
        woken.clear();
        woken.extend(
            bodies
                .values()
                .enumerate()
                .map(|(i, body)| self.asleep[i] && !body.sleep.asleep),
        );
        // Waking is rare (an event, not a state): all pairs are swept again, and those that
        // were not tested and now are (a woken body moves) are tested.
        let mut pairs = Vec::new();
        self.broad.pairs_of(&self.aabbs, &mut pairs);
        pairs.retain(|&(i, j)| !self.tested(i as usize, j as usize));
        for (i, &w) in woken.iter().enumerate() {
            if w {
                self.asleep[i] = false;
                self.moving[i] = true;
            }
        }
        self.woken = woken;
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
        );
        let old = std::mem::take(contacts);
        let old_indices = std::mem::take(&mut self.contact_indices);
        let mut new = found.into_iter().zip(found_indices).peekable();
        for (pair, indices) in old.into_iter().zip(old_indices) {
            while let Some((p, k)) = new.next_if(|&(_, k)| k < indices) {
                contacts.push(p);
                self.contact_indices.push(k);
            }
            contacts.push(pair);
            self.contact_indices.push(indices);
        }
        for (p, k) in new {
            contacts.push(p);
            self.contact_indices.push(k);
        }
    }

    /// Seed 004's staged filter on each pair of `pairs`; with a margin, each pair's margin is
    /// the sum of its two bodies' reaches. Contacts go to `contacts`, their bodies' indices to
    /// `indices`, in the order of `pairs`; a sleeping body found within reach of a moving or
    /// disturbed one goes to `wake`. With the parallel feature and several threads, blocks of
    /// pairs are tested on rayon's threads and their findings joined in order: the same
    /// contacts in the same order as on one thread. With `reuse`, kept contacts are reused
    /// where the pair moved little, and this run's go to its list.
    fn test_pairs(
        &mut self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
        reuse: Option<(Reuse<'_>, &mut KeptDraft)>,
    ) {
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
                    (found.counts, found.reused) = this.test_block(
                        pairs,
                        &mut found.contacts,
                        &mut found.indices,
                        &mut found.wake,
                        reuse.map(|r| (r, &mut found.kept)),
                    );
                });
            let mut kept = kept;
            for found in &mut found[..blocks] {
                contacts.append(&mut found.contacts);
                indices.append(&mut found.indices);
                wake.append(&mut found.wake);
                if let Some(kept) = kept.as_deref_mut() {
                    kept.append(&mut found.kept);
                }
                add_counts(&mut self.stage_counts, &found.counts);
                self.reused += found.reused;
            }
            self.found = found;
            return;
        }
        let (counts, reused) = self.test_block(pairs, contacts, indices, wake, reuse.zip(kept));
        add_counts(&mut self.stage_counts, &counts);
        self.reused += reused;
    }

    /// [`Self::test_pairs`] on one block of pairs, on this thread: what each stage did, and
    /// how many pairs reused their kept contact.
    fn test_block(
        &self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
        mut reuse: Option<(Reuse<'_>, &mut KeptDraft)>,
    ) -> (StageCounts, usize) {
        if reuse.is_none() && self.speculative {
            return (self.test_block_within(pairs, contacts, indices, wake), 0);
        }
        let mut filter = StagedFilter::new();
        let mut reused = 0;
        // The kept contacts are sorted by pair, as `pairs` are: one merge walk from the first.
        let mut cursor = match (&reuse, pairs.first()) {
            (Some((r, _)), Some(&(i, j))) => {
                let first = (self.handles[i as usize], self.handles[j as usize]);
                r.before.partition_point(|k| (k.a, k.b) < first)
            }
            _ => 0,
        };
        for &(i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            let margin = if self.speculative {
                self.pair_margin(i, j)
            } else {
                0.0
            };
            let (a, b) = (self.handles[i], self.handles[j]);
            let found_so_far = contacts.len();
            if let Some((r, kept)) = reuse.as_mut() {
                while r.before.get(cursor).is_some_and(|k| (k.a, k.b) < (a, b)) {
                    cursor += 1;
                }
                let (pose_a, pose_b) = (&self.poses[i], &self.poses[j]);
                let relative = pose_a.inv_mul(pose_b);
                let still = r.before.get(cursor).filter(|k| {
                    (k.a, k.b) == (a, b) && k.drift(&relative, self.radii[j]) < r.distance
                });
                if let Some(old) = still {
                    reused += 1;
                    // Written straight into the list: a contact returned by value and then
                    // pushed is copied twice through the stack.
                    contacts.push(ContactPair {
                        a,
                        b,
                        contact: Contact {
                            normal: Vector3::zeros(),
                            depth: 0.0,
                            points: ArrayVec::new(),
                        },
                    });
                    let last = contacts.len() - 1;
                    if old.contact_into(pose_a, &relative, margin, &mut contacts[last].contact) {
                        kept.order.push(KeptFrom::Reused(cursor as u32));
                    } else {
                        contacts.pop();
                    }
                } else if let Some(contact) =
                    filter.contact_within(&self.posed[i], &self.posed[j], margin)
                {
                    let new = KeptContact::new((a, b), &contact, (pose_a, pose_b), relative);
                    if new.is_sound((self.radii[i], self.radii[j])) {
                        kept.order.push(KeptFrom::Computed);
                        kept.computed.push(new);
                    }
                    contacts.push(ContactPair { a, b, contact });
                }
            } else {
                let found = if self.speculative {
                    filter.contact_within(&self.posed[i], &self.posed[j], margin)
                } else {
                    filter.contact(&self.posed[i], &self.posed[j])
                };
                if let Some(contact) = found {
                    contacts.push(ContactPair { a, b, contact });
                }
            }
            if contacts.len() > found_so_far {
                self.wake_sleeper(i, j, &contacts[found_so_far].contact, wake);
                indices.push((i as u32, j as u32));
            }
        }
        (filter.counts, reused)
    }

    /// [`Self::test_block`] with a margin and without contact reuse (the solver's default):
    /// the pairs go through the staged filter a window at a time
    /// ([`StagedFilter::contacts_within`], which tests the box pairs among them eight at a
    /// time in SIMD lanes). The same contacts, in the same order, as one pair at a time.
    fn test_block_within(
        &self,
        pairs: &[(u32, u32)],
        contacts: &mut Vec<ContactPair>,
        indices: &mut Vec<(u32, u32)>,
        wake: &mut Vec<BodyHandle>,
    ) -> StageCounts {
        let mut filter = StagedFilter::new();
        for window in pairs.chunks(PAIR_WINDOW) {
            let posed: ArrayVec<_, PAIR_WINDOW> = window
                .iter()
                .map(|&(i, j)| {
                    let (i, j) = (i as usize, j as usize);
                    (&self.posed[i], &self.posed[j], self.pair_margin(i, j))
                })
                .collect();
            filter.contacts_within(&posed, |k, contact| {
                let (i, j) = window[k];
                self.wake_sleeper(i as usize, j as usize, &contact, wake);
                let (a, b) = (self.handles[i as usize], self.handles[j as usize]);
                contacts.push(ContactPair { a, b, contact });
                indices.push((i, j));
            });
        }
        filter.counts
    }

    /// After bodies `i` and `j` were found to meet in `contact`: if one sleeps and the other
    /// moves (or was disturbed), the sleeper goes to `wake` when it can be reached within the
    /// step.
    fn wake_sleeper(&self, i: usize, j: usize, contact: &Contact, wake: &mut Vec<BodyHandle>) {
        if self.asleep[i] == self.asleep[j] {
            return;
        }
        let (sleeper, mover) = if self.asleep[i] { (i, j) } else { (j, i) };
        let travel = if self.speculative {
            self.reach[mover] - self.half_margin
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
