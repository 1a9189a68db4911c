//! rapier's keva tower (`examples3d/stress_tests/keva3.rs`): planks on edge in crossed layers,
//! its top `--blocks N` blocks (1 to 5, default 3: 3,684 planks), standing on the contact
//! solver. The status line gives how far the top layer has moved sideways (its lean) and how
//! many planks fell: with the default two soft iterations a substep it holds still.
//! `--substeps N` and `--soft-iterations N` set the solver (try `--soft-iterations 1` to see
//! a tower creep over, as it did before issue 38).
//!
//! Keys: left drag grabs a plank; Space pauses, S steps once, R resets, C draws contacts, F5
//! saves a snapshot to `tower.snapshot.json`, F9 loads it. The right button orbits the camera,
//! the middle one pans.
//!
//! Run: `cargo run --release --example tower`; without a display:
//! `cargo run --release --example tower -- --headless --frames 120 --screenshot out.png`
//! (each frame one step). Off-screen runs end by printing what happened as `key=value` lines.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{Isometry3, World};
use support::Options;
use support::viewer::Viewer;
use testbed::scenes::keva_tower;
use testbed::steadiness::{TowerReading, tower_reading};

const SNAPSHOT_FILE: &str = "tower.snapshot.json";

/// The tower of `blocks` blocks with the solver set as asked; its planks and their poses now.
fn build(blocks: usize, substeps: Option<u32>, soft: Option<u32>) -> (World, Vec<Isometry3>) {
    let (mut world, planks) = keva_tower(blocks);
    let mut config = *world.config();
    if let Some(n) = substeps {
        config.solver.substeps = n;
    }
    if let Some(n) = soft {
        config.solver.soft_iterations = n;
    }
    if let Err(e) = world.set_config(config) {
        eprintln!("tower: {e}; keeping the default solver settings");
    }
    let start = poses(&world);
    debug_assert_eq!(start.len(), planks.len());
    (world, start)
}

/// Every plank's pose, in insertion order (the ground is the only body that does not move).
fn poses(world: &World) -> Vec<Isometry3> {
    world
        .bodies()
        .filter(|(_, b)| b.kind() == minirigid::prelude::BodyKind::Dynamic)
        .map(|(_, b)| *b.pose())
        .collect()
}

#[kiss3d::main]
async fn main() {
    let mut names = vec!["blocks", "substeps", "soft-iterations"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("tower", &names);
    let number = |name: &str| options.numbers(name, 1).map(|v| v[0].max(1.0));
    let blocks = number("blocks").map_or(3, |b| (b as usize).clamp(1, 5));
    let substeps = number("substeps").map(|n| n as u32);
    let soft = number("soft-iterations").map(|n| n as u32);
    let (mut world, mut start) = build(blocks, substeps, soft);
    let height = start.iter().map(|p| p.translation.y).fold(0.0, f32::max);
    let eye = Vec3::new(1.2 * height, 0.8 * height, 1.5 * height);
    let at = Vec3::new(0.0, 0.42 * height, 0.0);
    let mut viewer = Viewer::open("tower", options, eye, at).await;
    let mut reading = tower_reading(&start, &start);
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, start) = build(blocks, substeps, soft);
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            } else {
                viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref());
            }
        }
        viewer.advance(&mut world);
        let now = poses(&world);
        if now.len() == start.len() {
            reading = tower_reading(&start, &now);
        }
        let TowerReading { fallen, lean, .. } = reading;
        let solver = world.config().solver;
        let lines = [
            format!(
                "{} planks   step {}   step time {:.2} ms   {} substeps, {} soft iterations",
                start.len(),
                world.step_count(),
                viewer.step_ms(),
                solver.substeps,
                solver.soft_iterations
            ),
            format!("top leans {lean:.3} m   {fallen} planks fell"),
            viewer.help(),
            "R reset   F5 save   F9 load".into(),
        ];
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        println!("planks={}", start.len());
        println!("top_lean={}", reading.lean);
        println!("fallen={}", reading.fallen);
    }
}
