//! Before the substeps: each awake body's solver state, group by group (`group`), and each
//! constraint's place in the solve order (contacts in their lanes of the batches, `color` and
//! `schedule`; joints group by group in handle order).

use super::body::{self, SolverBody};
use super::color::Coloring;
use super::joint::{Ball, JointBody, JointConstraint};
use super::lanes::Lane;
use super::schedule::{self, Batches};
use super::{NONE, Solver, contact, group};
use crate::ahead::SlotAhead;
use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::contact::{CachedContact, ContactPair};
use crate::joint::{Joint, JointHandle};
use arrayvec::ArrayVec;
use geom::{Real, UnitQuaternion};
use slotmap::SlotMap;

/// Under twice this many contacts, the place colours them and matches them to last step's
/// contact set one after the other rather than on two threads at once.
const SIDE_BY_SIDE: usize = 1024;

/// Joints per block handed to a thread when their constraints are made.
#[cfg(feature = "parallel")]
const JOINT_BLOCK: usize = 512;

impl Solver {
    /// The solver state of every awake dynamic or kinematic body, group by group (`group`;
    /// the groups linked by `indices`, the dense indices of the step's contacts) and in handle
    /// order within a group, each group's after a fixed state of its own (the first group's in
    /// slot 0, the slot of every static and sleeping body); every body's surface (in a step
    /// with contacts). `moves` is already filled (by [`Solver::step`]).
    pub(super) fn gather(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        handles: &[BodyHandle],
        indices: &[(u32, u32)],
        joint_indices: &[(u32, u32)],
    ) {
        let (moves, slots, groups) = (&self.moves, &mut self.slots, &mut self.groups);
        let links = if joint_indices.is_empty() {
            indices
        } else {
            // Joints link islands as contacts do.
            self.links.clear();
            self.links.extend_from_slice(indices);
            self.links.extend_from_slice(joint_indices);
            &self.links
        };
        self.grouped_as_before = self
            .grouping
            .group(moves, links, group::BUDGET, slots, groups);
        // Every slot but the groups' fixed states is written below.
        let count = self.groups.last().map_or(1, |slots| slots.end as usize);
        self.states.resize(count, SolverBody::FIXED);
        self.traits.resize(count, Traits::of(&SolverBody::FIXED));
        self.kinds.resize(count, BodyKind::Static);
        self.rotations.resize(count, UnitQuaternion::identity());
        self.inertias.resize(count, None);
        self.drives.resize(count, None);
        self.slot_groups.resize(count, 0);
        let fixed = std::iter::once(0).chain(self.groups.iter().map(|slots| slots.start as usize));
        for slot in fixed {
            self.states[slot] = SolverBody::FIXED;
            self.traits[slot] = Traits::of(&SolverBody::FIXED);
            self.kinds[slot] = BodyKind::Static;
            self.drives[slot] = None;
        }
        for (group, slots) in self.groups.iter().enumerate() {
            self.slot_groups[slots.start as usize..slots.end as usize].fill(group as u32);
        }
        self.surfaces.clear();
        self.conveyors.clear();
        self.joint_bodies.clear();
        // Only the contacts read the surfaces and conveyors (a scene of joints alone, as the
        // joint grid, has none to make).
        let (contacted, jointed) = (!indices.is_empty(), !joint_indices.is_empty());
        // Asked for ahead: a body is several cache lines apart from the last, which the
        // processor does not foresee (the large pyramid's gather 20 to 25% faster).
        let ahead = SlotAhead::new(bodies, handles);
        for (n, (&handle, &slot)) in handles.iter().zip(&self.slots).enumerate() {
            ahead.at(n);
            let body = &bodies[handle];
            if contacted {
                self.surfaces.push(contact::Surface::of(
                    body,
                    self.rolling_resistance,
                    self.special_colliders,
                ));
                if self.special_colliders {
                    self.conveyors.push(contact::Surface::conveyor_of(body));
                }
            }
            if jointed {
                self.joint_bodies.push(JointBody::of(body));
            }
            if slot == 0 {
                continue;
            }
            let slot = slot as usize;
            let mut state = SolverBody::of(body);
            self.drives[slot] = if self.controlled {
                body::Drive::of(body, &mut state)
            } else {
                None
            };
            self.traits[slot] = Traits::of(&state);
            self.states[slot] = state;
            self.kinds[slot] = body.kind;
            self.rotations[slot] = body.pose.rotation;
            let inertia = body.mass_properties.inertia;
            self.inertias[slot] = (!body::is_isotropic(&inertia)).then_some(inertia);
        }
        if self.conveyors.iter().all(|v| *v == geom::Vector3::zeros()) {
            self.conveyors.clear();
        }
        // Without a body that feels more than gravity (the common step), no column at all:
        // the substeps then read nothing more per body than before controls existed.
        if self.drives.iter().all(Option::is_none) {
            self.drives.clear();
        }
    }

    /// One constraint per joint with a body that moves, in its group (handle order within
    /// it), and where each joint's is.
    pub(super) fn place_joints(
        &mut self,
        joints: &SlotMap<JointHandle, Joint>,
        joint_list: &[JointHandle],
        joint_indices: &[(u32, u32)],
        h: Real,
    ) {
        if joint_list.is_empty() {
            self.joint_places.clear();
            self.joint_groups.clear();
            self.joint_groups.resize(self.groups.len(), 0..0);
            self.placed_for.clear();
            self.joints.clear();
            self.level_joints();
            return;
        }
        // Where each joint goes is a function of the joints' bodies and the grouping alone:
        // with both as they were last step, last step's places are this step's.
        if !(self.grouped_as_before && self.placed_for == joint_indices) {
            self.place_joints_afresh(joint_indices);
        }
        let made = &self.joint_made;
        let (slots, states, gathered) = (&self.slots, &self.states, &self.joint_bodies);
        let sources = self.ball_sources.sync(joints, joint_list);
        // Each constraint from its own joint and bodies, made in its place of the list (which
        // keeps its places from step to step): the same on any thread. A plain ball and
        // socket's is a `Ball` of one cache line (the joint grid's 19,800), in the same place
        // of its own list; the other joints' a `JointConstraint` of several.
        let make = |((constraint, ball), link): ((&mut JointConstraint, &mut Ball), &mut Link),
                    &(index, first): &(u32, u32)| {
            let (i, j) = joint_indices[index as usize];
            let slots = [slots[i as usize], slots[j as usize]];
            // A body it does not move is at slot 0, and its group's fixed state is at the
            // group's first: every moving body's slot is past it.
            let local = slots.map(|s| s.saturating_sub(first));
            let pair = [&gathered[i as usize], &gathered[j as usize]];
            let source = &sources[index as usize];
            if source.plain {
                *ball = Ball::of(source, pair, local);
                *link = Link::ball(ball);
                return;
            }
            let joint = &joints[joint_list[index as usize]];
            let own = slots.map(|s| s != 0);
            let states = slots.map(|s| &states[s as usize]);
            constraint.make(joint, pair, states, local, own, h);
            *link = Link::of(constraint);
        };
        self.joints.truncate(made.len());
        self.joints
            .resize_with(made.len(), JointConstraint::placeholder);
        self.balls.resize(made.len(), Ball::default());
        self.joint_links.resize(made.len(), Link::default());
        #[cfg(feature = "parallel")]
        if made.len() >= 2 * JOINT_BLOCK && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            (self.joints.par_iter_mut())
                .zip(self.balls.par_iter_mut())
                .zip(self.joint_links.par_iter_mut())
                .zip(made.par_iter())
                .with_min_len(JOINT_BLOCK)
                .for_each(|(constraint, made)| make(constraint, made));
            self.level_joints();
            return;
        }
        let constraints = (self.joints.iter_mut())
            .zip(self.balls.iter_mut())
            .zip(self.joint_links.iter_mut());
        for (constraint, made) in constraints.zip(made) {
            make(constraint, made);
        }
        self.level_joints();
    }

    /// [`Solver::place_joints`]'s places made afresh for the joints whose bodies have the
    /// dense indices `joint_indices`: per joint, its place in solve order or `NONE`
    /// (`joint_places`); each group's range of places (`joint_groups`); per place, its joint's
    /// index and its group's first slot (`joint_made`).
    fn place_joints_afresh(&mut self, joint_indices: &[(u32, u32)]) {
        self.joint_places.clear();
        self.joint_groups.clear();
        self.joint_groups.resize(self.groups.len(), 0..0);
        // Per joint, its group (NONE: not solved), then each group's count.
        let mut counts = vec![0usize; self.groups.len()];
        for &(i, j) in joint_indices {
            let slots = (self.slots[i as usize], self.slots[j as usize]);
            if slots == (0, 0) {
                self.joint_places.push(NONE);
                continue;
            }
            let group = self.slot_groups[slots.0.max(slots.1) as usize];
            counts[group as usize] += 1;
            self.joint_places.push(group);
        }
        let mut start = 0;
        for (range, &count) in self.joint_groups.iter_mut().zip(&counts) {
            *range = start..start + count;
            start += count;
        }
        // The joints in solve order: group by group, handle order within each (a counting
        // sort of their indices), each made where it goes.
        let mut next: Vec<usize> = self.joint_groups.iter().map(|range| range.start).collect();
        let mut order = vec![NONE; start];
        for (k, place) in self.joint_places.iter_mut().enumerate() {
            if *place != NONE {
                let group = *place as usize;
                order[next[group]] = k as u32;
                *place = next[group] as u32;
                next[group] += 1;
            }
        }
        // Each joint's index in `joint_list` and its group's first slot, in solve order.
        let made = &mut self.joint_made;
        made.clear();
        for (group, range) in self.joint_groups.iter().enumerate() {
            let first = self.groups[group].start;
            made.extend(order[range.clone()].iter().map(|&index| (index, first)));
        }
        self.placed_for.clear();
        self.placed_for.extend_from_slice(joint_indices);
    }

    /// Each group's joints in levels (`joint_order`, `joint_levels`): a joint's level is one
    /// past the highest of the joints before it (in handle order) that move one of its bodies,
    /// so that no two joints of a level move the same body, and a pass over the levels in
    /// order gives each joint the velocities the pass one at a time in handle order gives it:
    /// the same bits, with a level's joints side by side (in lanes, `BallBatch`, or on several
    /// threads at once). A large group whose levels are narrow is put in colours instead
    /// ([`colour_joints`]), which the rest reads as levels. Within a level the plain ball and
    /// sockets come first (the joints a `BallBatch` can solve), then the others, each in handle
    /// order: a group's levels are two entries each in `joint_levels`, where its balls and
    /// where its others start, then the group's count.
    fn level_joints(&mut self) {
        // The levels are a function of the groups' joints (`joint_groups`) and what each moves
        // (`joint_links`) alone: when both are as they were last step (a scene whose joints
        // and awake bodies hold), last step's levels are this step's.
        let last = &mut self.last_levels;
        if last.made && last.groups == self.joint_groups && last.links == self.joint_links {
            return;
        }
        last.made = true;
        last.groups.clone_from(&self.joint_groups);
        last.links.clone_from(&self.joint_links);
        self.joint_order.clear();
        self.joint_levels.clear();
        self.joint_level_groups.clear();
        let mut next = std::mem::take(&mut self.level_scratch);
        let mut keys = Vec::new();
        for (group, range) in self.joint_groups.iter().enumerate() {
            let joints = &self.joint_links[range.clone()];
            let first = self.joint_levels.len();
            let slots = self.groups[group].len();
            // Per slot, the level after the last joint that moves it; per joint, its level
            // twice over, one more for a joint that is not a plain ball.
            next.clear();
            next.resize(slots, 0);
            keys.clear();
            keys.extend(joints.iter().map(|joint| {
                2 * level_after(&mut next, &joint.moved(), 0) + u32::from(!joint.is_ball())
            }));
            let levels = keys.iter().max().map_or(0, |&k| k / 2 + 1) as usize;
            if joints.len() >= COLOURED_JOINTS && levels * LEVEL_WIDTH > joints.len() {
                colour_joints(joints, &mut keys, &mut self.colour_scratch, &mut next);
            }
            // A counting sort by key, handle order within each.
            let count = keys.iter().max().map_or(0, |&k| (k as usize) / 2 * 2 + 2);
            let mut starts = vec![0u32; count + 1];
            for &key in &keys {
                starts[key as usize + 1] += 1;
            }
            for k in 0..count {
                starts[k + 1] += starts[k];
            }
            let base = self.joint_order.len();
            self.joint_order.resize(base + joints.len(), 0);
            let mut at = starts.clone();
            for (k, &key) in keys.iter().enumerate() {
                self.joint_order[base + at[key as usize] as usize] = k as u32;
                at[key as usize] += 1;
            }
            #[cfg(debug_assertions)]
            for level in starts.windows(3).step_by(2) {
                // A level's (or colour's) joints move disjoint bodies.
                let members = &self.joint_order[base + level[0] as usize..base + level[2] as usize];
                let mut moved: Vec<usize> = (members.iter())
                    .flat_map(|&k| joints[k as usize].moved().into_iter().flatten())
                    .collect();
                let count = moved.len();
                moved.sort_unstable();
                moved.dedup();
                debug_assert_eq!(moved.len(), count, "two joints of a level move one body");
            }
            self.joint_levels.extend_from_slice(&starts);
            self.joint_level_groups.push(first..self.joint_levels.len());
        }
        self.level_scratch = next;
    }

    /// Places one constraint per contact that involves an awake dynamic body in its lane of
    /// the batches, in the solve order of its colour, with its entry in last step's contact set
    /// to warm start from ([`warm_starts`], found on another thread while the constraints are
    /// coloured); each group's lanes are then filled just before it solves ([`Gather::fill`]).
    pub(super) fn place<L: Lane>(
        &mut self,
        batches: &mut Batches<L>,
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
    ) {
        let (previous, warm) = (&self.previous_cache, &mut self.warm);
        let coloured = Colour {
            surfaces: &self.surfaces,
            slots: &self.slots,
            traits: &self.traits,
            slot_groups: &self.slot_groups,
            coloring: &mut self.coloring,
            pairs: &mut self.constraint_pairs,
        };
        schedule::side_by_side(
            contacts.len() >= 2 * SIDE_BY_SIDE,
            || coloured.run(contacts, indices, self.groups.len()),
            || warm_starts(contacts, previous, warm),
        );
        batches.layout(&self.coloring);
        let lanes = batches.count() * L::WIDTH;
        self.members.clear();
        self.members.resize(lanes, (NONE, NONE));
        self.ids.resize_with(lanes, ArrayVec::new);
        let coloring = &self.coloring;
        let placed = (coloring.slots.iter())
            .zip(&coloring.colors)
            .zip(&coloring.groups);
        for (n, (&k, ((&place, &color), &group))) in
            self.constraint_pairs.iter().zip(placed).enumerate()
        {
            let (batch, lane) = batches.locate(group, color, place);
            self.members[batch * L::WIDTH + lane] = (n as u32, self.warm[k]);
        }
    }
}

/// What colouring the constraints reads and writes ([`Colour::run`]).
struct Colour<'a> {
    surfaces: &'a [contact::Surface],
    slots: &'a [u32],
    traits: &'a [Traits],
    slot_groups: &'a [u32],
    coloring: &'a mut Coloring,
    /// Per constraint, its contact's index.
    pairs: &'a mut Vec<usize>,
}

impl Colour<'_> {
    /// One constraint per contact with a body that moves, in pair order, coloured (`color`),
    /// for `groups` groups.
    fn run(self, contacts: &[ContactPair], indices: &[(u32, u32)], groups: usize) {
        self.pairs.clear();
        self.coloring.begin(self.traits.len());
        for (k, (pair, &(i, j))) in contacts.iter().zip(indices).enumerate() {
            let surfaces = (&self.surfaces[i as usize], &self.surfaces[j as usize]);
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            let traits = (self.traits[i as usize], self.traits[j as usize]);
            let fixed = (traits.0.fixed, traits.1.fixed);
            if fixed.0 && fixed.1 {
                continue; // nothing moves (a pair that sleeps)
            }
            let isotropic = (traits.0.isotropic, traits.1.isotropic);
            let kind = contact::kind(pair, surfaces, isotropic);
            // A body that moves is in the group of the other one that moves, if any.
            let group = self.slot_groups[i.max(j) as usize];
            self.coloring.add((i, j), fixed, kind, group);
            self.pairs.push(k);
        }
        self.coloring.finish(groups);
    }
}

/// Per contact (`contacts`, in pair order), its entry in last step's contact set `previous`
/// (sorted by pair, as the contacts are: one merge walk) to warm start from, `NONE` for none,
/// into `warm`. A pair against a surface may have several entries (a manifold each), matched
/// by a feature id in common.
fn warm_starts(contacts: &[ContactPair], previous: &[CachedContact], warm: &mut Vec<u32>) {
    warm.clear();
    let mut at = 0;
    warm.extend(contacts.iter().enumerate().map(|(k, pair)| {
        let key = (pair.a, pair.b);
        while previous.get(at).is_some_and(|c| (c.a, c.b) < key) {
            at += 1;
        }
        let is_key = |c: &ContactPair| (c.a, c.b) == key;
        let several =
            (k > 0 && is_key(&contacts[k - 1])) || contacts.get(k + 1).is_some_and(is_key);
        let found = if !several {
            previous
                .get(at)
                .is_some_and(|c| (c.a, c.b) == key)
                .then_some(at)
        } else {
            let same = previous[at..]
                .iter()
                .take_while(|c| (c.a, c.b) == key)
                .count();
            (at..at + same).find(|&w| {
                previous[w]
                    .points
                    .iter()
                    .any(|c| pair.contact.points.iter().any(|p| p.id == c.id))
            })
        };
        found.map_or(NONE, |w| w as u32)
    }));
}

/// What ordering and gathering a body's constraints read of it besides its state, kept per
/// slot (two bytes instead of a state and a matrix comparison per constraint).
#[derive(Debug, Clone, Copy)]
pub(super) struct Traits {
    /// Zero inverse mass: no impulse moves it.
    pub(super) fixed: bool,
    /// [`SolverBody::is_isotropic`].
    pub(super) isotropic: bool,
}

impl Traits {
    pub(super) fn of(state: &SolverBody) -> Self {
        Self {
            fixed: state.inverse_mass == 0.0,
            isotropic: state.is_isotropic(),
        }
    }
}

/// What the levels and the colours read of a joint's constraint (`level_joints`), made with
/// it and kept apart, a few bytes instead of a cache line of it each pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Link {
    /// The slots it moves (`NONE`: the side's body does not move).
    moved: [u32; 2],
    /// Whether it is a plain ball and socket (a [`Ball`]).
    ball: bool,
}

impl Link {
    fn of(constraint: &JointConstraint) -> Self {
        Self {
            moved: constraint.moved().map(|s| s.map_or(NONE, |s| s as u32)),
            ball: false,
        }
    }

    fn ball(ball: &Ball) -> Self {
        Self {
            moved: ball.moved().map(|s| s.map_or(NONE, |s| s as u32)),
            ball: true,
        }
    }

    /// [`JointConstraint::moved`].
    fn moved(&self) -> [Option<usize>; 2] {
        self.moved.map(|s| (s != NONE).then_some(s as usize))
    }

    pub(super) fn is_ball(&self) -> bool {
        self.ball
    }
}

/// The level of a joint that moves the slots `moved`: one past the last earlier joint that
/// moves one of them (`next`, per slot, the level after its last joint; `floor` for a joint
/// that moves none), which it then becomes for them.
fn level_after(next: &mut [u32], moved: &[Option<usize>; 2], floor: u32) -> u32 {
    let level = moved
        .iter()
        .flatten()
        .map(|&s| next[s])
        .max()
        .unwrap_or(floor);
    for &slot in moved.iter().flatten() {
        next[slot] = level + 1;
    }
    level
}

/// What the last step's joint levels were made from (see `Solver::level_joints`).
#[derive(Debug, Clone, Default)]
pub(super) struct LastLevels {
    /// Whether levels were made (the others then hold their input).
    made: bool,
    groups: Vec<std::ops::Range<usize>>,
    links: Vec<Link>,
}

/// A group of at least this many joints whose levels are narrow ([`LEVEL_WIDTH`]) is solved
/// in colours rather than levels (see [`colour_joints`]).
const COLOURED_JOINTS: usize = 1024;

/// Joints per level, on average, under which a large group's levels are too narrow to share.
const LEVEL_WIDTH: usize = 64;

/// `keys` for `joints` (one group's, in handle order) as colours instead of levels: each joint
/// takes the lowest of 64 colours that no earlier joint moving one of its bodies took
/// (greedy, in handle order, as Box3D colours its constraint graph); a joint that finds all 64
/// taken goes after them, in levels among those that did (one past the last such joint that
/// moves one of its bodies). No two joints of a colour move one body, so a colour's joints
/// may be solved side by side, and the order of the colours fixes every result.
///
/// `used` and `next` are buffers, as long as the group has slots.
fn colour_joints(joints: &[Link], keys: &mut [u32], used: &mut Vec<u64>, next: &mut [u32]) {
    const COLOURS: u32 = 64;
    used.clear();
    used.resize(next.len(), 0);
    next.fill(COLOURS);
    for (joint, key) in joints.iter().zip(keys.iter_mut()) {
        let moved = joint.moved();
        let taken = moved.iter().flatten().fold(0u64, |m, &s| m | used[s]);
        let colour = if taken == u64::MAX {
            level_after(next, &moved, COLOURS)
        } else {
            let colour = taken.trailing_ones();
            for &slot in moved.iter().flatten() {
                used[slot] |= 1 << colour;
            }
            colour
        };
        *key = 2 * colour + u32::from(!joint.is_ball());
    }
}
