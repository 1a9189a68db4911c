//! Sweep and prune (D. Baraff, "Dynamic simulation of non-penetrating rigid bodies", 1992;
//! Ericson, Real-Time Collision Detection, 7.5.2): the boxes are kept sorted by their lower bound
//! on one axis; a sweep along that order only compares boxes whose intervals on the axis
//! overlap. Between steps bodies move a little, so the order is nearly sorted and an insertion
//! sort restores it in about linear time. The axis is the one along which the box centres are
//! most spread, re-chosen at each query (a change costs one full sort).
//!
//! Kept beside [`super::LinearBvh`] for comparison: at a constant density each box's interval on
//! the sweep axis overlaps those of a whole slab of boxes, so the sweep grows like `n^(5/3)`.

use super::{BroadPhase, Proxies, ProxyId, forward_bookkeeping, ordered};
use geom::{Aabb, Real};

#[derive(Debug, Clone, Copy)]
struct Entry {
    id: u32,
    /// The id's insertion stamp: an entry whose id was removed and reused is stale.
    stamp: u32,
    aabb: Aabb,
}

/// Sweep and prune over a set of AABBs, world space.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    proxies: Proxies,
    /// Live proxies, sorted by `aabb.mins[axis]` (then id) as of the last query.
    sorted: Vec<Entry>,
    axis: usize,
}

impl BroadPhase for SweepAndPrune {
    forward_bookkeeping!();

    fn overlapping_pairs(&mut self, pairs: &mut Vec<(ProxyId, ProxyId)>) {
        pairs.clear();
        self.refresh();
        let axis = self.axis;
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let sorted = &self.sorted;
        for (index, a) in sorted.iter().enumerate() {
            let reach = a.aabb.maxs[axis];
            for b in &sorted[index + 1..] {
                if b.aabb.mins[axis] > reach {
                    break;
                }
                if a.aabb.mins[u] <= b.aabb.maxs[u]
                    && b.aabb.mins[u] <= a.aabb.maxs[u]
                    && a.aabb.mins[v] <= b.aabb.maxs[v]
                    && b.aabb.mins[v] <= a.aabb.maxs[v]
                {
                    pairs.push(ordered(a.id, b.id));
                }
            }
        }
        pairs.sort_unstable();
    }
}

impl SweepAndPrune {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings `sorted` up to date: drops removed proxies, adds new ones, copies the current
    /// boxes, picks the sweep axis and sorts.
    fn refresh(&mut self) {
        self.proxies.sync(
            &mut self.sorted,
            |e| (e.id, e.stamp),
            |id, stamp, aabb| Entry { id, stamp, aabb },
        );
        for entry in &mut self.sorted {
            if let Some(&aabb) = self.proxies.get(ProxyId(entry.id)) {
                entry.aabb = aabb;
            }
        }
        let axis = self.widest_axis();
        let key = |e: &Entry| (e.aabb.mins[axis], e.id);
        let before = |a: &Entry, b: &Entry| {
            let (ka, kb) = (key(a), key(b));
            ka.0 < kb.0 || (ka.0 == kb.0 && ka.1 < kb.1)
        };
        if axis != self.axis {
            self.axis = axis;
            self.sorted
                .sort_unstable_by(|a, b| key(a).0.total_cmp(&key(b).0).then(a.id.cmp(&b.id)));
        } else {
            // Insertion sort: linear when the order barely changed since the last step.
            for i in 1..self.sorted.len() {
                let mut j = i;
                while j > 0 && before(&self.sorted[j], &self.sorted[j - 1]) {
                    self.sorted.swap(j, j - 1);
                    j -= 1;
                }
            }
        }
    }

    /// The axis along which the box centres vary most.
    fn widest_axis(&self) -> usize {
        let n = self.sorted.len() as Real;
        if n < 2.0 {
            return self.axis;
        }
        let mut sum = [0.0f64; 3];
        let mut sum_sq = [0.0f64; 3];
        for e in &self.sorted {
            let c = e.aabb.center();
            for k in 0..3 {
                sum[k] += f64::from(c[k]);
                sum_sq[k] += f64::from(c[k]) * f64::from(c[k]);
            }
        }
        let n = f64::from(n);
        let variance = |k: usize| sum_sq[k] / n - (sum[k] / n) * (sum[k] / n);
        // Switching costs a full sort: only switch for a clearly wider axis.
        let mut best = self.axis;
        for k in 0..3 {
            if variance(k) > 1.5 * variance(best) {
                best = k;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::{Point3, Vector3};

    fn cube(x: Real, y: Real, z: Real) -> Aabb {
        Aabb::from_center_half_extents(Point3::new(x, y, z), Vector3::repeat(0.5))
    }

    #[test]
    fn pairs_once_sorted_and_follow_updates() {
        let mut sap = SweepAndPrune::new();
        let a = sap.insert(cube(0.0, 0.0, 0.0));
        let b = sap.insert(cube(0.9, 0.0, 0.0));
        let c = sap.insert(cube(5.0, 0.0, 0.0));
        let mut pairs = Vec::new();
        sap.overlapping_pairs(&mut pairs);
        assert_eq!(pairs, vec![(a, b)]);
        assert!(sap.update(c, cube(1.2, 0.9, 0.0)));
        sap.overlapping_pairs(&mut pairs);
        assert_eq!(pairs, vec![(a, b), (b, c)]);
        assert_eq!(sap.remove(b), Some(cube(0.9, 0.0, 0.0)));
        assert_eq!(sap.remove(b), None);
        assert!(!sap.update(b, cube(0.0, 0.0, 0.0)));
        sap.overlapping_pairs(&mut pairs);
        assert!(pairs.is_empty());
        // Touching boxes pair up.
        let d = sap.insert(cube(1.0, 0.0, 0.0));
        assert_eq!(d, b, "the freed id is reused");
        sap.overlapping_pairs(&mut pairs);
        assert_eq!(pairs, vec![(a, d), (d, c)]);
    }
}
