//! The constraints' batches: where each group's lie, the buffers they are made in, and a
//! stage run over a group's by a crew (`crew`), colour by colour.
//!
//! The constraints of one colour move disjoint bodies (`color`), so within a colour the order
//! does not matter: each batch reads and writes only its own lanes' bodies, and a fixed body
//! (static, sleeping or kinematic: zero inverse mass), which constraints of one colour may
//! share, is never written: no impulse changes it. A colour's batches are cut into blocks that
//! the crew's threads solve at once, each writing its bodies' new velocities straight back; so
//! every constraint computes on the same values as it would on one thread, and a step gives
//! the same bits at any thread count (`tests/solver_determinism.rs`). (Groups share no moving
//! body and index their own slice of the bodies: the solver runs small ones on several
//! threads at once too, `Solver::solve`.)
//!
//! The batches, group by group: the overflow's constraints (which may share bodies) one per
//! batch, solved in order by one thread; then each colour's constraints `L::WIDTH` to a batch,
//! the last batch of a colour padded with empty lanes.

use super::body::SolverBody;
use super::color::{COLORS, Coloring};
use super::contact::{Batch, Moved};
use super::crew::Member;
use super::joint::BallBatches;
use super::lanes::Lane;
use super::shared::Shared;
use std::ops::Range;
use std::sync::Mutex;

/// Constraints per block a thread claims: enough that claiming costs little beside it.
pub(crate) const BLOCK: usize = 128;

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
    pool: Pool<L>,
}

impl<L: Lane> Clone for Batches<L> {
    /// The layout; the buffers are not copied (never change a result).
    fn clone(&self) -> Self {
        Self {
            groups: self.groups.clone(),
            pool: Pool::default(),
        }
    }
}

/// Buffers of batches (the contacts' and the ball joints'), each lent to one group at a time.
/// Which buffer a group gets (on several threads, whichever is free) changes nothing: filling
/// a batch writes everything its stages read.
#[derive(Debug, Default)]
pub(crate) struct Pool<L: Lane>(Mutex<Vec<Buffer<L>>>);

/// One buffer of a [`Pool`].
#[derive(Debug, Default)]
struct Buffer<L: Lane> {
    batches: Vec<Batch<L>>,
    balls: BallBatches<L>,
}

impl<L: Lane> Pool<L> {
    /// The buffers (a panic elsewhere while one was lent leaves them usable: a buffer's
    /// content is refilled before use).
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Buffer<L>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One group's batches before they are made: where they lie, and its outputs.
pub(crate) struct GroupPlan {
    /// The overflow's batches `starts[0]..starts[1]`, colour `c`'s `starts[c + 1]..starts[c + 2]`.
    starts: [usize; COLORS + 2],
}

impl GroupPlan {
    /// How many batches the group has.
    pub(crate) fn len(&self) -> usize {
        self.starts[COLORS + 1]
    }

    /// Runs `work` on the group's batches and a buffer for its ball joints' (`BallBatches`),
    /// borrowed from `pool` (holding whatever they last held: `work` fills them first).
    pub(crate) fn with_batches<L: Lane, R>(
        self,
        pool: &Pool<L>,
        work: impl FnOnce(GroupBatches<'_, L>, &mut BallBatches<L>) -> R,
    ) -> R {
        let mut buffer = pool.lock().pop().unwrap_or_default();
        let len = self.len();
        // Grown, never shrunk: a batch's boxes are allocated once and kept.
        if buffer.batches.len() < len {
            buffer.batches.resize_with(len, Batch::default);
        }
        let batches = GroupBatches {
            batches: Shared::new(&mut buffer.batches[..len]),
            starts: self.starts,
        };
        let result = work(batches, &mut buffer.balls);
        pool.lock().push(buffer);
        result
    }
}

/// One group's batches, shared by the crew that solves it ([`GroupBatches::for_each`]).
pub(crate) struct GroupBatches<'a, L: Lane> {
    batches: Shared<'a, Batch<L>>,
    /// The overflow's batches `starts[0]..starts[1]`, colour `c`'s `starts[c + 1]..starts[c + 2]`.
    starts: [usize; COLORS + 2],
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
    /// by `Gather::fill` as the group solves, an empty lane with zeros). Each group's batches
    /// are counted from its first; [`Batches::locate`] counts them across the groups.
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
    pub(crate) fn groups_mut(&mut self) -> (impl Iterator<Item = GroupPlan>, &Pool<L>) {
        let plans = self.groups.iter().map(|layout| GroupPlan {
            starts: layout.batches,
        });
        (plans, &self.pool)
    }
}

// The crew's threads reach the batches through `shared`, by its rules.
#[allow(unsafe_code)]
impl<L: Lane> GroupBatches<'_, L> {
    /// How many batches the group has.
    pub(crate) fn len(&self) -> usize {
        self.batches.len()
    }

    /// Runs `work` on every batch of the group with its index, in blocks that the crew's
    /// threads claim (any order: filling the batches, copying their impulses out).
    pub(crate) fn each(&self, member: &mut Member<'_>, work: impl Fn(usize, &mut Batch<L>)) {
        let block = BLOCK / L::WIDTH;
        let len = self.batches.len();
        member.stage(len.div_ceil(block), |b| {
            let range = b * block..(b * block + block).min(len);
            // SAFETY: the blocks of a stage are disjoint.
            let batches = unsafe { self.batches.slice(range.clone()) };
            for (k, batch) in range.zip(batches) {
                work(k, batch);
            }
        });
    }

    /// Runs `stage` on every batch of the group, which writes the velocities it leaves straight
    /// back into `bodies` (the group's slice of the solver's bodies): the overflow first, in
    /// order on one thread, then each colour, its blocks on the crew's threads.
    pub(crate) fn for_each<F>(
        &self,
        member: &mut Member<'_>,
        bodies: &Shared<'_, SolverBody>,
        stage: F,
    ) where
        F: Fn(&mut Batch<L>, &Shared<'_, SolverBody>) -> Option<Moved<L>>,
    {
        let solve = |range: Range<usize>| {
            // SAFETY: the blocks of a colour are disjoint, and so are the moving bodies of its
            // batches (`shared`'s rules); the overflow is one block, alone.
            let batches = unsafe { self.batches.slice(range) };
            for k in 0..batches.len() {
                // The next batch's bodies lie all over the group's slice: asked for now, they
                // have arrived when it is solved.
                if let Some(next) = batches.get(k + 1) {
                    next.bodies().for_each(|i| bodies.prefetch(i));
                }
                let c = &mut batches[k];
                if let Some(moved) = stage(c, bodies) {
                    moved.store(c, bodies);
                }
            }
        };
        let starts = self.starts;
        if starts[1] > starts[0] {
            member.alone(|| solve(starts[0]..starts[1]));
        }
        let block = BLOCK / L::WIDTH;
        for color in 0..COLORS {
            let (first, end) = (starts[color + 1], starts[color + 2]);
            member.stage((end - first).div_ceil(block), |b| {
                solve(first + b * block..(first + b * block + block).min(end));
            });
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

/// Runs `a` and `b`, which read what the stage before left and write their own, on two of
/// rayon's threads at once when `worth` it (work enough to share) and the pool has several;
/// one after the other otherwise.
pub(crate) fn side_by_side(worth: bool, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    if worth && rayon::current_num_threads() > 1 {
        rayon::join(a, b);
        return;
    }
    let _ = worth;
    a();
    b();
}
