//! Graph colouring of the contact constraints (Box2D v3 and Box3D, `constraint_graph.c`): each
//! constraint gets a colour such that no two constraints of one colour share a body that moves
//! (static and sleeping bodies share one fixed state that no impulse changes, so they never
//! conflict). The constraints of a colour can then be solved in any order, or at once, with the
//! same result; the colours are solved one after the other.
//!
//! The order is Box3D's: constraints that fit in no colour (the overflow) first; then the
//! colours in order, where constraints between two moving bodies take the lowest free colour
//! from the front and constraints against a fixed body the highest free colour from the back,
//! so that contacts with the ground are solved last in each pass and have the last word.
//! Colours are given greedily in pair order: the same contacts give the same colours. Within a
//! colour the constraints are ordered by kind (how many points, whether a ball rolls, whether
//! a body is anisotropic), each kind in pair order: the batches of a colour then mostly hold
//! constraints of one kind, so that a batch of one-point contacts skips the other three point
//! slots, only batches that roll read what rolling needs, and only batches with an anisotropic
//! body read their turns. The order within a colour does not change a result.

/// How many colours there are. A body with more constraints than this (a ball in a pit of
/// thirty) puts the rest in the overflow.
pub(crate) const COLORS: usize = 24;
/// Constraints between two moving bodies use the first `DYNAMIC_COLORS` colours, leaving the last
/// ones to constraints against fixed bodies.
const DYNAMIC_COLORS: usize = COLORS - 4;
/// How many kinds of constraint a colour's order tells apart ([`Coloring::add`]).
pub(crate) const KINDS: usize = 16;

/// The colouring of one step: for each constraint (in pair order), where it goes in the solve
/// order; and where each group's overflow and colours start.
#[derive(Debug, Clone, Default)]
pub(crate) struct Coloring {
    /// Per colour, one bit per solver slot: whether a constraint of that colour moves the body.
    used: Vec<Vec<u64>>,
    /// Per constraint in pair order, its colour (`COLORS` for the overflow).
    pub(crate) colors: Vec<u8>,
    /// Per constraint in pair order, its kind (below `KINDS`).
    kinds: Vec<u8>,
    /// Per constraint in pair order, the group it is solved in (`Solver::group`).
    pub(crate) groups: Vec<u32>,
    /// Per constraint in pair order, its index in the solve order.
    pub(crate) slots: Vec<u32>,
    /// Per group, where its constraints lie in the solve order: its overflow
    /// `starts[b][0]..starts[b][1]`, then colour `c`'s `starts[b][c + 1]..starts[b][c + 2]`.
    pub(crate) starts: Vec<[u32; COLORS + 2]>,
    /// Per group, colour (the overflow first) and kind, how many constraints: the buffer of
    /// [`Coloring::finish`].
    counts: Vec<[[u32; KINDS]; COLORS + 1]>,
}

impl Coloring {
    /// Starts a colouring for `bodies` solver slots (slot 0 is the shared fixed state).
    pub(crate) fn begin(&mut self, bodies: usize) {
        let words = bodies.div_ceil(64);
        self.used.resize_with(COLORS, Vec::new);
        for set in &mut self.used {
            set.clear();
            set.resize(words, 0);
        }
        self.colors.clear();
        self.kinds.clear();
        self.groups.clear();
        self.slots.clear();
    }

    /// Colours the next constraint (in pair order), between solver slots `a` and `b`, where
    /// slot 0 or a body with `fixed` set (zero inverse mass: static, sleeping or kinematic, whose
    /// state no impulse changes) does not count. `kind` (below [`KINDS`]) orders the
    /// constraints within their colour; `group` is the group the constraint is solved in.
    pub(crate) fn add(
        &mut self,
        (a, b): (u32, u32),
        (fixed_a, fixed_b): (bool, bool),
        kind: usize,
        group: u32,
    ) {
        debug_assert!(kind < KINDS);
        self.kinds.push(kind as u8);
        self.groups.push(group);
        let moves = |slot: u32, fixed: bool| (slot != 0 && !fixed).then_some(slot as usize);
        let color = match (moves(a, fixed_a), moves(b, fixed_b)) {
            (Some(a), Some(b)) => (0..DYNAMIC_COLORS).find(|&c| {
                let set = &mut self.used[c];
                let free = !bit(set, a) && !bit(set, b);
                if free {
                    set_bit(set, a);
                    set_bit(set, b);
                }
                free
            }),
            (Some(body), None) | (None, Some(body)) => (1..COLORS).rev().find(|&c| {
                let set = &mut self.used[c];
                let free = !bit(set, body);
                if free {
                    set_bit(set, body);
                }
                free
            }),
            // Nothing moves: the solver never builds such a constraint.
            (None, None) => None,
        };
        self.colors.push(color.unwrap_or(COLORS) as u8);
    }

    /// Ends the colouring of `groups` groups: each constraint's index in the solve order (group
    /// by group; in each, the overflow in pair order, then the colours, each kind by kind in
    /// pair order) and where each group's overflow and colours start.
    pub(crate) fn finish(&mut self, groups: usize) {
        // Counted per group, colour and kind; the overflow's all as one kind, so that it keeps
        // pair order (its constraints may share bodies: their order counts).
        let set = |color: u8, kind: u8| {
            if usize::from(color) == COLORS {
                (0, 0)
            } else {
                (usize::from(color) + 1, usize::from(kind))
            }
        };
        self.counts.clear();
        self.counts.resize(groups, [[0; KINDS]; COLORS + 1]);
        let constraints = self.colors.iter().zip(&self.kinds).zip(&self.groups);
        for ((&c, &k), &b) in constraints.clone() {
            let (g, k) = set(c, k);
            self.counts[b as usize][g][k] += 1;
        }
        // The counts become where each group's next constraint of each colour and kind goes.
        self.starts.clear();
        let mut start = 0;
        for counts in &mut self.counts {
            let mut starts = [0; COLORS + 2];
            for (g, counts) in counts.iter_mut().enumerate() {
                starts[g] = start;
                for count in counts {
                    let n = *count;
                    *count = start;
                    start += n;
                }
            }
            starts[COLORS + 1] = start;
            self.starts.push(starts);
        }
        let counts = &mut self.counts;
        self.slots.extend(constraints.map(|((&c, &k), &b)| {
            let (g, k) = set(c, k);
            let next = &mut counts[b as usize][g][k];
            *next += 1;
            *next - 1
        }));
    }
}

#[inline]
fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}

#[inline]
fn set_bit(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constraint's two solver slots and whether each is fixed.
    type Pair = ((u32, u32), (bool, bool));

    fn colour(pairs: &[Pair], bodies: usize) -> Coloring {
        let mut coloring = Coloring::default();
        coloring.begin(bodies);
        for &(pair, fixed) in pairs {
            coloring.add(pair, fixed, 0, 0);
        }
        coloring.finish(1);
        coloring
    }

    #[test]
    fn no_colour_shares_a_moving_body_and_fixed_pairs_come_last() {
        // A chain 1-2-3-4 with 1, 2 and 4 on the ground (slot 0), and a kinematic body 5
        // touching 4.
        let pairs = [
            ((0, 1), (true, false)),
            ((0, 2), (true, false)),
            ((0, 4), (true, false)),
            ((1, 2), (false, false)),
            ((2, 3), (false, false)),
            ((3, 4), (false, false)),
            ((4, 5), (false, true)),
        ];
        let c = colour(&pairs, 6);
        assert_eq!(c.colors, vec![23, 23, 23, 0, 1, 0, 22]);
        // Solve order: colour 0 (pairs 3, 5), colour 1 (pair 4), colour 22 (pair 6), colour 23
        // (pairs 0, 1, 2).
        assert_eq!(c.slots, vec![4, 5, 6, 0, 2, 1, 3]);
        assert_eq!(c.starts[0][1], 0);
        assert_eq!(c.starts[0][2], 2);
        assert_eq!(c.starts[0][23], 3);
        assert_eq!(c.starts[0][24], 4);
        assert_eq!(c.starts[0][COLORS + 1], 7);
        // Every constraint has its own place.
        let mut sorted = c.slots.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..7).collect::<Vec<_>>());
    }

    #[test]
    fn a_colour_holds_its_constraints_kind_by_kind_and_the_overflow_keeps_pair_order() {
        // Five constraints on disjoint pairs of moving bodies: all colour 0.
        let mut c = Coloring::default();
        c.begin(11);
        for (n, kind) in [3, 0, 3, 0, 4].into_iter().enumerate() {
            let a = 1 + 2 * n as u32;
            c.add((a, a + 1), (false, false), kind, 0);
        }
        c.finish(1);
        assert_eq!(c.colors, vec![0; 5]);
        // Kind 0 (pairs 1, 3), then kind 3 (pairs 0, 2), then kind 4 (pair 4).
        assert_eq!(c.slots, vec![2, 0, 3, 1, 4]);
        // Body 1 touches 30 others, the kinds alternating: the overflow is in pair order.
        let mut c = Coloring::default();
        c.begin(32);
        for b in 2..32 {
            c.add((1, b), (false, false), (b % 2) as usize * 7, 0);
        }
        c.finish(1);
        let overflow: Vec<u32> = (0..30)
            .filter(|&n| usize::from(c.colors[n]) == COLORS)
            .map(|n| c.slots[n])
            .collect();
        assert_eq!(overflow, (0..overflow.len() as u32).collect::<Vec<_>>());
        assert_eq!(c.starts[0][1] as usize, overflow.len());
    }

    #[test]
    fn a_body_with_more_constraints_than_colours_overflows_first() {
        // Body 1 touches 30 others.
        let pairs: Vec<_> = (2..32).map(|b| ((1, b), (false, false))).collect();
        let c = colour(&pairs, 32);
        let overflow = c
            .colors
            .iter()
            .filter(|&&k| usize::from(k) == COLORS)
            .count();
        assert_eq!(overflow, 30 - DYNAMIC_COLORS);
        // The overflow is solved first, in pair order.
        assert_eq!(c.starts[0][1] as usize, overflow);
        assert_eq!(c.slots[DYNAMIC_COLORS], 0);
        assert_eq!(c.slots[0] as usize, overflow);
    }
}
