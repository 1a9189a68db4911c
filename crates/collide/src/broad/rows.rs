//! Sort and sweep in rows of cells: the default broad phase.
//!
//! Algorithm (a uniform grid, Ericson, Real-Time Collision Detection, 7.1, where each box is
//! kept once, by the cell of its lower corner, and the cells' contents are swept as in sweep and
//! prune, 7.5.2):
//! 1. The cell side `c` is the power of two at or above the largest extent of 90% of the boxes.
//!    A box is *small* if it spans at most two cells along each axis; cells are
//!    `floor(x / c)` with `c` a power of two, so exact and monotone.
//! 2. Small boxes are sorted by the row of their lower corner's cell (`z`, then `y`), then by
//!    `mins.x`, in linear time: a stable counting sort by row, starting from the last call's
//!    order, then an insertion sort by `x` within rows, which bodies that moved a little leave
//!    nearly sorted (a comparison sort when rows are sparse or the order is far off).
//! 3. Two small boxes that overlap have lower corners in the same or adjacent rows. Each row is
//!    swept against itself and against its four forward neighbours, `(z, y+1)` and
//!    `(z+1, y-1..=y+1)`, so each pair of rows once; within a pair of rows both lists are in
//!    `x` order, and a box is compared only with the boxes of the other row that start within
//!    its `x` interval or before it, back to where the other row's running maximum of `maxs.x`
//!    (kept per entry) falls short of its start.
//! 4. Each box that is not small finds its small partners from the rows and cells its range can
//!    reach, and the boxes that are not small are handled among themselves by the same method,
//!    with their own cell side: about a tenth of the boxes at most go on at each round.
//! 5. Boxes with infinite, NaN or inverted corners are compared with every box.
//!
//! Memory is read in order and each box is stored once, so the cost is linear in boxes plus
//! pairs, and a few large boxes (walls, a floor) cost about one pass over the rows each.

use super::sort::{counting_sort, insertion_sort_within, sort_pairs};
use geom::{Aabb, Real};

/// Up to this many boxes, every pair is compared (the same pairs, in the same order).
const FEW: usize = 24;

/// Boxes per block of rows swept on a thread of its own.
#[cfg(feature = "parallel")]
const SWEEP_BLOCK: usize = 1024;

/// Cell sides are `2^level` for levels in this range; smaller boxes use the lowest level.
const MIN_LEVEL: i32 = -100;
const MAX_LEVEL: i32 = 126;
const LEVEL_COUNT: usize = (MAX_LEVEL - MIN_LEVEL + 1) as usize;
/// Cell coordinates are clamped to this magnitude, so that a neighbour's coordinate never
/// overflows (clamping keeps them monotone, which is all the method needs).
const CELL_LIMIT: i64 = 1 << 30;

/// `1 / 2^level`, exact.
#[inline]
fn inverse_side(level: i32) -> Real {
    debug_assert!((MIN_LEVEL..=MAX_LEVEL).contains(&level));
    Real::from_bits(((127 - level) as u32) << 23)
}

/// The least `k` with `2^k >= extent`, clamped to the levels' range (`extent` finite, >= 0).
#[inline]
fn level_of(extent: Real) -> i32 {
    if extent <= inverse_side(-MIN_LEVEL) {
        return MIN_LEVEL;
    }
    let bits = extent.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32 - 127;
    (exponent + i32::from(bits & 0x7f_ffff != 0)).clamp(MIN_LEVEL, MAX_LEVEL)
}

/// `floor(x * inverse)`, clamped to `+-CELL_LIMIT`: monotone in `x`. Written out because
/// `floor` is a library call on the baseline x86-64 target.
#[inline]
fn cell(x: Real, inverse: Real) -> i64 {
    let scaled = x * inverse;
    let truncated = scaled as i64;
    let floor = truncated.saturating_sub(i64::from((truncated as Real) > scaled));
    floor.clamp(-CELL_LIMIT, CELL_LIMIT)
}

/// A row's key: `z * 2^32 + y`, ordered as `(z, y)`.
#[inline]
fn row_key(y: i64, z: i64) -> i64 {
    (z << 32) + y
}

/// The `(y, z)` of a row key.
#[inline]
fn row_of(key: i64) -> (i64, i64) {
    let z = (key + (1 << 31)) >> 32;
    (key - (z << 32), z)
}

/// One small box in the sweep.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The row of its lower corner.
    row: i64,
    /// The cell of `aabb.mins.x`.
    x: i64,
    /// Its index in the caller's slice.
    index: u32,
    /// The largest `maxs.x` of the boxes in its row up to it (in sort order), itself included.
    reach: Real,
    aabb: Aabb,
}

impl Entry {
    /// The sort key: row, then `mins.x`, then index.
    #[inline]
    fn key(&self) -> (i64, Real, u32) {
        (self.row, self.aabb.mins.x, self.index)
    }

    /// Its index and box, as [`Found::test`] takes them.
    #[inline]
    fn indexed(&self) -> (u32, &Aabb) {
        (self.index, &self.aabb)
    }

    #[inline]
    fn precedes(&self, other: &Self) -> bool {
        self.key() < other.key()
    }
}

/// A run of entries with one row key.
#[derive(Debug, Clone, Copy)]
struct Row {
    key: i64,
    start: usize,
    end: usize,
}

/// One round of the method: the boxes it was given, sorted into rows, and those it left over.
#[derive(Debug, Clone, Default)]
struct Round {
    entries: Vec<Entry>,
    rows: Vec<Row>,
    /// The entries' indices in sorted order at the end of the last call: the next call's start.
    order: Vec<u32>,
    /// Boxes that are not small in this round (indices into the caller's slice).
    large: Vec<u32>,
    /// `1 / c`, the cell side's inverse.
    inverse: Real,
    scratch: Vec<Entry>,
    counts: Vec<u32>,
}

/// The broad phase; see the module documentation. It keeps only scratch memory and the last
/// call's order (which makes the next call's sort cheap), never the boxes.
#[derive(Debug, Clone, Default)]
pub struct RowSweep {
    rounds: Vec<Round>,
    /// Boxes with infinite, NaN or inverted corners.
    odd: Vec<u32>,
    /// The boxes a round is given.
    input: Vec<u32>,
    /// Per box: which round's input it belongs to, and whether it was placed yet (see
    /// [`Round::build`]); `generation` makes clearing unnecessary.
    marks: Vec<u32>,
    generation: u32,
    pair_scratch: Vec<(u32, u32)>,
    counts: Vec<u32>,
    /// Per block of rows swept on a thread of its own, its pairs.
    blocks: Vec<Vec<(u32, u32)>>,
}

impl RowSweep {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every pair of `boxes` that intersect (touching counts), each once as `(i, j)` with
    /// `i < j` indices into `boxes`, sorted. `pairs` is cleared first; reusing it (and `self`)
    /// avoids allocation.
    pub fn pairs_of(&mut self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        assert!(u32::try_from(boxes.len()).is_ok(), "at most u32::MAX boxes");
        if boxes.len() <= FEW {
            // Every pair compared, in order: faster than sorting a few boxes into rows.
            for (i, a) in boxes.iter().enumerate() {
                for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                    if a.intersects(b) {
                        pairs.push((i as u32, j as u32));
                    }
                }
            }
            return;
        }
        if self.marks.len() != boxes.len() || self.generation > u32::MAX - 8 {
            self.marks.clear();
            self.marks.resize(boxes.len(), 0);
            self.generation = 0;
        }
        self.odd.clear();
        self.input.clear();
        for (index, aabb) in boxes.iter().enumerate() {
            let finite = aabb
                .mins
                .iter()
                .chain(aabb.maxs.iter())
                .all(|v| v.is_finite());
            if finite && (0..3).all(|k| aabb.mins[k] <= aabb.maxs[k]) {
                self.input.push(index as u32);
            } else {
                self.odd.push(index as u32);
            }
        }
        let mut depth = 0;
        while !self.input.is_empty() {
            if self.rounds.len() <= depth {
                self.rounds.push(Round::default());
            }
            self.generation += 2;
            let round = &mut self.rounds[depth];
            round.build(boxes, &self.input, &mut self.marks, self.generation);
            round.sweep(pairs, &mut self.blocks);
            round.large_against_small(boxes, pairs);
            if round.large.len() == self.input.len() {
                // No box was small: boxes wider than the largest cell side (2^126) end here.
                // Compared directly.
                all_pairs_among(boxes, &round.large, pairs);
                break;
            }
            std::mem::swap(&mut self.input, &mut round.large);
            depth += 1;
        }
        for (n, &odd) in self.odd.iter().enumerate() {
            let a = &boxes[odd as usize];
            for (index, b) in boxes.iter().enumerate() {
                let index = index as u32;
                // Two odd boxes: reported from the later one only (`odd` is in index order).
                let earlier_odd = index < odd && self.odd[..n].binary_search(&index).is_ok();
                if index != odd && !earlier_odd && a.intersects(b) {
                    pairs.push(ordered(odd, index));
                }
            }
        }
        sort_pairs(pairs, boxes.len(), &mut self.pair_scratch, &mut self.counts);
    }
}

/// Orders a pair of indices as `(lower, higher)`.
#[inline]
fn ordered(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

fn all_pairs_among(boxes: &[Aabb], set: &[u32], pairs: &mut Vec<(u32, u32)>) {
    for (n, &a) in set.iter().enumerate() {
        for &b in &set[n + 1..] {
            if boxes[a as usize].intersects(&boxes[b as usize]) {
                pairs.push(ordered(a, b));
            }
        }
    }
}

impl Round {
    /// Steps 1 and 2: the cell side, the small boxes sorted into rows, the large ones set aside.
    /// `marks[i] == generation` flags box `i` as input not yet placed.
    fn build(&mut self, boxes: &[Aabb], input: &[u32], marks: &mut [u32], generation: u32) {
        let mut histogram = [0u32; LEVEL_COUNT];
        for &i in input {
            let extents = boxes[i as usize].extents();
            histogram[(level_of(extents.x.max(extents.y).max(extents.z)) - MIN_LEVEL) as usize] +=
                1;
        }
        let mut seen = 0u64;
        let level = (MIN_LEVEL..=MAX_LEVEL)
            .zip(histogram)
            .find(|&(_, count)| {
                seen += u64::from(count);
                10 * seen >= 9 * input.len() as u64
            })
            .map_or(MAX_LEVEL, |(level, _)| level);
        let inverse = inverse_side(level);
        self.inverse = inverse;

        self.large.clear();
        for &i in input {
            let aabb = &boxes[i as usize];
            let small =
                (0..3).all(|k| cell(aabb.maxs[k], inverse) - cell(aabb.mins[k], inverse) <= 1);
            if small {
                marks[i as usize] = generation;
            } else {
                self.large.push(i);
            }
        }
        // Small boxes in the last call's order first, then the new ones.
        self.entries.clear();
        let entry = |i: u32| {
            let aabb = boxes[i as usize];
            Entry {
                row: row_key(cell(aabb.mins.y, inverse), cell(aabb.mins.z, inverse)),
                x: cell(aabb.mins.x, inverse),
                index: i,
                reach: aabb.maxs.x,
                aabb,
            }
        };
        for &i in self.order.iter().chain(input) {
            if marks.get(i as usize) == Some(&generation) {
                marks[i as usize] = generation + 1;
                self.entries.push(entry(i));
            }
        }
        sort_entries(&mut self.entries, &mut self.scratch, &mut self.counts);
        self.order.clear();
        self.order.extend(self.entries.iter().map(|e| e.index));

        self.rows.clear();
        for n in 0..self.entries.len() {
            let e = self.entries[n];
            match self.rows.last_mut() {
                Some(row) if row.key == e.row => {
                    row.end = n + 1;
                    self.entries[n].reach = e.reach.max(self.entries[n - 1].reach);
                }
                _ => self.rows.push(Row {
                    key: e.row,
                    start: n,
                    end: n + 1,
                }),
            }
        }
    }

    /// Step 3: small boxes against small boxes, each pair of rows once. With the parallel
    /// feature and several threads, blocks of rows are swept on rayon's threads and their
    /// pairs joined in block order: the pairs of the sweep row by row, in its order.
    fn sweep(&self, pairs: &mut Vec<(u32, u32)>, blocks: &mut Vec<Vec<(u32, u32)>>) {
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 && self.entries.len() >= 2 * SWEEP_BLOCK {
            use rayon::prelude::*;
            // Blocks of about `SWEEP_BLOCK` boxes, cut between rows.
            let count = self.entries.len().div_ceil(SWEEP_BLOCK);
            let mut cuts: Vec<usize> = (0..count)
                .map(|k| {
                    let entry = k * self.entries.len() / count;
                    self.rows.partition_point(|r| r.end <= entry)
                })
                .collect();
            cuts.push(self.rows.len());
            cuts.dedup();
            blocks.resize_with(cuts.len() - 1, Vec::new);
            blocks.par_iter_mut().enumerate().for_each(|(k, block)| {
                block.clear();
                self.sweep_rows(cuts[k]..cuts[k + 1], block);
            });
            for block in blocks.iter() {
                pairs.extend_from_slice(block);
            }
            return;
        }
        let _ = blocks;
        self.sweep_rows(0..self.rows.len(), pairs);
    }

    /// [`Self::sweep`] of the rows `rows` against themselves and their forward neighbours.
    fn sweep_rows(&self, rows: std::ops::Range<usize>, pairs: &mut Vec<(u32, u32)>) {
        const FORWARD: [i64; 4] = [1, (1 << 32) - 1, 1 << 32, (1 << 32) + 1];
        let Some(first) = self.rows.get(rows.start) else {
            return;
        };
        // Each neighbour's pointer from the block's first row on (every later row's key is
        // larger, so the walk below only moves forward).
        let mut next = FORWARD.map(|offset| {
            let key = first.key + offset;
            rows.start + self.rows[rows.start..].partition_point(|r| r.key < key)
        });
        let mut found = Found::new(pairs);
        for row in &self.rows[rows] {
            let own = &self.entries[row.start..row.end];
            for (n, a) in own.iter().enumerate() {
                for b in &own[n + 1..] {
                    if b.aabb.mins.x > a.aabb.maxs.x {
                        break;
                    }
                    found.test(a.indexed(), b.indexed());
                }
            }
            for (offset, pointer) in FORWARD.iter().zip(&mut next) {
                let key = row.key + offset;
                while *pointer < self.rows.len() && self.rows[*pointer].key < key {
                    *pointer += 1;
                }
                if let Some(other) = self.rows.get(*pointer).filter(|r| r.key == key) {
                    sweep_two(own, &self.entries[other.start..other.end], &mut found);
                }
            }
        }
        found.flush();
    }

    /// Step 4: each large box against the small boxes whose lower corner's cell it can reach.
    fn large_against_small(&self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        if self.entries.is_empty() {
            return;
        }
        let inverse = self.inverse;
        let mut found = Found::new(pairs);
        for &g in &self.large {
            let big = &boxes[g as usize];
            // A small box b meets `big` only if cell(b.mins) is in [cell(big.mins) - 1,
            // cell(big.maxs)] on every axis (b spans at most two cells).
            let lo = [0, 1, 2].map(|k| cell(big.mins[k], inverse) - 1);
            let hi = [0, 1, 2].map(|k| cell(big.maxs[k], inverse));
            let first_row = self.rows.partition_point(|r| r.key < row_key(lo[1], lo[2]));
            let last_key = row_key(hi[1], hi[2]);
            for row in self.rows[first_row..]
                .iter()
                .take_while(|r| r.key <= last_key)
            {
                let (y, _) = row_of(row.key);
                if y < lo[1] || y > hi[1] {
                    continue;
                }
                let entries = &self.entries[row.start..row.end];
                let from = entries.partition_point(|e| e.x < lo[0]);
                for e in entries[from..].iter().take_while(|e| e.x <= hi[0]) {
                    found.test((g, big), e.indexed());
                }
            }
        }
        found.flush();
    }
}

/// Every intersecting pair with one box in `a` and one in `b`, two rows each sorted by
/// `mins.x`: a box of `b` is skipped for good once it and every box of `b` before it end before
/// the `a` box at hand starts (their running maximum of `maxs.x`, [`Entry::reach`]), as they
/// end before every later `a` box starts too; the boxes of `b` that start past its right side
/// cannot reach it either.
#[inline]
fn sweep_two(a: &[Entry], b: &[Entry], found: &mut Found<'_>) {
    let mut start = 0;
    for ea in a {
        while start < b.len() && b[start].reach < ea.aabb.mins.x {
            start += 1;
        }
        for eb in &b[start..] {
            if eb.aabb.mins.x > ea.aabb.maxs.x {
                break;
            }
            found.test(ea.indexed(), eb.indexed());
        }
    }
}

/// The sweep's intersecting pairs, collected without a branch per candidate: which of the
/// candidates the sweep meets intersect follows no pattern a branch predictor can learn (12%
/// of them in the falling pile of `testbed::scenes::bin`, 29% in Box3D's large pyramid), so
/// each is tested with all six comparisons and written into a small buffer whose length grows
/// by the test's outcome; full buffers go to `pairs`.
struct Found<'a> {
    pairs: &'a mut Vec<(u32, u32)>,
    buffer: [(u32, u32); FOUND_BUFFER],
    len: usize,
}

/// Pairs [`Found`] holds before it moves them to its list (a power of two).
const FOUND_BUFFER: usize = 64;

impl<'a> Found<'a> {
    fn new(pairs: &'a mut Vec<(u32, u32)>) -> Self {
        Self {
            pairs,
            buffer: [(0, 0); FOUND_BUFFER],
            len: 0,
        }
    }

    /// Keeps the pair of boxes `a` and `b` (their indices, in order) if they intersect
    /// (touching counts).
    #[inline]
    fn test(&mut self, (a, p): (u32, &Aabb), (b, q): (u32, &Aabb)) {
        let hit = p.intersects(q);
        self.buffer[self.len % FOUND_BUFFER] = ordered(a, b);
        self.len += usize::from(hit);
        if self.len == FOUND_BUFFER {
            self.flush();
        }
    }

    /// Moves the buffered pairs to the list.
    fn flush(&mut self) {
        self.pairs.extend_from_slice(&self.buffer[..self.len]);
        self.len = 0;
    }
}

/// Sorts entries by row, then `mins.x`, then index, in about linear time when the rows are
/// dense (the boxes' cells span at most about four rows per box, as in any bounded scene): a
/// stable counting sort by row, which keeps the last call's order within each row, then an
/// insertion sort of each row by `x`, which is cheap because boxes move little between calls.
/// Sparse rows fall back to a comparison sort.
fn sort_entries(entries: &mut Vec<Entry>, scratch: &mut Vec<Entry>, counts: &mut Vec<u32>) {
    let Some(first) = entries.first() else {
        return;
    };
    let (y0, z0) = row_of(first.row);
    let (mut lo, mut hi) = ([y0, z0], [y0, z0]);
    for e in entries.iter() {
        let (y, z) = row_of(e.row);
        lo = [lo[0].min(y), lo[1].min(z)];
        hi = [hi[0].max(y), hi[1].max(z)];
    }
    let width = hi[0] - lo[0] + 1;
    let rows = width.saturating_mul(hi[1] - lo[1] + 1);
    if rows > 4 * entries.len() as i64 + 1024 {
        comparison_sort(entries);
        return;
    }
    counting_sort(entries, scratch, counts, rows as usize, |e| {
        let (y, z) = row_of(e.row);
        ((z - lo[1]) * width + (y - lo[0])) as usize
    });
    // Within each row (now contiguous, in the last order): insertion sort by x, or a full sort
    // when that is far off (the first call, or boxes strung along x in one long row).
    let budget = 8 * entries.len() + 64;
    if !insertion_sort_within(entries, budget, Entry::precedes) {
        comparison_sort(entries);
    }
}

fn comparison_sort(entries: &mut [Entry]) {
    entries.sort_unstable_by(|p, q| p.key().partial_cmp(&q.key()).expect("finite coordinates"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_cells_and_rows() {
        assert_eq!(level_of(1.0), 0);
        assert_eq!(level_of(1.01), 1);
        assert_eq!(level_of(0.3), -1);
        assert_eq!(level_of(0.0), MIN_LEVEL);
        assert_eq!(level_of(Real::MAX), 128.min(MAX_LEVEL));
        assert_eq!(inverse_side(3), 0.125);
        for x in [-3.5, -3.0, -2.9, -0.1, -0.0, 0.0, 0.1, 2.0, 2.9, 1e9, -1e9] {
            assert_eq!(
                cell(x, 1.0),
                ((x as f64).floor() as i64).clamp(-CELL_LIMIT, CELL_LIMIT)
            );
        }
        assert_eq!(cell(Real::NAN, 1.0), 0);
        assert_eq!(cell(-Real::MAX, 0.5), -CELL_LIMIT);
        assert_eq!(cell(Real::MAX, 0.5), CELL_LIMIT);
        for (y, z) in [
            (0, 0),
            (-1, 0),
            (5, -7),
            (-CELL_LIMIT, CELL_LIMIT),
            (CELL_LIMIT, -CELL_LIMIT),
        ] {
            assert_eq!(row_of(row_key(y, z)), (y, z));
            assert!(row_key(y, z) < row_key(y + 1, z) && row_key(y + 1, z) < row_key(y - 1, z + 1));
        }
    }
}
