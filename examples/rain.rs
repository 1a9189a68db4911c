//! Box3D's rain on the viewer (`testbed::human`): Box3D's humans, 14 capsules each on spherical
//! joints with cone and twist limits and revolute knees and elbows, every joint with a spring
//! toward the rest pose and a friction motor, fall in groups of three from 20 m onto a grid of
//! cells, each a triangle-mesh floor with a torus mesh standing on it. A column of groups
//! drops on the steps Box3D's `StepRain` does; once every column stands, the oldest is taken
//! away and dropped again. `--grid N` gives N x N cells (Box3D's scene is 10 x 10, the
//! default; each frame is one step).
//!
//! Keys: left drag grabs a capsule (and pulls on its joints); Space pauses, S steps once, R
//! resets, C draws contacts, F5 saves a snapshot to `rain.snapshot.json`, F9 loads it. The
//! right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --release --example rain`; without a display:
//! `cargo run --release --example rain -- --headless --frames 10 --steps-per-frame 30
//! --screenshot out.png` (270 steps; off-screen every frame is drawn by the software
//! renderer, about a second each at the full grid on a 2-core machine).
//! Off-screen runs end by printing what happened as `key=value` lines: how many humans there
//! are, how many have landed (fallen for a second and moving slower than 1 m/s), the largest
//! distance between a landed human's joint anchors, and the deepest contact.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::*;
use support::Options;
use support::viewer::Viewer;
use testbed::human::{BONE_COUNT, Human, RAIN_CELL, RAIN_GRID, rain_grid, rain_grid_step};

const SNAPSHOT_FILE: &str = "rain.snapshot.json";

/// Steps a human must have fallen before it can count as landed (a second: a human just
/// dropped is at rest too).
const LANDING_STEPS: u64 = 60;
/// A landed human's capsules all move slower than this (m/s).
const LANDED_SPEED: Real = 1.0;

/// The humans dropped into the world, each with the step it was dropped on.
struct Drops {
    grid: usize,
    humans: Vec<(u64, Human)>,
}

impl Drops {
    /// Box3D's `StepRain` before `world`'s next step; forgets the humans taken away.
    fn before_step(&mut self, world: &mut World) {
        let step = world.step_count();
        let added = rain_grid_step(world, step as usize, self.grid);
        if !added.is_empty() {
            self.humans
                .retain(|(_, h)| world.body(h.bodies[0]).is_some());
            self.humans.extend(added.into_iter().map(|h| (step, h)));
        }
    }

    /// The humans that have landed: dropped at least [`LANDING_STEPS`] ago, every capsule
    /// slower than [`LANDED_SPEED`].
    fn landed<'a>(&'a self, world: &'a World) -> impl Iterator<Item = &'a Human> {
        let now = world.step_count();
        (self.humans.iter())
            .filter(move |(dropped, _)| now >= dropped + LANDING_STEPS)
            .map(|(_, h)| h)
            .filter(|h| {
                (h.bodies.iter()).all(|&b| {
                    world
                        .body(b)
                        .is_some_and(|b| b.linvel().norm() < LANDED_SPEED)
                })
            })
    }

    /// The largest distance between the two anchors of a landed human's joints (m).
    fn landed_gap(&self, world: &World) -> Real {
        (self.landed(world))
            .flat_map(|h| h.joints.iter())
            .filter_map(|&j| world.joint_reading(j).ok())
            .map(|r| (r.anchors[1] - r.anchors[0]).norm())
            .fold(0.0, Real::max)
    }
}

/// The deepest overlap of the last step's contacts (m).
fn deepest(world: &World) -> Real {
    (world.contacts().iter())
        .flat_map(|pair| pair.contact.points.iter())
        .map(|p| p.depth)
        .fold(0.0, Real::max)
}

/// The humans in `world` (each 14 capsules; the cells are two static bodies each).
fn human_count(world: &World, grid: usize) -> usize {
    (world.len() - 2 * grid * grid) / BONE_COUNT
}

#[kiss3d::main]
async fn main() {
    let mut names = vec!["grid"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("rain", &names);
    let grid = options
        .numbers("grid", 1)
        .map_or(RAIN_GRID, |v| v[0].clamp(1.0, 30.0) as usize);
    let new = || {
        let drops = Drops {
            grid,
            humans: Vec::new(),
        };
        (rain_grid(grid), drops)
    };
    let (mut world, mut drops) = new();
    // The first column's corner cell, seen from outside the grid.
    let span = RAIN_CELL * grid as Real;
    let first = -0.5 * span + 0.5 * RAIN_CELL;
    let at = Vec3::new(first + 0.75, 0.5, first + 3.0);
    let eye = at + Vec3::new(-5.0, 7.0, 8.0);
    let mut viewer = Viewer::open("rain", options, eye, at).await;
    // The humans come on given steps: one step a frame.
    viewer.real_time = false;
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, drops) = new();
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            } else if viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref()) && key == Key::F9
            {
                // A loaded world's humans are counted as landed from their next drop on.
                drops.humans.clear();
            }
        }
        viewer.advance_with(&mut world, |world| drops.before_step(world));
        let lines = [
            format!(
                "{} humans ({} landed), {} joints   step {}   step time {:.2} ms",
                human_count(&world, grid),
                drops.landed(&world).count(),
                world.joint_count(),
                world.step_count(),
                viewer.step_ms()
            ),
            format!(
                "landed humans' joints apart at most {:.1} mm   deepest contact {:.1} mm",
                1000.0 * drops.landed_gap(&world),
                1000.0 * deepest(&world)
            ),
            viewer.help(),
            "R reset   F5 save   F9 load".into(),
        ];
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        println!("humans={}", human_count(&world, grid));
        println!("landed={}", drops.landed(&world).count());
        println!("landed_gap={}", drops.landed_gap(&world));
        println!("deepest={}", deepest(&world));
        println!("joints={}", world.joint_count());
    }
}
