//! The broad phase: which proxies' AABBs overlap, each pair once, in a deterministic order.
//!
//! Two implementations of [`BroadPhase`]: [`LinearBvh`], the default (a bounding volume
//! hierarchy over the boxes in Morton order, rebuilt each query; cost about `n log n`), and
//! [`SweepAndPrune`] on one axis, kept for comparison. `cargo bench --bench broad_phase`
//! measures both; the numbers are in the README.
//!
//! Determinism: orders depend only on the boxes and the proxy ids (ties broken by id), and the
//! pairs are returned sorted, so the result never depends on hashing or timing.

mod bvh;
mod sap;

pub use bvh::LinearBvh;
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

/// The proxies' boxes by id, shared bookkeeping of both implementations.
#[derive(Debug, Clone, Default)]
struct Proxies {
    /// The current box of each id; `None` for free ids.
    boxes: Vec<Option<Aabb>>,
    /// Bumped each time an id is (re)inserted, so that stale references to a reused id show.
    stamps: Vec<u32>,
    free: Vec<u32>,
}

impl Proxies {
    fn insert(&mut self, aabb: Aabb) -> u32 {
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
        Some(old)
    }

    fn get(&self, id: u32) -> Option<&Aabb> {
        self.boxes.get(id as usize)?.as_ref()
    }

    /// Whether `id` is live and was inserted at `stamp`.
    fn is_current(&self, id: u32, stamp: u32) -> bool {
        self.boxes[id as usize].is_some() && self.stamps[id as usize] == stamp
    }

    fn len(&self) -> usize {
        self.boxes.len() - self.free.len()
    }
}

/// Orders a pair as `(lower, higher)`.
#[inline]
fn ordered(a: u32, b: u32) -> (ProxyId, ProxyId) {
    if a < b {
        (ProxyId(a), ProxyId(b))
    } else {
        (ProxyId(b), ProxyId(a))
    }
}
