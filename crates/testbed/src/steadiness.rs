//! How steady a scene stays, measured the same way in minirigid and in rapier3d (issue 38): the
//! plank tower's fallen planks and the lean of its top, the dropped column's distance off its
//! axis. Both engines are read through [`Engine::poses`], so that each figure is computed by one
//! function from the bodies' poses alone.

use crate::peer::{Contacts, rapier_of, rapier_pose};
use geom::{Isometry3, Real, Vector3};
use rapier3d::prelude::{PhysicsWorld, RigidBodyHandle};
use world::{BodyHandle, World, WorldConfig};

/// A plank counts as fallen once its up axis (local y, vertical at the start for every plank of
/// [`crate::scenes::keva_tower`]) has tipped this far from vertical (radians, about 29 degrees):
/// a plank on its edge that tips onto its side turns a quarter turn.
pub const FALLEN_TILT: Real = 0.5;
/// ... or once its centre has dropped this far below where it started (metres): it fell off.
pub const FALLEN_DROP: Real = 1.0;

/// A world of either engine, stepped and read body by body in the scene's order.
pub enum Engine {
    /// minirigid, and the scene's bodies in order.
    Minirigid(Box<World>, Vec<BodyHandle>),
    /// rapier3d (built by [`rapier_of`] from the same scene), and the same bodies in order.
    Rapier(Box<PhysicsWorld>, Vec<RigidBodyHandle>),
}

impl Engine {
    /// minirigid's `scene` at `substeps`, sleeping off; `bodies` are the ones to read.
    pub fn minirigid(scene: &World, bodies: &[BodyHandle], substeps: u32) -> Self {
        let mut engine = Engine::Minirigid(Box::new(scene.clone()), bodies.to_vec());
        engine.configure(|config| {
            config.solver.substeps = substeps;
            config.sleep.enabled = false;
        });
        engine
    }

    /// Changes minirigid's settings (rapier3d's world is left as it is).
    pub fn configure(&mut self, change: impl FnOnce(&mut WorldConfig)) {
        if let Engine::Minirigid(world, _) = self {
            let mut config = *world.config();
            change(&mut config);
            world.set_config(config).expect("valid settings");
        }
    }

    /// rapier3d's copy of `scene` as it comes (4 substeps, its contacts recycled), sleeping
    /// off; `bodies` are the ones to read.
    pub fn rapier(scene: &World, bodies: &[BodyHandle]) -> Self {
        Self::rapier_with(scene, bodies, Contacts::Recycled)
    }

    /// rapier3d's copy of `scene` (4 substeps) with its contacts found as `contacts` says,
    /// sleeping off; `bodies` are the ones to read.
    pub fn rapier_with(scene: &World, bodies: &[BodyHandle], contacts: Contacts) -> Self {
        let (peer, dynamic) = rapier_of(scene, false, contacts);
        let peer_of: std::collections::HashMap<BodyHandle, RigidBodyHandle> =
            dynamic.into_iter().collect();
        let handles = bodies
            .iter()
            .map(|b| *peer_of.get(b).expect("a dynamic body of the scene"))
            .collect();
        Engine::Rapier(Box::new(peer), handles)
    }

    /// One step.
    pub fn step(&mut self) {
        match self {
            Engine::Minirigid(world, _) => world.step(),
            Engine::Rapier(peer, _) => peer.step(),
        }
    }

    /// The bodies' poses, in order.
    pub fn poses(&self) -> Vec<Isometry3> {
        match self {
            Engine::Minirigid(world, bodies) => bodies
                .iter()
                .map(|&b| *world.body(b).expect("a live body").pose())
                .collect(),
            Engine::Rapier(peer, handles) => {
                handles.iter().map(|&h| rapier_pose(peer, h)).collect()
            }
        }
    }
}

/// The plank tower's state, measured against its start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TowerReading {
    /// Planks tipped over or dropped ([`FALLEN_TILT`], [`FALLEN_DROP`]).
    pub fallen: usize,
    /// How far the top layer has moved sideways: the horizontal length of its planks' mean
    /// displacement (metres).
    pub lean: Real,
    /// The largest horizontal displacement of any plank (metres).
    pub largest_shift: Real,
}

/// Reads the tower `now` against `start` (the same planks' poses at the start, bottom first).
pub fn tower_reading(start: &[Isometry3], now: &[Isometry3]) -> TowerReading {
    let up = Vector3::y();
    let top = start
        .iter()
        .map(|p| p.translation.y)
        .fold(Real::NEG_INFINITY, Real::max);
    let mut fallen = 0;
    let mut top_shift = Vector3::zeros();
    let mut top_count = 0;
    let mut largest_shift: Real = 0.0;
    for (s, n) in start.iter().zip(now) {
        let d = n.translation.vector - s.translation.vector;
        let horizontal = Vector3::new(d.x, 0.0, d.z);
        let tilt = (n.rotation * up).dot(&up).clamp(-1.0, 1.0).acos();
        if tilt > FALLEN_TILT || -d.y > FALLEN_DROP || !tilt.is_finite() {
            fallen += 1;
        }
        largest_shift = largest_shift.max(horizontal.norm());
        if s.translation.y >= top - 1e-3 {
            top_shift += horizontal;
            top_count += 1;
        }
    }
    TowerReading {
        fallen,
        lean: (top_shift / top_count.max(1) as Real).norm(),
        largest_shift,
    }
}

/// The farthest any body's centre is from the vertical axis through the origin (metres): how
/// far [`crate::scenes::dropped_column`]'s column has strayed.
pub fn off_axis(now: &[Isometry3]) -> Real {
    now.iter()
        .map(|p| p.translation.vector.xz().norm())
        .fold(0.0, Real::max)
}

/// Steps `engine` to each of `at` (step counts, ascending) and calls `read` with the step and
/// the poses there.
pub fn run<T>(
    engine: &mut Engine,
    at: &[usize],
    mut read: impl FnMut(usize, &[Isometry3]) -> T,
) -> Vec<T> {
    let mut done = 0;
    let mut out = Vec::with_capacity(at.len());
    for &step in at {
        while done < step {
            engine.step();
            done += 1;
        }
        out.push(read(step, &engine.poses()));
    }
    out
}

/// The tower's readings after 5 and 10 s (300 and 600 steps of 1/60 s), from where `engine`
/// stands now.
pub fn tower_at_5_and_10_s(engine: &mut Engine) -> [TowerReading; 2] {
    let start = engine.poses();
    let readings = run(engine, &[300, 600], |_, now| tower_reading(&start, now));
    [readings[0], readings[1]]
}
