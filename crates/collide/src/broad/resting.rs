//! The boxes of bodies that do not move (static bodies, sleeping ones): kept between steps in a
//! few bounding volume hierarchies, so that a step costs nothing for them but the queries of
//! the bodies that move.
//!
//! Each hierarchy is a [`geom::Bvh`], built once, top down, and never changed but for
//! removals, which only mark an item dead. Boxes come and go in
//! batches (a level loaded, a pile falling asleep, a body woken), so the set is kept as
//! Bentley and Saxe's logarithmic method keeps a static structure dynamic: new boxes wait in a
//! short list until [`RestingTree::settle`], which builds them into a hierarchy of their own;
//! two neighbouring hierarchies are merged (rebuilt as one) while the older holds at most twice
//! as many live boxes as the newer, so there are O(log n) of them, largest first, and a box is
//! rebuilt O(log n) times over its life; a hierarchy more than half dead is rebuilt from its
//! live boxes. A query visits each hierarchy and the short list.
//!
//! Ids are small integers chosen by the caller (a body's slot), each present at most once.
//! Boxes with a NaN, infinite or inverted corner are kept apart and compared with every query,
//! as the row sweep compares them with every box. A query reports exactly the boxes that
//! [`Aabb::intersects`] its box, whatever that box is: which ids it reports depends only on
//! the boxes present, never on how they were inserted; the order of the reports does, so
//! callers sort what they collect.

use crate::ray::ray_aabb;
use geom::{Aabb, Bvh, BvhItem as Item, Point3, Ray, Real};

/// New boxes beyond this many are built into a hierarchy at [`RestingTree::settle`]; fewer
/// wait in the short list.
const WAITING: usize = 8;
/// An id no item has: a dead item's.
const DEAD: u32 = Bvh::DEAD;

/// One hierarchy and how many of its items are dead.
#[derive(Debug, Clone, Default)]
struct Level {
    bvh: Bvh,
    dead: usize,
    /// Built or moved since the places of its items were last written.
    moved: bool,
}

impl Level {
    fn live(&self) -> usize {
        self.bvh.items().len() - self.dead
    }

    /// A hierarchy over `items` (all finite).
    fn build(items: Vec<Item>) -> Self {
        Self {
            bvh: Bvh::build(items),
            dead: 0,
            moved: true,
        }
    }
}

/// Whether `ray` enters `aabb` at a time in `[0, limit]`.
#[inline]
fn reaches(ray: &Ray, aabb: &Aabb, limit: Real) -> bool {
    ray_aabb(ray, aabb, limit).is_some()
}

/// A cast's bound, loosened by a relative 1e-4 and 1e-4 m so that rounding in the slab test
/// never drops a box its body's exact test would hit at the bound.
#[inline]
fn loose(limit: Real) -> Real {
    limit + limit.abs() * 1e-4 + 1e-4
}

/// Where an id's box is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Absent,
    /// In the short list, at this index.
    Waiting(u32),
    /// In hierarchy `level`, at this index of its items.
    Level(u32, u32),
    /// Among the boxes reported to every query.
    Odd,
}

/// The set of resting boxes; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct RestingTree {
    levels: Vec<Level>,
    waiting: Vec<Item>,
    odd: Vec<Item>,
    places: Vec<Place>,
    len: usize,
}

/// Whether `aabb`'s corners are finite and in order.
fn is_sound(aabb: &Aabb) -> bool {
    let finite = |p: &Point3| p.iter().all(|x| x.is_finite());
    finite(&aabb.mins) && finite(&aabb.maxs) && (0..3).all(|k| aabb.mins[k] <= aabb.maxs[k])
}

impl RestingTree {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many boxes it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many hierarchies it keeps (for tests and measurements).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        self.places
            .get(id as usize)
            .is_some_and(|&p| p != Place::Absent)
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.levels.clear();
        self.waiting.clear();
        self.odd.clear();
        self.places.clear();
        self.len = 0;
    }

    /// Adds `id` with its box, replacing its box if it is already in.
    pub fn insert(&mut self, id: u32, aabb: Aabb) {
        assert!(id != DEAD, "id {DEAD} is reserved");
        self.remove(id);
        let k = id as usize;
        if self.places.len() <= k {
            self.places.resize(k + 1, Place::Absent);
        }
        if is_sound(&aabb) {
            self.places[k] = Place::Waiting(self.waiting.len() as u32);
            self.waiting.push(Item { aabb, id });
        } else {
            self.places[k] = Place::Odd;
            self.odd.push(Item { aabb, id });
        }
        self.len += 1;
    }

    /// Takes `id` out; whether it was in.
    pub fn remove(&mut self, id: u32) -> bool {
        let Some(&place) = self.places.get(id as usize) else {
            return false;
        };
        match place {
            Place::Absent => return false,
            Place::Waiting(at) => {
                self.waiting.swap_remove(at as usize);
                if let Some(moved) = self.waiting.get(at as usize) {
                    self.places[moved.id as usize] = Place::Waiting(at);
                }
            }
            Place::Level(level, at) => {
                let level = &mut self.levels[level as usize];
                level.bvh.kill(at as usize);
                level.dead += 1;
            }
            Place::Odd => self.odd.retain(|other| other.id != id),
        }
        self.places[id as usize] = Place::Absent;
        self.len -= 1;
        true
    }

    /// Builds the waiting boxes into a hierarchy when there are more than a few, rebuilds
    /// hierarchies more than half dead, and merges neighbours of similar sizes (see the module
    /// documentation). Queries are right whether or not it was called; they are faster after.
    pub fn settle(&mut self) {
        if self.waiting.len() > WAITING {
            let items = std::mem::take(&mut self.waiting);
            self.levels.push(Level::build(items));
        }
        if let Some(empty) = self.levels.iter().position(|level| level.live() == 0) {
            // The levels after the first empty one move down.
            for level in &mut self.levels[empty..] {
                level.moved = true;
            }
            self.levels.retain(|level| level.live() > 0);
        }
        for level in &mut self.levels {
            if level.dead > level.live() {
                *level = Level::build(live_items(level));
            }
        }
        while let [.., older, newer] = self.levels.as_slice()
            && older.live() <= 2 * newer.live()
        {
            let newer = self.levels.pop().expect("two levels");
            let older = self.levels.pop().expect("two levels");
            let mut items = live_items(&older);
            items.extend(live_items(&newer));
            self.levels.push(Level::build(items));
        }
        // The places of the items of levels built or moved are written again (as costly as
        // the builds were); the others' stand.
        for (l, level) in self.levels.iter_mut().enumerate() {
            if level.moved {
                level.moved = false;
                for (at, item) in level.bvh.items().iter().enumerate() {
                    if item.id != DEAD {
                        self.places[item.id as usize] = Place::Level(l as u32, at as u32);
                    }
                }
            }
        }
    }

    /// Calls `each` with the id of every box in the set, in no particular order.
    pub fn for_each_id(&self, mut each: impl FnMut(u32)) {
        for level in &self.levels {
            for item in level.bvh.items() {
                if item.id != DEAD {
                    each(item.id);
                }
            }
        }
        for item in self.waiting.iter().chain(&self.odd) {
            each(item.id);
        }
    }

    /// Casts `ray` through the set: calls `hit(id, limit)` for each box the ray enters within
    /// `limit` (at first `max_toi`; every box with a NaN, infinite or inverted corner too), and
    /// takes the returned value as the new limit (the caller's closest hit so far), so that
    /// boxes beyond it are not visited. A box the ray enters within the final limit is visited
    /// (a little past it too: the test is loosened against rounding), in no particular order.
    pub fn cast(&self, ray: &Ray, max_toi: Real, mut hit: impl FnMut(u32, Real) -> Real) {
        let mut limit = max_toi;
        for level in &self.levels {
            let bound = std::cell::Cell::new(limit);
            level.bvh.walk(
                |b| reaches(ray, b, loose(bound.get())),
                |id| bound.set(hit(id, bound.get())),
            );
            limit = bound.get();
        }
        for item in &self.waiting {
            if reaches(ray, &item.aabb, loose(limit)) {
                limit = hit(item.id, limit);
            }
        }
        for item in &self.odd {
            limit = hit(item.id, limit);
        }
    }

    /// Calls `found` with the id of every box that meets `aabb` ([`Aabb::intersects`]), each
    /// once, in no particular order.
    pub fn query(&self, aabb: &Aabb, mut found: impl FnMut(u32)) {
        for level in &self.levels {
            level.bvh.walk(|b| b.intersects(aabb), &mut found);
        }
        for item in self.waiting.iter().chain(&self.odd) {
            if item.aabb.intersects(aabb) {
                found(item.id);
            }
        }
    }
}

/// A level's live items.
fn live_items(level: &Level) -> Vec<Item> {
    level
        .bvh
        .items()
        .iter()
        .filter(|item| item.id != DEAD)
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::Vector3;

    /// A deterministic generator (SplitMix64).
    struct Mix(u64);

    impl Mix {
        fn unit(&mut self) -> Real {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
        }

        fn aabb(&mut self) -> Aabb {
            let c = Point3::new(self.unit(), self.unit(), self.unit()) * 100.0;
            let h = Vector3::new(self.unit(), self.unit(), self.unit()) * 3.0;
            Aabb::new(c - h, c + h)
        }
    }

    fn found(tree: &RestingTree, aabb: &Aabb) -> Vec<u32> {
        let mut ids = Vec::new();
        tree.query(aabb, |id| ids.push(id));
        ids.sort_unstable();
        ids
    }

    fn brute(boxes: &[Option<Aabb>], aabb: &Aabb) -> Vec<u32> {
        (0..boxes.len() as u32)
            .filter(|&k| boxes[k as usize].is_some_and(|b| b.intersects(aabb)))
            .collect()
    }

    #[test]
    fn queries_equal_a_scan_through_inserts_removals_and_settles() {
        let mut rng = Mix(7);
        let mut tree = RestingTree::new();
        let mut boxes: Vec<Option<Aabb>> = vec![None; 3000];
        for round in 0..60 {
            // A batch in, a batch out, sometimes a box made odd, then queries.
            for _ in 0..(rng.unit() * 200.0) as usize {
                let k = (rng.unit() * 3000.0) as usize;
                let mut aabb = rng.aabb();
                if rng.unit() < 0.01 {
                    aabb.maxs.x = Real::NAN;
                } else if rng.unit() < 0.01 {
                    aabb.maxs.y = Real::INFINITY;
                } else if rng.unit() < 0.01 {
                    (aabb.mins, aabb.maxs) = (aabb.maxs, aabb.mins);
                }
                tree.insert(k as u32, aabb);
                boxes[k] = Some(aabb);
            }
            for _ in 0..(rng.unit() * 120.0) as usize {
                let k = (rng.unit() * 3000.0) as usize;
                assert_eq!(tree.remove(k as u32), boxes[k].is_some());
                boxes[k] = None;
            }
            if round % 3 != 2 {
                tree.settle();
            }
            assert_eq!(tree.len(), boxes.iter().flatten().count());
            for n in 0..50 {
                let mut q = rng.aabb();
                match n {
                    0 => q.mins.z = Real::NEG_INFINITY,
                    1 => (q.mins, q.maxs) = (q.maxs, q.mins),
                    2 => q.mins.x = Real::NAN,
                    _ => {}
                }
                assert_eq!(found(&tree, &q), brute(&boxes, &q));
            }
        }
        assert!(tree.level_count() <= 12, "{} levels", tree.level_count());
        for k in 0..3000u32 {
            assert_eq!(tree.contains(k), boxes[k as usize].is_some());
        }
        // Casts: every box a ray enters within its bound is visited (the bound fixed here).
        for _ in 0..200 {
            let origin = Point3::new(rng.unit(), rng.unit(), rng.unit()) * 100.0;
            let dir = Vector3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5);
            let ray = Ray::new(origin, dir);
            let bound = rng.unit() * 150.0;
            let mut visited = Vec::new();
            tree.cast(&ray, bound, |id, limit| {
                visited.push(id);
                limit
            });
            visited.sort_unstable();
            for (k, b) in boxes.iter().enumerate() {
                let Some(b) = b else { continue };
                if is_sound(b) && reaches(&ray, b, bound) {
                    assert!(visited.binary_search(&(k as u32)).is_ok(), "missed box {k}");
                }
            }
        }
        let mut ids = Vec::new();
        tree.for_each_id(|id| ids.push(id));
        ids.sort_unstable();
        let present: Vec<u32> = (0..3000).filter(|&k| boxes[k as usize].is_some()).collect();
        assert_eq!(ids, present);
    }

    #[test]
    fn a_large_batch_is_one_hierarchy_and_identical_boxes_are_all_found() {
        let mut tree = RestingTree::new();
        let same = Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0));
        for k in 0..1000 {
            tree.insert(k, same);
        }
        tree.settle();
        assert_eq!(tree.level_count(), 1);
        assert_eq!(found(&tree, &same).len(), 1000);
        let far = same.translated(&Vector3::new(5.0, 0.0, 0.0));
        assert!(found(&tree, &far).is_empty());
        tree.clear();
        assert!(tree.is_empty() && found(&tree, &same).is_empty());
    }
}
