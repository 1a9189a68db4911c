//! Boxes fattened by a margin and their pairs, kept from one sweep to the next (Box2D v3's
//! and Box3D's fat AABBs, `B2_AABB_MARGIN`, 0.1 m): while every box of the same bodies stays
//! inside its fat box, the pairs of the boxes are among the pairs of the fat boxes, so a
//! test of those replaces the sweep.

use super::RowSweep;
use geom::{Aabb, Real, Vector3};

/// How much each side of a box is grown when it is swept (metres; Box3D's margin), at first
/// and whenever the fat boxes last; up to four times as much while bodies that move together
/// leave them within a few steps ([`FatSweep::pairs_of`]).
pub const FAT_MARGIN: Real = 0.1;

/// A [`RowSweep`] of fattened boxes, kept from call to call ([`FatSweep::pairs_of`]).
#[derive(Debug, Clone)]
pub struct FatSweep {
    sweep: RowSweep,
    /// The fat boxes of the last sweep (empty: none kept) and their pairs, sorted.
    fat: Vec<Aabb>,
    fat_pairs: Vec<(u32, u32)>,
    /// Buffers: the boxes that left their fat boxes, their pairs, the pairs before a merge.
    escaped: Vec<u32>,
    fresh: Vec<(u32, u32)>,
    merge_scratch: Vec<(u32, u32)>,
    /// How many calls used the kept fat boxes; how many calls to sweep the boxes as they are
    /// before fattening them again, and how many the last wait was.
    used: u32,
    wait: u32,
    backoff: u32,
    /// How many times [`FAT_MARGIN`] the boxes are grown by: 1, 2 or 4.
    scale: u8,
}

impl Default for FatSweep {
    fn default() -> Self {
        Self {
            sweep: RowSweep::new(),
            fat: Vec::new(),
            fat_pairs: Vec::new(),
            escaped: Vec::new(),
            fresh: Vec::new(),
            merge_scratch: Vec::new(),
            used: 0,
            wait: 0,
            backoff: 0,
            scale: 1,
        }
    }
}

impl FatSweep {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every pair of `boxes` that intersect, as [`RowSweep::pairs_of`] returns them (each once
    /// as `(i, j)` with `i < j`, sorted): the same pairs in the same order. `same` says that
    /// `boxes` are the boxes of the same bodies, in the same order, as at the last call; then,
    /// if every box lies in its fat box of the last sweep, the pairs are those of the fat
    /// boxes' pairs whose boxes intersect (two boxes that meet lie in fat boxes that meet, so
    /// none is missed). Otherwise the boxes are fattened by [`FAT_MARGIN`] (or two or four
    /// times it: while the fat boxes are used a few times before too many boxes leave them,
    /// the margin doubles, up to four times; when they are used long it halves) and swept; a box
    /// with a corner that is not finite, or inverted, is swept as it is, and nothing kept; so
    /// are the boxes for a while after fat boxes that no call used again (`MIN_BACKOFF`).
    pub fn pairs_of(&mut self, boxes: &[Aabb], same: bool, pairs: &mut Vec<(u32, u32)>) {
        let kept = same && self.fat.len() == boxes.len() && !self.fat.is_empty();
        if kept && self.refatten(boxes) {
            self.used += 1;
        } else {
            // Fat boxes that were never used again (the bodies move faster than the margin
            // a call, or are other bodies each call) cost more to sweep than the boxes (more
            // pairs): the boxes are swept as they are for a while, longer each time that
            // happens again.
            if !self.fat.is_empty() {
                self.backoff = if self.used == 0 {
                    (2 * self.backoff).clamp(MIN_BACKOFF, MAX_BACKOFF)
                } else {
                    0
                };
                self.wait = self.backoff;
                // Fat boxes used a few times before too many left them (bodies that move
                // together, slower than the margin a call but not by much: a falling grid of
                // joints) last longer with a wider margin, if they are sparse (fewer pairs
                // than `SPARSE` a box: among packed bodies, as the washer's, a wider margin
                // adds more pairs to every call than it saves sweeps); ones never used go back
                // to the narrowest, ones used long to half as wide.
                let sparse = self.fat_pairs.len() < SPARSE * self.fat.len();
                self.scale = match self.used {
                    0 => 1,
                    1..SHORT_LIVED if sparse => (2 * self.scale).min(4),
                    1..LONG_LIVED => self.scale,
                    _ => (self.scale / 2).max(1),
                };
            }
            self.fat.clear();
            self.fat_pairs.clear();
            if self.wait > 0 || !boxes.iter().all(plain) {
                self.wait = self.wait.saturating_sub(1);
                self.sweep.pairs_of(boxes, pairs);
                return;
            }
            let margin = self.margin();
            self.fat.extend(boxes.iter().map(|b| fattened(b, margin)));
            self.sweep.pairs_of(&self.fat, &mut self.fat_pairs);
            self.used = 0;
        }
        pairs.clear();
        let meet = |&&(i, j): &&(u32, u32)| boxes[i as usize].intersects(&boxes[j as usize]);
        pairs.extend(self.fat_pairs.iter().filter(meet));
    }

    /// The margin the boxes are grown by now.
    fn margin(&self) -> Real {
        FAT_MARGIN * Real::from(self.scale)
    }

    /// With the fat boxes of the same bodies kept: each box that left its fat box fattened
    /// again and its pairs found against every fat box (the others' pairs hold), if few left
    /// and each is plain. Whether the fat boxes and pairs now hold `boxes`.
    fn refatten(&mut self, boxes: &[Aabb]) -> bool {
        self.escaped.clear();
        for (i, (fat, aabb)) in self.fat.iter().zip(boxes).enumerate() {
            if !fat.contains(aabb) {
                if self.escaped.len() == FEW_ESCAPED || !plain(aabb) {
                    return false;
                }
                self.escaped.push(i as u32);
            }
        }
        if self.escaped.is_empty() {
            return true;
        }
        if self.escaped.len() * FEW_ESCAPED > boxes.len() {
            return false;
        }
        let margin = self.margin();
        for &e in &self.escaped {
            self.fat[e as usize] = fattened(&boxes[e as usize], margin);
        }
        // The escaped boxes' pairs, each once, sorted; the others' kept, then both merged.
        let fresh = &mut self.fresh;
        fresh.clear();
        for &e in &self.escaped {
            let of = &self.fat[e as usize];
            for (j, other) in self.fat.iter().enumerate() {
                let j = j as u32;
                if j != e && of.intersects(other) {
                    fresh.push((e.min(j), e.max(j)));
                }
            }
        }
        fresh.sort_unstable();
        fresh.dedup();
        let escaped = &self.escaped;
        let moved = |i: u32| escaped.binary_search(&i).is_ok();
        self.fat_pairs.retain(|&(i, j)| !moved(i) && !moved(j));
        std::mem::swap(&mut self.fat_pairs, &mut self.merge_scratch);
        self.fat_pairs.clear();
        let (mut a, mut b) = (
            self.merge_scratch.iter().peekable(),
            fresh.iter().peekable(),
        );
        while let (Some(&&x), Some(&&y)) = (a.peek(), b.peek()) {
            if x < y {
                self.fat_pairs.push(x);
                a.next();
            } else {
                self.fat_pairs.push(y);
                b.next();
            }
        }
        self.fat_pairs.extend(a.chain(b));
        true
    }
}

/// Fat boxes used fewer times than this before too many boxes left them widen the margin;
/// used this many times or more (`LONG_LIVED`), they narrow it.
const SHORT_LIVED: u32 = 4;
const LONG_LIVED: u32 = 32;

/// Fat boxes with fewer pairs than this many a box are sparse enough to widen.
const SPARSE: usize = 5;

/// The calls the boxes are swept as they are after fat boxes that were never used again: at
/// first, and at most (doubling each time in a row).
const MIN_BACKOFF: u32 = 4;
const MAX_BACKOFF: u32 = 64;

/// At most this many boxes (and at most one box in this many) that left their fat boxes are
/// fattened again one by one, each tested against every fat box; past that, all are swept.
const FEW_ESCAPED: usize = 16;

/// `aabb` grown by `margin` on every side: `mins - m <= mins` and `maxs <= maxs + m` for
/// finite corners and `m >= 0`, as rounded, so the box lies in its fat one.
fn fattened(aabb: &Aabb, margin: Real) -> Aabb {
    let margin = Vector3::repeat(margin);
    Aabb::new(aabb.mins - margin, aabb.maxs + margin)
}

impl FatSweep {
    /// Every pair of `boxes` that intersect, swept as they are ([`RowSweep::pairs_of`]): for
    /// boxes of other bodies than the kept ones, which stay kept.
    pub fn pairs_of_others(&mut self, boxes: &[Aabb], pairs: &mut Vec<(u32, u32)>) {
        self.sweep.pairs_of(boxes, pairs);
    }
}

/// Whether `aabb`'s corners are finite and in order (the boxes a sweep sorts into rows).
fn plain(aabb: &Aabb) -> bool {
    let finite = aabb
        .mins
        .iter()
        .chain(aabb.maxs.iter())
        .all(|v| v.is_finite());
    finite && (0..3).all(|k| aabb.mins[k] <= aabb.maxs[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::Point3;

    /// A few hundred boxes on a grid, moved a little each call, a few of them far now and
    /// then, all of them far now and then, and the bodies changed once: at every call the pairs
    /// are those a fresh sweep finds, in its order; the fat boxes were kept, some of them made
    /// again, and all of them made again.
    #[test]
    fn the_kept_pairs_are_a_fresh_sweeps() {
        let mut seed = 7u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as Real / u32::MAX as Real
        };
        let mut centres: Vec<Point3> = (0..400)
            .map(|k| Point3::new((k % 20) as Real * 0.9, (k / 20) as Real * 0.9, random()))
            .collect();
        let half = Vector3::repeat(0.45);
        let mut fat = FatSweep::new();
        let mut remade = [0usize; 3];
        for step in 0..80 {
            let mut jolt = Vector3::new(random() - 0.5, random() - 0.5, random() - 0.5) * 0.01;
            if step % 11 == 5 {
                jolt *= 30.0;
            }
            for c in &mut centres {
                *c += jolt + Vector3::new(random(), random(), random()) * 0.002;
            }
            if step % 7 == 3 {
                for _ in 0..3 {
                    let k = (random() * 399.0) as usize;
                    centres[k] += Vector3::new(0.3, -0.2, 0.25);
                }
            }
            let count = if step < 40 { 400 } else { 399 };
            let boxes: Vec<Aabb> = (centres[..count].iter())
                .map(|c| Aabb::new(c - half, c + half))
                .collect();
            let before = fat.fat.clone();
            assert!(!checked_pairs(&mut fat, &boxes, step != 40, step).is_empty());
            if before.len() == fat.fat.len() {
                let changed = before.iter().zip(&fat.fat).filter(|(a, b)| a != b).count();
                remade[if changed == 0 {
                    0
                } else if changed <= 16 {
                    1
                } else {
                    2
                }] += 1;
            }
        }
        assert!(
            remade.iter().all(|&n| n > 3),
            "kept, some, all made again: {remade:?}"
        );
    }

    /// `fat`'s pairs of `boxes` (`same`: see [`FatSweep::pairs_of`]), which must be a fresh
    /// sweep's, at call `step`.
    fn checked_pairs(
        fat: &mut FatSweep,
        boxes: &[Aabb],
        same: bool,
        step: usize,
    ) -> Vec<(u32, u32)> {
        let (mut found, mut expected) = (Vec::new(), Vec::new());
        fat.pairs_of(boxes, same, &mut found);
        RowSweep::new().pairs_of(boxes, &mut expected);
        assert_eq!(found, expected, "call {step}");
        found
    }

    /// A unit box with its lowest corner at `(x, y, 0)`.
    fn unit(x: Real, y: Real) -> Aabb {
        Aabb::new(Point3::new(x, y, 0.0), Point3::new(x + 1.0, y + 1.0, 1.0))
    }

    /// Boxes that move past their fat boxes at every call: swept as they are for a while after
    /// each fat sweep that no call used, fattened again now and then; the pairs always a fresh
    /// sweep's.
    #[test]
    fn boxes_too_fast_for_the_margin_are_swept_as_they_are() {
        let mut fat = FatSweep::new();
        let mut fattened = Vec::new();
        for step in 0..100 {
            let drop = -0.25 * step as Real;
            let boxes: Vec<Aabb> = (0..60)
                .map(|k| unit((k % 10) as Real * 0.95, (k / 10) as Real * 0.95 + drop))
                .collect();
            checked_pairs(&mut fat, &boxes, true, step);
            if !fat.fat.is_empty() {
                fattened.push(step);
            }
        }
        // Step 0, then after waits of 4, 8, 16, 32 and 64 calls.
        assert_eq!(fattened, [0, 5, 14, 31, 64], "fattened at {fattened:?}");
    }

    /// Boxes that fall together a little slower than the margin a call: the fat boxes last one
    /// call, then two with the margin doubled, then five with it four times over, where it
    /// stays; the boxes then rest, and when they move again after long rest the margin
    /// halves. The pairs are always a fresh sweep's.
    #[test]
    fn a_margin_outrun_by_boxes_moving_together_widens() {
        let mut fat = FatSweep::new();
        let mut scales = Vec::new();
        let mut drop = 0.0;
        for step in 0..81 {
            if step < 40 {
                drop -= 0.07;
            }
            if step == 80 {
                drop -= 1.0;
            }
            let boxes: Vec<Aabb> = (0..60)
                .map(|k| unit((k % 10) as Real * 1.05, (k / 10) as Real * 1.05 + drop))
                .collect();
            checked_pairs(&mut fat, &boxes, true, step);
            scales.push(fat.scale);
        }
        assert_eq!(scales[..8], [1, 1, 2, 2, 2, 4, 4, 4], "{scales:?}");
        assert!(scales[8..40].iter().all(|&s| s == 4), "{scales:?}");
        // At rest from step 40, the fat boxes used at every call; moved far at step 80.
        assert_eq!(scales[79], 4);
        assert_eq!(scales[80], 2);
    }

    /// A box with a corner that is not finite is swept as it is, and nothing kept.
    #[test]
    fn odd_boxes_are_swept_as_they_are() {
        let mut boxes: Vec<Aabb> = (0..40).map(|k| unit(k as Real * 0.9, 0.0)).collect();
        boxes[3].maxs.x = Real::NAN;
        let mut fat = FatSweep::new();
        for _ in 0..2 {
            checked_pairs(&mut fat, &boxes, true, 0);
            assert!(fat.fat.is_empty());
        }
    }
}
