//! Groups: the bodies the solver moves, split into sets of whole islands (bodies linked by
//! the step's constraints; static and sleeping bodies do not link, kinematic ones do, as their
//! positions move with the substeps) that the solve runs one after the other, each through all
//! its substeps. No moving body is in two groups and every
//! constraint's moving bodies are in its own group, so each body and each constraint sees the
//! same values, in the same order, as in one solve of everything: the bits do not change
//! (`tests/solver_determinism.rs`). What changes is the memory a pass walks: a group's
//! constraints and bodies stay in the cache through its substeps, where one pass over a scene
//! of 100,000 bodies streams some 100 MB of batches through it, a dozen times a step.
//!
//! Groups follow the bodies' handle order: islands in the order of their first body, gathered
//! into a group until it holds [`BUDGET`] constraints. A group's slots are consecutive: first
//! a fixed state of its own (for the static and sleeping bodies its constraints touch; the
//! first group's is slot 0, the one every static and sleeping body is given), then its bodies
//! in handle order. A group's constraints index its slots from its first, so that groups can
//! run on several threads at once, each on its own slice of the solver's bodies. A scene that is
//! one island (a pile, a pyramid) is one group.

use crate::step::sleep::Islands;
use std::ops::Range;

/// How many constraints a group gathers islands up to: a group of 1,024 cube contacts is some
/// 400 KB of batches, which the cache of one core holds.
pub(crate) const BUDGET: usize = 1024;

/// The buffers of [`Grouping::group`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Grouping {
    islands: Islands,
    /// Per dense body index (of a body that moves), its island, numbered in the order of their
    /// first bodies.
    island_of: Vec<u32>,
    /// Per island, how many constraints, then its group.
    island_groups: Vec<u32>,
    /// Per group, how many bodies, then its next slot.
    next: Vec<u32>,
    /// The last grouping's input and what it gave (see [`Grouping::group`]).
    last: Last,
}

/// A grouping's input (`moves`, `pairs`, `budget`) and output (`slots`, `groups`), kept so that
/// a step whose input is the same as the last one's (the joint grid's, or any scene whose
/// bodies and constraints hold from step to step) copies the output rather than make it again:
/// the same values, since the output is a function of the input alone.
#[derive(Debug, Clone, Default)]
struct Last {
    moves: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    budget: usize,
    slots: Vec<u32>,
    groups: Vec<Range<u32>>,
}

impl Grouping {
    /// Splits the bodies for which `moves` holds (per dense index: those with a solver slot of
    /// their own) into groups of whole islands, linked by the constraints between the dense
    /// indices `pairs`: writes each body's slot in `slots` (0 for one that does not move) and
    /// each group's slots in `groups` (its fixed state first; they follow each other from 0).
    /// A group closes once it holds `budget` constraints or more. The same input as the last
    /// call's copies its output rather than make it again ([`Last`]): then it returns true.
    pub(crate) fn group(
        &mut self,
        moves: &[bool],
        pairs: &[(u32, u32)],
        budget: usize,
        slots: &mut Vec<u32>,
        groups: &mut Vec<Range<u32>>,
    ) -> bool {
        let last = &mut self.last;
        if last.budget == budget && last.moves == moves && last.pairs == pairs {
            slots.clone_from(&last.slots);
            groups.clone_from(&last.groups);
            return true;
        }
        self.make(moves, pairs, budget, slots, groups);
        let last = &mut self.last;
        last.moves.clear();
        last.moves.extend_from_slice(moves);
        last.pairs.clear();
        last.pairs.extend_from_slice(pairs);
        last.budget = budget;
        last.slots.clone_from(slots);
        last.groups.clone_from(groups);
        false
    }

    /// [`Grouping::group`], made afresh.
    fn make(
        &mut self,
        moves: &[bool],
        pairs: &[(u32, u32)],
        budget: usize,
        slots: &mut Vec<u32>,
        groups: &mut Vec<Range<u32>>,
    ) {
        let n = moves.len();
        self.islands.reset(n);
        for &(i, j) in pairs {
            if moves[i as usize] && moves[j as usize] {
                self.islands.union(i, j);
            }
        }
        // Islands numbered by their roots, each its smallest index, so met before the rest.
        self.island_of.resize(n, 0);
        self.island_groups.clear();
        for (d, &moves) in moves.iter().enumerate() {
            if moves {
                let root = self.islands.find(d as u32) as usize;
                self.island_of[d] = if root == d {
                    self.island_groups.push(0);
                    self.island_groups.len() as u32 - 1
                } else {
                    self.island_of[root]
                };
            }
        }
        for &(i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            let d = if moves[i] { i } else { j };
            if moves[d] {
                self.island_groups[self.island_of[d] as usize] += 1;
            }
        }
        // Islands gathered into groups in order.
        let (mut group, mut filled, mut open) = (0, 0, false);
        for island in &mut self.island_groups {
            filled += *island as usize;
            *island = group;
            open = true;
            if filled >= budget {
                (group, filled, open) = (group + 1, 0, false);
            }
        }
        let count = group as usize + usize::from(open);
        self.next.clear();
        self.next.resize(count, 0);
        for (d, &moves) in moves.iter().enumerate() {
            if moves {
                self.next[self.island_groups[self.island_of[d] as usize] as usize] += 1;
            }
        }
        groups.clear();
        let mut start = 0;
        for next in &mut self.next {
            groups.push(start..start + 1 + *next);
            (start, *next) = (start + 1 + *next, start + 1);
        }
        slots.clear();
        slots.extend(moves.iter().enumerate().map(|(d, &moves)| {
            if !moves {
                return 0;
            }
            let next = &mut self.next[self.island_groups[self.island_of[d] as usize] as usize];
            *next += 1;
            *next - 1
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn islands_go_whole_into_groups_in_handle_order() {
        // Bodies 0 and 5 do not move (a floor, a sleeping body). Islands: {1, 3} (through
        // 1-3; with the floor, 2 constraints), {2, 4, 6} (through 2-4 and 4-6; 2-5 and 0-6 do
        // not link; 4 constraints), {7} (none).
        let moves = [false, true, true, true, true, false, true, true];
        let pairs = [(0, 1), (1, 3), (2, 4), (2, 5), (4, 6), (0, 6)];
        let mut grouping = Grouping::default();
        let (mut slots, mut groups) = (Vec::new(), Vec::new());
        let mut group = |budget| {
            grouping.group(&moves, &pairs, budget, &mut slots, &mut groups);
            (slots.clone(), groups.clone())
        };
        // A group per island, its fixed state then its bodies on consecutive slots in handle
        // order.
        assert_eq!(
            group(1),
            (vec![0, 1, 4, 2, 5, 0, 6, 8], vec![0..3, 3..7, 7..9])
        );
        // The first two islands fill a group of 5 constraints (2 + 4: it closes at 6); the
        // third opens the next.
        assert_eq!(group(5), (vec![0, 1, 2, 3, 4, 0, 5, 7], vec![0..6, 6..8]));
        // One group: the bodies in handle order.
        let (all_slots, all_groups) = group(usize::MAX);
        assert_eq!(all_slots, vec![0, 1, 2, 3, 4, 0, 5, 6]);
        assert_eq!(all_groups.len(), 1);
        assert_eq!(all_groups[0], 0..7);
        // Nothing moves: no group.
        grouping.group(&[false, false], &[(0, 1)], 1, &mut slots, &mut groups);
        assert_eq!((slots, groups), (vec![0, 0], vec![]));
    }

    #[test]
    fn a_grouping_like_the_last_one_gives_what_a_fresh_one_gives() {
        type Input<'a> = (&'a [bool], &'a [(u32, u32)], usize);
        let inputs: [Input<'_>; 5] = [
            (&[false, true, true, true], &[(0, 1), (1, 2)], 1),
            (&[false, true, true, true], &[(0, 1), (1, 2)], 1),
            (&[false, true, true, true], &[(0, 1), (1, 2)], 5),
            (&[false, true, true, true], &[(0, 1), (2, 3)], 5),
            (&[true, true, true, false], &[(0, 1), (2, 3)], 5),
        ];
        let mut kept = Grouping::default();
        let (mut slots, mut groups) = (Vec::new(), Vec::new());
        for (moves, pairs, budget) in inputs {
            kept.group(moves, pairs, budget, &mut slots, &mut groups);
            let (mut fresh_slots, mut fresh_groups) = (Vec::new(), Vec::new());
            let fresh = &mut Grouping::default();
            fresh.group(moves, pairs, budget, &mut fresh_slots, &mut fresh_groups);
            assert_eq!((&slots, &groups), (&fresh_slots, &fresh_groups));
        }
    }
}
