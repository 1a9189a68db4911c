//! The broad phase: which proxies' AABBs overlap, each pair once, in a deterministic order.
//!
//! Three implementations of [`BroadPhase`]: [`RowSweep`], the default (boxes kept once in rows
//! of grid cells, each row swept against its neighbours; cost linear in boxes plus pairs), and,
//! kept for comparison, [`LinearBvh`] (a bounding volume hierarchy over the boxes in Morton
//! order, rebuilt each query) and [`SweepAndPrune`] on one axis. `cargo bench --bench
//! broad_phase` measures them; the numbers are in BENCHMARKS.md.
//!
//! Determinism: orders depend only on the boxes and the proxy ids (ties broken by id), and the
//! pairs are returned sorted, so the result never depends on hashing or timing.

mod bvh;
mod rows;
mod sap;

pub use bvh::LinearBvh;
pub use rows::RowSweep;
pub use sap::SweepAndPrune;

use geom::Aabb;
use serde::{Deserialize, Serialize};

/// A broad-phase handle for one box. Ids of removed proxies are reused, last freed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProxyId(pub u32);

/// A set of boxes that reports which of them overlap.
pub trait BroadPhase {
    /// Adds a box (world space); returns its id.
    fn insert(&mut self, aabb: Aabb) -> ProxyId;
    /// Moves a proxy's box. Returns `false` (and changes nothing) for an unknown id.
    fn update(&mut self, id: ProxyId, aabb: Aabb) -> bool;
    /// Removes a proxy; returns its last box, or `None` for an unknown id.
    fn remove(&mut self, id: ProxyId) -> Option<Aabb>;
    /// The current box of a proxy.
    fn aabb(&self, id: ProxyId) -> Option<&Aabb>;
    /// The number of live proxies.
    fn len(&self) -> usize;
    /// Whether there are no proxies.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every pair of proxies whose boxes intersect (touching counts), each once as
    /// `(lower id, higher id)`, sorted. `pairs` is cleared first; reusing it avoids allocation.
    fn overlapping_pairs(&mut self, pairs: &mut Vec<(ProxyId, ProxyId)>);
}

/// The proxies' boxes by id, the bookkeeping both implementations share: ids, boxes, which
/// proxies arrived or left since the last query.
#[derive(Debug, Clone, Default)]
struct Proxies {
    /// The current box of each id; `None` for free ids.
    boxes: Vec<Option<Aabb>>,
    /// Bumped each time an id is (re)inserted, so that stale references to a reused id show.
    stamps: Vec<u32>,
    free: Vec<u32>,
    /// Ids inserted since the last query.
    pending: Vec<u32>,
    /// Whether a proxy was removed since the last query.
    removed_since_query: bool,
}

impl Proxies {
    fn insert(&mut self, aabb: Aabb) -> ProxyId {
        let id = self.allocate(aabb);
        self.pending.push(id);
        ProxyId(id)
    }

    fn allocate(&mut self, aabb: Aabb) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.boxes[id as usize] = Some(aabb);
                self.stamps[id as usize] = self.stamps[id as usize].wrapping_add(1);
                id
            }
            None => {
                self.boxes.push(Some(aabb));
                self.stamps.push(0);
                (self.boxes.len() - 1) as u32
            }
        }
    }

    fn update(&mut self, id: ProxyId, aabb: Aabb) -> bool {
        match self.boxes.get_mut(id.0 as usize) {
            Some(Some(slot)) => {
                *slot = aabb;
                true
            }
            _ => false,
        }
    }

    fn remove(&mut self, id: ProxyId) -> Option<Aabb> {
        let old = self.boxes.get_mut(id.0 as usize)?.take()?;
        self.free.push(id.0);
        self.pending.retain(|&p| p != id.0);
        self.removed_since_query = true;
        Some(old)
    }

    fn get(&self, id: ProxyId) -> Option<&Aabb> {
        self.boxes.get(id.0 as usize)?.as_ref()
    }

    /// Brings an implementation's list of `(id, stamp)` entries up to date: drops removed ones
    /// (`keep` sees each entry's id and stamp), then hands each newly inserted id and its stamp
    /// to `add`.
    fn sync<T>(
        &mut self,
        entries: &mut Vec<T>,
        id_and_stamp: impl Fn(&T) -> (u32, u32),
        mut add: impl FnMut(u32, u32, Aabb) -> T,
    ) {
        if self.removed_since_query {
            entries.retain(|e| {
                let (id, stamp) = id_and_stamp(e);
                self.is_current(id, stamp)
            });
            self.removed_since_query = false;
        }
        for &id in &self.pending {
            if let Some(aabb) = self.boxes[id as usize] {
                entries.push(add(id, self.stamps[id as usize], aabb));
            }
        }
        self.pending.clear();
    }

    /// Drops the record of changes since the last query, for an implementation that rebuilds
    /// everything at each query.
    fn forget_pending(&mut self) {
        self.pending.clear();
        self.removed_since_query = false;
    }

    /// Whether `id` is live and was inserted at `stamp`.
    fn is_current(&self, id: u32, stamp: u32) -> bool {
        self.boxes[id as usize].is_some() && self.stamps[id as usize] == stamp
    }

    fn len(&self) -> usize {
        self.boxes.len() - self.free.len()
    }
}

/// For implementations that rebuild everything at each query from a slice of boxes: the live
/// proxies gathered densely (in id order), and the dense pairs, sorted, mapped back to ids (so
/// still sorted).
#[derive(Debug, Clone, Default)]
struct DenseScratch {
    ids: Vec<u32>,
    boxes: Vec<Aabb>,
    pairs: Vec<(u32, u32)>,
}

impl DenseScratch {
    fn query(
        &mut self,
        proxies: &mut Proxies,
        out: &mut Vec<(ProxyId, ProxyId)>,
        // Pairs `(i, j)`, `i < j`, sorted.
        pairs_of: impl FnOnce(&[Aabb], &mut Vec<(u32, u32)>),
    ) {
        proxies.forget_pending();
        self.ids.clear();
        self.boxes.clear();
        for (id, aabb) in proxies.boxes.iter().enumerate() {
            if let Some(aabb) = aabb {
                self.ids.push(id as u32);
                self.boxes.push(*aabb);
            }
        }
        pairs_of(&self.boxes, &mut self.pairs);
        out.clear();
        out.extend(
            self.pairs
                .iter()
                .map(|&(i, j)| (ProxyId(self.ids[i as usize]), ProxyId(self.ids[j as usize]))),
        );
    }
}

/// The `BroadPhase` methods that are plain bookkeeping, forwarded to a `proxies` field.
macro_rules! forward_bookkeeping {
    () => {
        fn insert(&mut self, aabb: Aabb) -> ProxyId {
            self.proxies.insert(aabb)
        }
        fn update(&mut self, id: ProxyId, aabb: Aabb) -> bool {
            self.proxies.update(id, aabb)
        }
        fn remove(&mut self, id: ProxyId) -> Option<Aabb> {
            self.proxies.remove(id)
        }
        fn aabb(&self, id: ProxyId) -> Option<&Aabb> {
            self.proxies.get(id)
        }
        fn len(&self) -> usize {
            self.proxies.len()
        }
    };
}
use forward_bookkeeping;

/// Orders a pair of indices as `(lower, higher)`.
#[inline]
fn ordered_indices(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

/// Orders a pair of ids as `(lower, higher)`.
#[inline]
fn ordered(a: u32, b: u32) -> (ProxyId, ProxyId) {
    let (low, high) = ordered_indices(a, b);
    (ProxyId(low), ProxyId(high))
}
