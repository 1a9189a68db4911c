//! The constraints' batches: filling them (`fill`, on several threads when there are) and
//! running a stage over a group's (`group`), colour by colour, on one thread or several.
//! (Groups share no moving body and index their own slice of the bodies: the solver runs them
//! on several threads at once too, `Solver::solve`.)
//!
//! The constraints of one colour move disjoint bodies (`color`), so within a colour the order
//! does not matter: each batch reads and writes only its own lanes' bodies. A colour large
//! enough is split into blocks of batches that rayon's threads solve at once, each batch
//! leaving its bodies' new velocities in its own output slot; the slots are then written back
//! to the bodies in order. A fixed body (static, sleeping or kinematic: zero inverse mass),
//! which constraints of one colour may share, is never written: no impulse changes it. So every
//! constraint computes on the same values as it would on one thread, and a step gives the same
//! bits at any thread count (`tests/solver_determinism.rs`).
//!
//! The batches, group by group: the overflow's constraints (which may share bodies) one per
//! batch, solved in order; then each colour's constraints `L::WIDTH` to a batch, the last batch
//! of a colour padded with empty lanes.

// Without the parallel feature the blocks and their outputs go unused.
#![cfg_attr(not(feature = "parallel"), allow(dead_code))]

use super::batch::{Batch, Moved};
use super::body::SolverBody;
use super::color::{COLORS, Coloring};
use super::lanes::Lane;

/// Constraints per block handed to a thread: below about this many, a thread costs more to
/// wake than the block takes to solve.
const BLOCK: usize = 128;

/// The constraints of a step in batches of `L::WIDTH`, in solve order, group by group.
#[derive(Debug, Clone, Default)]
pub(crate) struct Batches<L: Lane> {
    pub(crate) batches: Vec<Batch<L>>,
    /// Per group, where its batches lie (its overflow's, then each colour's, as
    /// `Coloring::starts` gives its constraints) and its constraints' places in solve order.
    groups: Vec<Layout>,
    /// Per group, the bodies' new velocities from a colour solved on several threads.
    outputs: Vec<Vec<Option<Moved<L>>>>,
}

/// One group's batches, which a stage runs over ([`GroupBatches::for_each`]).
pub(crate) struct GroupBatches<'a, L: Lane> {
    batches: &'a mut [Batch<L>],
    /// The overflow's batches `starts[0]..starts[1]`, colour `c`'s `starts[c + 1]..starts[c + 2]`.
    starts: [usize; COLORS + 2],
    outputs: &'a mut Vec<Option<Moved<L>>>,
}

/// Where one group's batches lie.
#[derive(Debug, Clone)]
struct Layout {
    /// The overflow's batches `batches[0]..batches[1]`, colour `c`'s
    /// `batches[c + 1]..batches[c + 2]`.
    batches: [usize; COLORS + 2],
    /// The first place in solve order of the overflow and of each colour (`Coloring::starts`).
    places: [usize; COLORS + 2],
}

impl<L: Lane> Batches<L> {
    /// Lays out the batches for `coloring`'s groups and colours (their lanes are then filled
    /// through [`fill`], an empty lane with zeros).
    pub(crate) fn layout(&mut self, coloring: &Coloring) {
        self.groups.clear();
        let mut start = 0;
        for starts in &coloring.starts {
            let places = starts.map(|s| s as usize);
            let mut batches = [0; COLORS + 2];
            batches[0] = start;
            // The overflow's constraints one to a batch, each colour's `L::WIDTH`.
            start += places[1] - places[0];
            for color in 0..COLORS {
                batches[color + 1] = start;
                start += (places[color + 2] - places[color + 1]).div_ceil(L::WIDTH);
            }
            batches[COLORS + 1] = start;
            self.groups.push(Layout { batches, places });
        }
        self.batches.resize_with(start, Batch::default);
    }

    /// The batch and lane of the constraint of colour `color` (`COLORS` for the overflow) at
    /// `place` in solve order, in group `group`.
    #[inline]
    pub(crate) fn locate(&self, group: u32, color: u8, place: u32) -> (usize, usize) {
        let layout = &self.groups[group as usize];
        // The overflow is set 0 of a group's layout, colour `c` set `c + 1`.
        let set = if usize::from(color) == COLORS {
            0
        } else {
            usize::from(color) + 1
        };
        let offset = place as usize - layout.places[set];
        if set == 0 {
            return (layout.batches[0] + offset, 0);
        }
        (layout.batches[set] + offset / L::WIDTH, offset % L::WIDTH)
    }

    /// Each group's batches, in order.
    pub(crate) fn groups_mut(&mut self) -> impl Iterator<Item = GroupBatches<'_, L>> {
        self.outputs.resize_with(self.groups.len(), Vec::new);
        let mut rest = &mut self.batches[..];
        let mut taken = 0;
        self.groups
            .iter()
            .zip(&mut self.outputs)
            .map(move |(layout, outputs)| {
                let end = layout.batches[COLORS + 1];
                let (batches, tail) = std::mem::take(&mut rest).split_at_mut(end - taken);
                let starts = layout.batches.map(|start| start - taken);
                (rest, taken) = (tail, end);
                GroupBatches {
                    batches,
                    starts,
                    outputs,
                }
            })
    }
}

impl<L: Lane> GroupBatches<'_, L> {
    /// The group's batches.
    pub(crate) fn batches(&self) -> &[Batch<L>] {
        self.batches
    }

    /// The group's batches, to fill.
    pub(crate) fn batches_mut(&mut self) -> &mut [Batch<L>] {
        self.batches
    }

    /// Runs `stage` on every batch of the group and writes the velocities it leaves back into
    /// `bodies` (the group's slice of the solver's bodies): the overflow first, on this thread,
    /// then each colour, its blocks on rayon's threads when there are several.
    pub(crate) fn for_each<F>(&mut self, bodies: &mut [SolverBody], stage: F)
    where
        F: Fn(&mut Batch<L>, &[SolverBody]) -> Option<Moved<L>> + Sync,
    {
        let starts = self.starts;
        in_order(bodies, &mut self.batches[starts[0]..starts[1]], &stage);
        #[cfg(feature = "parallel")]
        let parallel = rayon::current_num_threads() > 1;
        for color in 0..COLORS {
            let batches = &mut self.batches[starts[color + 1]..starts[color + 2]];
            #[cfg(feature = "parallel")]
            if parallel && batches.len() * <L as Lane>::WIDTH >= 2 * BLOCK {
                solve_parallel(bodies, batches, self.outputs, &stage);
                continue;
            }
            in_order(bodies, batches, &stage);
        }
    }
}

/// Whether [`fill`] spreads `batches` batches over rayon's threads: when there are several and
/// enough batches.
pub(crate) fn fills_in_parallel<L: Lane>(batches: usize) -> bool {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads() > 1 && batches * L::WIDTH >= 2 * BLOCK;
    #[cfg(not(feature = "parallel"))]
    {
        let _ = batches;
        false
    }
}

/// Runs `fill` on every batch with its lanes' entries of `per_lane_out` and `per_lane` (which
/// hold `L::WIDTH` entries per batch), in blocks on rayon's threads when `parallel`
/// ([`fills_in_parallel`]).
pub(crate) fn fill<L: Lane, T: Send, U: Sync>(
    batches: &mut [Batch<L>],
    per_lane_out: &mut [T],
    per_lane: &[U],
    parallel: bool,
    fill: impl Fn(&mut Batch<L>, &mut [T], &[U]) + Sync,
) {
    let width = L::WIDTH;
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        let block = BLOCK / width;
        batches
            .par_chunks_mut(block)
            .zip(per_lane_out.par_chunks_mut(BLOCK))
            .zip(per_lane.par_chunks(BLOCK))
            .for_each(|((batches, out), lanes)| {
                let lanes = out.chunks_mut(width).zip(lanes.chunks(width));
                for (batch, (out, lanes)) in batches.iter_mut().zip(lanes) {
                    fill(batch, out, lanes);
                }
            });
        return;
    }
    let _ = parallel;
    let lanes = per_lane_out.chunks_mut(width).zip(per_lane.chunks(width));
    for (batch, (out, lanes)) in batches.iter_mut().zip(lanes) {
        fill(batch, out, lanes);
    }
}

/// Runs `stage` on `batches` one after the other, on this thread.
fn in_order<L: Lane, F>(bodies: &mut [SolverBody], batches: &mut [Batch<L>], stage: &F)
where
    F: Fn(&mut Batch<L>, &[SolverBody]) -> Option<Moved<L>>,
{
    for c in batches {
        if let Some(moved) = stage(c, bodies) {
            moved.store(c, bodies);
        }
    }
}

/// One colour's batches on rayon's threads, through `outputs`.
#[cfg(feature = "parallel")]
fn solve_parallel<L: Lane, F>(
    bodies: &mut [SolverBody],
    batches: &mut [Batch<L>],
    outputs: &mut Vec<Option<Moved<L>>>,
    stage: &F,
) where
    F: Fn(&mut Batch<L>, &[SolverBody]) -> Option<Moved<L>> + Sync,
{
    use rayon::prelude::*;
    outputs.resize(batches.len(), Default::default());
    let outputs = &mut outputs[..batches.len()];
    let shared: &[SolverBody] = bodies;
    let block = BLOCK / L::WIDTH;
    batches
        .par_chunks_mut(block)
        .zip(outputs.par_chunks_mut(block))
        .for_each(|(block, out)| {
            for (c, out) in block.iter_mut().zip(out) {
                *out = stage(c, shared);
            }
        });
    for (c, moved) in batches.iter().zip(outputs.iter()) {
        if let Some(moved) = moved {
            moved.store(c, bodies);
        }
    }
}

/// Runs `work` (the solve of a step with `contacts` contacts, which prepares their constraints
/// and solves them) on one of rayon's threads when it will spread them over the pool: a
/// parallel loop started from a thread outside the pool waits on a lock every time, one started
/// from inside it is handed out at little cost.
pub(crate) fn on_worker(contacts: usize, work: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    if contacts >= 2 * BLOCK
        && rayon::current_num_threads() > 1
        && rayon::current_thread_index().is_none()
    {
        rayon::scope(|_| work());
        return;
    }
    let _ = contacts;
    work();
}
