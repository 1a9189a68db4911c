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

use super::body::SolverBody;
use super::color::{COLORS, Coloring};
use super::contact::{Batch, Moved};
use super::lanes::Lane;
use std::sync::Mutex;

/// Constraints per block handed to a thread: below about this many, a thread costs more to
/// wake than the block takes to solve.
const BLOCK: usize = 128;

/// The constraints of a step in batches of `L::WIDTH`, in solve order, group by group: where
/// each group's batches lie, and buffers to hold them. A group's batches are made just before
/// it solves them and are done with after its restitution, so the groups solved one after the
/// other share one buffer (as many as run at once on several threads): a scene of many groups
/// keeps one group's batches in the cache, not all of them in memory.
#[derive(Debug, Default)]
pub(crate) struct Batches<L: Lane> {
    /// Per group, where its batches lie (its overflow's, then each colour's, as
    /// `Coloring::starts` gives its constraints) and its constraints' places in solve order.
    groups: Vec<Layout>,
    /// Per group, the bodies' new velocities from a colour solved on several threads.
    outputs: Vec<Vec<Option<Moved<L>>>>,
    pool: Pool<L>,
}

impl<L: Lane> Clone for Batches<L> {
    /// The layout; the buffers are not copied (never change a result).
    fn clone(&self) -> Self {
        Self {
            groups: self.groups.clone(),
            outputs: Vec::new(),
            pool: Pool::default(),
        }
    }
}

/// Buffers of batches, each lent to one group at a time. Which buffer a group gets (on several
/// threads, whichever is free) changes nothing: filling a batch writes everything its stages
/// read.
#[derive(Debug, Default)]
pub(crate) struct Pool<L: Lane>(Mutex<Vec<Vec<Batch<L>>>>);

impl<L: Lane> Pool<L> {
    /// The buffers (a panic elsewhere while one was lent leaves them usable: a buffer's
    /// content is refilled before use).
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Batch<L>>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One group's batches before they are made: where they lie, and its outputs.
pub(crate) struct GroupPlan<'a, L: Lane> {
    /// The overflow's batches `starts[0]..starts[1]`, colour `c`'s `starts[c + 1]..starts[c + 2]`.
    starts: [usize; COLORS + 2],
    outputs: &'a mut Vec<Option<Moved<L>>>,
}

impl<L: Lane> GroupPlan<'_, L> {
    /// How many batches the group has.
    pub(crate) fn len(&self) -> usize {
        self.starts[COLORS + 1]
    }

    /// Runs `work` on the group's batches, in a buffer borrowed from `pool` (holding whatever
    /// it last held: `work` fills them first).
    pub(crate) fn with_batches<R>(
        self,
        pool: &Pool<L>,
        work: impl FnOnce(GroupBatches<'_, L>) -> R,
    ) -> R {
        let mut buffer = pool.lock().pop().unwrap_or_default();
        let len = self.len();
        // Grown, never shrunk: a batch's boxes are allocated once and kept.
        if buffer.len() < len {
            buffer.resize_with(len, Batch::default);
        }
        let result = work(GroupBatches {
            batches: &mut buffer[..len],
            starts: self.starts,
            outputs: self.outputs,
        });
        pool.lock().push(buffer);
        result
    }
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
    /// How many batches the groups before this one have.
    first: usize,
    /// Counted from the group's first: the overflow's batches `batches[0]..batches[1]`,
    /// colour `c`'s `batches[c + 1]..batches[c + 2]`.
    batches: [usize; COLORS + 2],
    /// The first place in solve order of the overflow and of each colour (`Coloring::starts`).
    places: [usize; COLORS + 2],
}

impl<L: Lane> Batches<L> {
    /// Lays out the batches for `coloring`'s groups and colours (their lanes are then filled
    /// through [`fill`], an empty lane with zeros). Each group's batches are counted from its
    /// first; [`Batches::locate`] counts them across the groups.
    pub(crate) fn layout(&mut self, coloring: &Coloring) {
        self.groups.clear();
        let mut count = 0;
        for starts in &coloring.starts {
            let places = starts.map(|s| s as usize);
            let mut batches = [0; COLORS + 2];
            // The overflow's constraints one to a batch, each colour's `L::WIDTH`.
            let mut start = places[1] - places[0];
            for color in 0..COLORS {
                batches[color + 1] = start;
                start += (places[color + 2] - places[color + 1]).div_ceil(L::WIDTH);
            }
            batches[COLORS + 1] = start;
            self.groups.push(Layout {
                first: count,
                batches,
                places,
            });
            count += start;
        }
    }

    /// How many batches the groups have in all: up to the end of the last group's.
    pub(crate) fn count(&self) -> usize {
        self.groups
            .last()
            .map_or(0, |layout| layout.first + layout.batches[COLORS + 1])
    }

    /// The batch (counted across the groups, in order) and lane of the constraint of colour
    /// `color` (`COLORS` for the overflow) at `place` in solve order, in group `group`.
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
            return (layout.first + layout.batches[0] + offset, 0);
        }
        (
            layout.first + layout.batches[set] + offset / L::WIDTH,
            offset % L::WIDTH,
        )
    }

    /// Each group's plan, in order, and the buffers its batches are made in.
    pub(crate) fn groups_mut(&mut self) -> (impl Iterator<Item = GroupPlan<'_, L>>, &Pool<L>) {
        self.outputs.resize_with(self.groups.len(), Vec::new);
        let plans = self
            .groups
            .iter()
            .zip(&mut self.outputs)
            .map(|(layout, outputs)| GroupPlan {
                starts: layout.batches,
                outputs,
            });
        (plans, &self.pool)
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
