//! A hierarchical hashed grid, rebuilt at every query: the default broad phase.
//!
//! Algorithm (Ericson, Real-Time Collision Detection, 7.1 and 7.2.2 on uniform and hierarchical
//! grids; M. Teschner et al., "Optimized Spatial Hashing for Collision Detection of Deformable
//! Objects", 2003, for hashing cells into a table):
//! 1. Each box goes to the level whose cell side is the power of two in `[e, 2e)`, `e` its
//!    largest extent, and is listed in every cell of that level it overlaps: at most two per
//!    axis. Sides being powers of two, `floor(x / side)` is exact. Boxes smaller than the level
//!    of 90% of the boxes are raised to it, so that similar sizes share one level.
//! 2. The `(level, cell)` keys are hashed into a table of about four slots per box, and the list
//!    is ordered by slot with a counting sort: two linear passes, no comparisons.
//! 3. Pairs within a level: boxes listed in the same cell. A pair that shares several cells is
//!    reported only from the cell holding the lower corner of the two boxes' overlap,
//!    `max(a.mins, b.mins)`, so exactly once.
//! 4. Pairs across levels: each box looks up the cells it overlaps at every coarser level that
//!    holds boxes, under the same once-only rule.
//!
//! The cost is linear in the boxes plus the pairs at any density, and a few large boxes (walls,
//! a floor) stay cheap: they sit alone at a coarse level. Boxes that would cover more than 8
//! cells of their level (infinite or beyond `2^126` in size), and malformed ones (NaN, or
//! `mins > maxs`), are compared with every box.
//!
//! The order of the pairs depends only on the boxes, never on hashing seeds or timing.

use super::{BroadPhase, Proxies, ProxyId, forward_bookkeeping, ordered};
use geom::{Aabb, Real};

/// Cell sides are `2^level` for levels in this range; smaller boxes use the lowest level.
const MIN_LEVEL: i32 = -100;
const MAX_LEVEL: i32 = 126;
const LEVEL_COUNT: usize = (MAX_LEVEL - MIN_LEVEL + 1) as usize;
/// Bits of the set of levels in use: one per level in `MIN_LEVEL..=MAX_LEVEL`.
const LEVEL_WORDS: usize = LEVEL_COUNT.div_ceil(64);
/// A box listed in more cells than this at its level is compared with every box instead (2 per
/// axis is the rule; 3 happens when rounding hides that an extent exceeds the cell side).
const MAX_CELLS: i64 = 27;
/// Marks a box that is compared with every box.
const HUGE: i32 = i32::MIN;

/// A cell of one level: `[x, x + 1) * 2^level` along each axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    level: i32,
    x: i32,
    y: i32,
    z: i32,
}

impl Cell {
    /// A well-mixed 64-bit hash; the table uses its top bits.
    #[inline]
    fn hash(self) -> u64 {
        let h = (self.x as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (self.y as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (self.z as u32 as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
            ^ (self.level as u32 as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }
}

/// The cells a box covers at its level.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// The level, or [`HUGE`].
    level: i32,
    lo: [i32; 3],
    hi: [i32; 3],
}

/// One box listed in one cell.
#[derive(Debug, Clone, Copy)]
struct Item {
    cell: Cell,
    index: u32,
}

/// `1 / 2^level`, exact.
#[inline]
fn inverse_side(level: i32) -> Real {
    debug_assert!((MIN_LEVEL..=MAX_LEVEL).contains(&level));
    Real::from_bits(((127 - level) as u32) << 23)
}

/// The level for a box of largest extent `extent`: the least `k` with `2^k >= extent`, or
/// `None` if there is none in range (infinite or NaN extents).
#[inline]
fn level_of(extent: Real) -> Option<i32> {
    if !extent.is_finite() {
        return None;
    }
    if extent <= inverse_side(-MIN_LEVEL) {
        return Some(MIN_LEVEL);
    }
    let bits = extent.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32 - 127;
    let level = exponent + i32::from(bits & 0x7f_ffff != 0);
    (level <= MAX_LEVEL).then_some(level.max(MIN_LEVEL))
}

/// The cell coordinate of `x` on a grid of side `1 / inverse`: `floor(x * inverse)`, saturating
/// at the ends of `i32` (NaN gives 0), so monotone in `x`. Written out because `floor` is a
/// library call on the baseline x86-64 target.
#[inline]
fn coordinate(x: Real, inverse: Real) -> i32 {
    let scaled = x * inverse;
    let truncated = scaled as i32;
    if (truncated as Real) > scaled {
        truncated.saturating_sub(1)
    } else {
        truncated
    }
}

/// The cells of `aabb` at `level`.
#[inline]
fn span_at(aabb: &Aabb, level: i32) -> Span {
    let inverse = inverse_side(level);
    Span {
        level,
        lo: [0, 1, 2].map(|k| coordinate(aabb.mins[k], inverse)),
        hi: [0, 1, 2].map(|k| coordinate(aabb.maxs[k], inverse)),
    }
}

impl Span {
    fn cell_count(&self) -> i64 {
        (0..3)
            .map(|k| i64::from(self.hi[k]) - i64::from(self.lo[k]) + 1)
            .fold(1, i64::saturating_mul)
    }

    /// Calls `f` with each cell of the span.
    #[inline]
    fn for_each_cell(&self, mut f: impl FnMut(Cell)) {
        for z in self.lo[2]..=self.hi[2] {
            for y in self.lo[1]..=self.hi[1] {
                for x in self.lo[0]..=self.hi[0] {
                    f(Cell {
                        level: self.level,
                        x,
                        y,
                        z,
                    });
                }
            }
        }
    }
}

/// Whether `cell` holds the lower corner of the overlap of `a` and `b`: the one cell that
/// reports the pair.
#[inline]
fn reports(cell: Cell, a: &Aabb, b: &Aabb) -> bool {
    let inverse = inverse_side(cell.level);
    let corner = a.mins.sup(&b.mins);
    coordinate(corner.x, inverse) == cell.x
        && coordinate(corner.y, inverse) == cell.y
        && coordinate(corner.z, inverse) == cell.z
}

/// The default broad phase; see the module documentation. Besides the [`BroadPhase`] trait,
/// [`HashGrid::pairs_of`] takes the boxes as a slice and keeps no state between calls.
#[derive(Debug, Clone, Default)]
pub struct HashGrid {
    proxies: Proxies,
    // Scratch buffers, kept to avoid allocating at every query.
    spans: Vec<Span>,
    items: Vec<Item>,
    /// `starts[s]..starts[s + 1]` are the items of table slot `s`.
    starts: Vec<u32>,
    cursor: Vec<u32>,
    huge: Vec<u32>,
    /// For the trait: the live proxies' ids and boxes, densely.
    ids: Vec<u32>,
    boxes: Vec<Aabb>,
    dense_pairs: Vec<(u32, u32)>,
}

impl HashGrid {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every pair of `boxes` that intersect (touching counts), each once as `(i, j)` with
    /// `i < j` indices into `boxes`. The order depends only on `boxes`. `pairs` is cleared
    /// first; reusing it (and `self`) avoids allocation.
    pub fn pairs_of(&mut self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        assert!(u32::try_from(boxes.len()).is_ok(), "at most u32::MAX boxes");
        let mut levels = [0u64; LEVEL_WORDS];
        self.place(boxes, &mut levels);
        self.sort_into_table(boxes.len());
        self.pairs_within_cells(boxes, pairs);
        self.pairs_across_levels(boxes, &levels, pairs);
        self.pairs_with_huge(boxes, pairs);
    }

    /// Step 1: each box's level and cells; the levels in use are set in `levels`. Boxes below
    /// the level that holds 90% of them are raised to it, so that a population of similar
    /// sizes shares one level and needs no lookups across levels.
    fn place(&mut self, boxes: &[Aabb], levels: &mut [u64; LEVEL_WORDS]) {
        self.spans.clear();
        self.huge.clear();
        let mut histogram = [0u32; LEVEL_COUNT];
        for aabb in boxes {
            let extents = aabb.maxs - aabb.mins;
            // Inverted or NaN boxes go to the huge list, which uses `intersects` as is.
            let ordered_corners = (0..3).all(|k| aabb.mins[k] <= aabb.maxs[k]);
            let level = level_of(1.5 * extents.x.max(extents.y).max(extents.z))
                .filter(|_| ordered_corners)
                .unwrap_or(HUGE);
            if level != HUGE {
                histogram[(level - MIN_LEVEL) as usize] += 1;
            }
            self.spans.push(Span {
                level,
                lo: [0; 3],
                hi: [-1; 3],
            });
        }
        let placed: u32 = histogram.iter().sum();
        let mut seen = 0;
        let base = (MIN_LEVEL..=MAX_LEVEL)
            .zip(histogram)
            .find(|&(_, count)| {
                seen += count;
                10 * u64::from(seen) >= 9 * u64::from(placed)
            })
            .map_or(MIN_LEVEL, |(level, _)| level);
        for (index, (aabb, span)) in boxes.iter().zip(&mut self.spans).enumerate() {
            if span.level != HUGE {
                *span = span_at(aabb, span.level.max(base));
            }
            if span.level == HUGE || span.cell_count() > MAX_CELLS {
                span.level = HUGE;
                span.hi = [-1; 3];
                self.huge.push(index as u32);
            } else {
                let bit = (span.level - MIN_LEVEL) as usize;
                levels[bit / 64] |= 1 << (bit % 64);
            }
        }
    }

    /// The table slot of a cell, for a table of `2^bits` slots.
    #[inline]
    fn slot(cell: Cell, bits: u32) -> usize {
        (cell.hash() >> (64 - bits)) as usize
    }

    fn table_bits(&self) -> u32 {
        (self.starts.len() - 1).trailing_zeros()
    }

    /// Step 2: the items ordered by table slot (counting sort).
    fn sort_into_table(&mut self, count: usize) {
        let slots = (4 * count).next_power_of_two().max(64);
        let bits = slots.trailing_zeros();
        self.starts.clear();
        self.starts.resize(slots + 1, 0);
        for span in &self.spans {
            span.for_each_cell(|cell| self.starts[Self::slot(cell, bits) + 1] += 1);
        }
        for s in 1..=slots {
            self.starts[s] += self.starts[s - 1];
        }
        let total = self.starts[slots] as usize;
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.starts[..slots]);
        self.items.clear();
        self.items.resize(
            total,
            Item {
                cell: Cell {
                    level: 0,
                    x: 0,
                    y: 0,
                    z: 0,
                },
                index: 0,
            },
        );
        for (index, span) in self.spans.iter().enumerate() {
            span.for_each_cell(|cell| {
                let at = &mut self.cursor[Self::slot(cell, bits)];
                self.items[*at as usize] = Item {
                    cell,
                    index: index as u32,
                };
                *at += 1;
            });
        }
    }

    /// Step 3: pairs of boxes listed in the same cell.
    fn pairs_within_cells(&self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        for bounds in self.starts.windows(2) {
            let slot = &self.items[bounds[0] as usize..bounds[1] as usize];
            for (n, a) in slot.iter().enumerate() {
                for b in &slot[n + 1..] {
                    if a.cell != b.cell {
                        continue;
                    }
                    let (box_a, box_b) = (&boxes[a.index as usize], &boxes[b.index as usize]);
                    if box_a.intersects(box_b) && reports(a.cell, box_a, box_b) {
                        pairs.push(ordered_indices(a.index, b.index));
                    }
                }
            }
        }
    }

    /// Step 4: each box against the boxes of every coarser level in use.
    fn pairs_across_levels(
        &self,
        boxes: &[Aabb],
        levels: &[u64; LEVEL_WORDS],
        pairs: &mut Vec<(u32, u32)>,
    ) {
        let used: Vec<i32> = (MIN_LEVEL..=MAX_LEVEL)
            .filter(|level| {
                let bit = (level - MIN_LEVEL) as usize;
                levels[bit / 64] & (1 << (bit % 64)) != 0
            })
            .collect();
        if used.len() < 2 {
            return;
        }
        let bits = self.table_bits();
        for (index, (aabb, span)) in boxes.iter().zip(&self.spans).enumerate() {
            if span.level == HUGE {
                continue;
            }
            for &coarser in used.iter().filter(|&&level| level > span.level) {
                span_at(aabb, coarser).for_each_cell(|cell| {
                    let s = Self::slot(cell, bits);
                    let slot = &self.items[self.starts[s] as usize..self.starts[s + 1] as usize];
                    for other in slot.iter().filter(|item| item.cell == cell) {
                        let other_box = &boxes[other.index as usize];
                        if aabb.intersects(other_box) && reports(cell, aabb, other_box) {
                            pairs.push(ordered_indices(index as u32, other.index));
                        }
                    }
                });
            }
        }
    }

    /// Step 5: the boxes too large for the grid against every box.
    fn pairs_with_huge(&self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        for &h in &self.huge {
            let huge = &boxes[h as usize];
            for (index, (aabb, span)) in boxes.iter().zip(&self.spans).enumerate() {
                let index = index as u32;
                // Two huge boxes: reported from the higher one only.
                let skip = index == h || (span.level == HUGE && index > h);
                if !skip && huge.intersects(aabb) {
                    pairs.push(ordered_indices(h, index));
                }
            }
        }
    }
}

#[inline]
fn ordered_indices(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

impl BroadPhase for HashGrid {
    forward_bookkeeping!();

    fn overlapping_pairs(&mut self, pairs: &mut Vec<(ProxyId, ProxyId)>) {
        pairs.clear();
        self.proxies.forget_pending();
        let (mut ids, mut boxes, mut dense) = (
            std::mem::take(&mut self.ids),
            std::mem::take(&mut self.boxes),
            std::mem::take(&mut self.dense_pairs),
        );
        ids.clear();
        boxes.clear();
        for (id, aabb) in self.proxies.boxes.iter().enumerate() {
            if let Some(aabb) = aabb {
                ids.push(id as u32);
                boxes.push(*aabb);
            }
        }
        self.pairs_of(&boxes, &mut dense);
        pairs.extend(
            dense
                .iter()
                .map(|&(i, j)| ordered(ids[i as usize], ids[j as usize])),
        );
        pairs.sort_unstable();
        (self.ids, self.boxes, self.dense_pairs) = (ids, boxes, dense);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::{Point3, Vector3};

    #[test]
    fn levels_are_powers_of_two_from_twice_the_extent() {
        assert_eq!(level_of(1.0), Some(0));
        assert_eq!(level_of(1.01), Some(1));
        assert_eq!(level_of(2.0), Some(1));
        assert_eq!(level_of(6.0), Some(3));
        assert_eq!(level_of(0.3), Some(-1));
        assert_eq!(level_of(0.0), Some(MIN_LEVEL));
        assert_eq!(level_of(Real::INFINITY), None);
        assert_eq!(level_of(Real::NAN), None);
        assert_eq!(level_of(Real::MAX), None);
        assert_eq!(inverse_side(0), 1.0);
        assert_eq!(inverse_side(3), 0.125);
        assert_eq!(inverse_side(-2), 4.0);
    }

    #[test]
    fn coordinates_floor_and_saturate() {
        for x in [-3.5, -3.0, -2.9, -0.1, -0.0, 0.0, 0.1, 2.0, 2.9, 1e9, -1e9] {
            assert_eq!(coordinate(x, 1.0), (x as f64).floor() as i32, "{x}");
        }
        assert_eq!(coordinate(3.0, 0.5), 1);
        assert_eq!(coordinate(-0.5, 0.5), -1);
        assert_eq!(coordinate(1e30, 1.0), i32::MAX);
        assert_eq!(coordinate(-1e30, 1.0), i32::MIN);
        assert_eq!(coordinate(Real::NAN, 1.0), 0);
    }

    #[test]
    fn pairs_once_across_cells_levels_and_huge_boxes() {
        let cube = |x: Real, half: Real| {
            Aabb::from_center_half_extents(Point3::new(x, 0.0, 0.0), Vector3::repeat(half))
        };
        let boxes = [
            cube(0.0, 0.5),
            cube(0.9, 0.5),   // overlaps 0 across a cell boundary
            cube(0.5, 20.0),  // a coarse level: overlaps 0, 1, 3
            cube(30.0, 0.5),  // alone
            cube(20.4, 0.45), // touches 2's face? no: 20.4 - 0.45 = 19.95 < 20.5
            Aabb::new(
                Point3::new(-Real::INFINITY, -1.0, -1.0),
                Point3::new(0.1, 1.0, 1.0),
            ),
        ];
        let mut grid = HashGrid::new();
        let mut pairs = Vec::new();
        grid.pairs_of(&boxes, &mut pairs);
        pairs.sort_unstable();
        let mut expected = Vec::new();
        for i in 0..boxes.len() as u32 {
            for j in i + 1..boxes.len() as u32 {
                if boxes[i as usize].intersects(&boxes[j as usize]) {
                    expected.push((i, j));
                }
            }
        }
        assert_eq!(pairs, expected);
        assert!(expected.contains(&(0, 5)) && expected.contains(&(2, 4)));
    }
}
