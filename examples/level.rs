//! A level of static surfaces: a heightfield landscape (a flat half, rolling hills and a
//! bowl) with a ramp and a flight of stairs as triangle meshes on it, and boxes and balls
//! dropped over all of it to roll and slide. The status line gives how deep the lowest body
//! sits in the surface under it (negative when sunk) and how many were lost below the level.
//! `--bodies N` sets how many fall (default 64).
//!
//! Keys: left drag grabs a body; Space pauses, S steps once, R resets, C draws contacts, F5
//! saves a snapshot to `level.snapshot.json` (the ground and meshes written once), F9 loads
//! it. The right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --release --example level`; without a display:
//! `cargo run --release --example level -- --headless --frames 300 --screenshot out.png`
//! (each frame one step). Off-screen runs end by printing what happened as `key=value` lines.

mod support;

use kiss3d::prelude::*;
use support::Options;
use support::viewer::Viewer;
use testbed::surfaces::{clearance, level};

const SNAPSHOT_FILE: &str = "level.snapshot.json";

#[kiss3d::main]
async fn main() {
    let mut names = vec!["bodies"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("level", &names);
    let count = options
        .numbers("bodies", 1)
        .map_or(64, |v| v[0].clamp(1.0, 4096.0) as u32);
    let (mut world, mut bodies) = level(count);
    let eye = Vec3::new(-10.0, 38.0, 62.0);
    let at = Vec3::new(-2.0, 0.0, 2.0);
    let mut viewer = Viewer::open("level", options, eye, at).await;
    let mut reading;
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, bodies) = level(count);
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            } else {
                viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref());
            }
        }
        viewer.advance(&mut world);
        reading = clearance(&world, &bodies);
        let lines = [
            format!(
                "{} bodies   step {}   step time {:.2} ms   {} asleep",
                bodies.len(),
                world.step_count(),
                viewer.step_ms(),
                world.sleeping_count()
            ),
            format!(
                "lowest body {:+.4} m from the surface under it   {} lost below the level",
                reading.0, reading.1
            ),
            viewer.help(),
            "R reset   F5 save   F9 load".into(),
        ];
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        println!("bodies={}", bodies.len());
        println!("lowest={}", reading.0);
        println!("lost={}", reading.1);
        println!("asleep={}", world.sleeping_count());
    }
}
