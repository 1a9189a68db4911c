//! Islands and sleeping (`Response::Solver`), after Box2D v3: an island is a set of dynamic
//! bodies linked by touching contacts (static bodies do not link: a floor does not join
//! everything on it into one island). A body is at rest while it moves slower than
//! `SleepConfig::speed_threshold`; an island whose every body has rested for `time_to_sleep`
//! sleeps: velocities zeroed, no integration, no solve, no collision test between sleeping and
//! static bodies (their contacts and impulses are kept as they were).
//!
//! Islands are found afresh from the touching pairs whenever they are needed (a union-find over
//! dense body indices, roots the smallest index), so they carry no state of their own and come
//! out the same whatever the order pairs are visited in. The sleeping bodies of one island are
//! linked by the world's touching pairs, which do not change while they sleep: waking a body
//! wakes every sleeping body reachable from it through them.

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::config::SleepConfig;
use crate::limits;
use geom::{Real, Vector3};
use slotmap::SlotMap;

/// A union-find over dense body indices; each set's root is its smallest index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Islands {
    parent: Vec<u32>,
    /// Buffers of `update`, per dense index: whether the body can sleep (awake dynamic),
    /// whether it is a moving kinematic body, and the least rest time of its island (at roots).
    sleepy: Vec<bool>,
    moving_kinematic: Vec<bool>,
    least: Vec<Real>,
}

impl Islands {
    /// `n` singletons.
    pub(crate) fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n as u32);
    }

    pub(crate) fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let grandparent = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = grandparent;
            i = grandparent;
        }
        i
    }

    pub(crate) fn union(&mut self, i: u32, j: u32) {
        let (a, b) = (self.find(i), self.find(j));
        if a != b {
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent[high as usize] = low;
        }
    }
}

/// Whether a body counts as moving for the collision stage: an awake dynamic body or a
/// kinematic one with a velocity (a kinematic body at rest is a static one until it moves).
#[inline]
pub(crate) fn is_awake_movable(body: &RigidBody) -> bool {
    match body.kind {
        BodyKind::Static => false,
        BodyKind::Kinematic => is_moving_kinematic(body),
        BodyKind::Dynamic => !body.sleep.asleep,
    }
}

/// Whether the pair of `a` and `b` sleeps: one of them sleeps and neither moves. Such pairs
/// are not tested; they keep touching, and keep their impulses, as when they fell asleep.
#[inline]
pub(crate) fn is_sleeping_pair(a: &RigidBody, b: &RigidBody) -> bool {
    (a.sleep.asleep || b.sleep.asleep) && !is_awake_movable(a) && !is_awake_movable(b)
}

#[inline]
pub(crate) fn is_moving_kinematic(body: &RigidBody) -> bool {
    body.kind == BodyKind::Kinematic
        && (body.linvel != Vector3::zeros() || body.angvel != Vector3::zeros())
}

/// Wakes the sleeping bodies in `seeds` and every sleeping body linked to them through
/// `touching` (the world's touching pairs, sorted) or `joined` (its jointed pairs), and lists
/// them in `woken`. Returns how many bodies woke. Costs in proportion to the pairs, not the
/// bodies: the union-find runs over the sleeping bodies the links and seeds name.
pub(crate) fn wake_islands(
    bodies: &mut SlotMap<BodyHandle, RigidBody>,
    touching: &[(BodyHandle, BodyHandle)],
    joined: &[(BodyHandle, BodyHandle)],
    seeds: &[BodyHandle],
    islands: &mut Islands,
    woken: &mut Vec<BodyHandle>,
) -> usize {
    woken.clear();
    let asleep = |h: BodyHandle| bodies.get(h).is_some_and(|b| b.sleep.asleep);
    if !seeds.iter().any(|&h| asleep(h)) {
        return 0;
    }
    let links = || {
        touching
            .iter()
            .chain(joined)
            .filter(|&&(a, b)| asleep(a) && asleep(b))
    };
    let mut nodes: Vec<BodyHandle> = links().flat_map(|&(a, b)| [a, b]).collect();
    nodes.extend(seeds.iter().copied().filter(|&h| asleep(h)));
    nodes.sort_unstable();
    nodes.dedup();
    let index = |h: BodyHandle| nodes.binary_search(&h).map_or(0, |i| i as u32);
    islands.reset(nodes.len());
    for &(a, b) in links() {
        islands.union(index(a), index(b));
    }
    let mut woken_roots: Vec<u32> = seeds
        .iter()
        .filter(|&&h| asleep(h))
        .map(|&h| islands.find(index(h)))
        .collect();
    woken_roots.sort_unstable();
    woken_roots.dedup();
    for (i, &handle) in nodes.iter().enumerate() {
        if woken_roots.binary_search(&islands.find(i as u32)).is_ok() {
            bodies[handle].sleep.wake();
            woken.push(handle);
        }
    }
    woken.len()
}

/// The sleeping bodies touching or jointed to a disturbed body (moved by a setter, just
/// inserted, woken on request): they and their islands wake before the step.
pub(crate) fn disturbed_neighbours(
    bodies: &SlotMap<BodyHandle, RigidBody>,
    touching: &[(BodyHandle, BodyHandle)],
    joined: &[(BodyHandle, BodyHandle)],
    seeds: &mut Vec<BodyHandle>,
) {
    seeds.clear();
    let disturbed = |h: BodyHandle| bodies.get(h).is_some_and(|b| b.sleep.disturbed);
    let asleep = |h: BodyHandle| bodies.get(h).is_some_and(|b| b.sleep.asleep);
    for &(a, b) in touching.iter().chain(joined) {
        if disturbed(a) && asleep(b) {
            seeds.push(b);
        }
        if disturbed(b) && asleep(a) {
            seeds.push(a);
        }
    }
}

/// After the solve, over `handles` (the step's dense set, which holds every body that is awake
/// or disturbed): each awake dynamic body's rest timer, then the islands of this step's
/// touching contacts (`pairs`, indices into `handles`), and every island whose bodies have all
/// rested for `config.time_to_sleep` falls asleep. A dynamic body touching a moving kinematic
/// body keeps its island awake. Clears every `disturbed` flag.
pub(crate) fn update(
    bodies: &mut SlotMap<BodyHandle, RigidBody>,
    handles: &[BodyHandle],
    pairs: impl Iterator<Item = (u32, u32)>,
    config: &SleepConfig,
    dt: Real,
    islands: &mut Islands,
) {
    if !config.enabled {
        for &handle in handles {
            bodies[handle].sleep.disturbed = false;
        }
        return;
    }
    let mut sleepy = std::mem::take(&mut islands.sleepy);
    let mut moving_kinematic = std::mem::take(&mut islands.moving_kinematic);
    let mut least = std::mem::take(&mut islands.least);
    sleepy.clear();
    moving_kinematic.clear();
    least.clear();
    for &handle in handles {
        let body = &mut bodies[handle];
        body.sleep.disturbed = false;
        let is_sleepy = body.kind == BodyKind::Dynamic && !body.sleep.asleep;
        if is_sleepy {
            let extent = body.collider.shape.bounding_radius();
            let speed = body.linvel.norm().max(body.angvel.norm() * extent);
            body.sleep.rest_time = if speed > config.speed_threshold {
                0.0
            } else {
                (body.sleep.rest_time + dt).min(limits::MAX_SLEEP_TIME)
            };
        }
        sleepy.push(is_sleepy);
        least.push(if is_sleepy {
            body.sleep.rest_time
        } else {
            Real::INFINITY
        });
        moving_kinematic.push(is_moving_kinematic(body));
    }
    islands.reset(sleepy.len());
    // The least rest time of each island, kept at its root.
    for (i, j) in pairs {
        match (sleepy[i as usize], sleepy[j as usize]) {
            (true, true) => islands.union(i, j),
            (true, false) if moving_kinematic[j as usize] => least[i as usize] = 0.0,
            (false, true) if moving_kinematic[i as usize] => least[j as usize] = 0.0,
            _ => {}
        }
    }
    for i in 0..sleepy.len() {
        let root = islands.find(i as u32) as usize;
        least[root] = least[root].min(least[i]);
    }
    for (i, &handle) in handles.iter().enumerate() {
        if sleepy[i] && least[islands.find(i as u32) as usize] >= config.time_to_sleep {
            let body = &mut bodies[handle];
            body.sleep.asleep = true;
            body.linvel = Vector3::zeros();
            body.angvel = Vector3::zeros();
        }
    }
    (islands.sleepy, islands.moving_kinematic, islands.least) = (sleepy, moving_kinematic, least);
}
