//! Shapes beyond boxes and balls: capsules of three sizes, rocks and dice (convex hulls),
//! tables of five boxes and dumbbells (bodies of several colliders) poured into a bin with
//! boxes and balls, tumbling, rolling and coming to rest. The status line gives how many sleep, the
//! fastest body's speed and how many left the bin. `--bodies N` sets how many fall (default
//! 180).
//!
//! Keys: left drag grabs a body; Space pauses, S steps once, R resets, C draws contacts, F5
//! saves a snapshot to `shapes.snapshot.json`, F9 loads it. The right button orbits the
//! camera, the middle one pans.
//!
//! Run: `cargo run --release --example shapes`; without a display:
//! `cargo run --release --example shapes -- --headless --frames 300 --screenshot out.png`
//! (each frame one step). Off-screen runs end by printing what happened as `key=value` lines.

mod support;

use kiss3d::prelude::*;
use support::Options;
use support::viewer::Viewer;
use testbed::shapes::{bin_reading, shapes_bin};

const SNAPSHOT_FILE: &str = "shapes.snapshot.json";

#[kiss3d::main]
async fn main() {
    let mut names = vec!["bodies"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("shapes", &names);
    let count = options
        .numbers("bodies", 1)
        .map_or(180, |v| v[0].clamp(1.0, 4096.0) as u32);
    let (mut world, mut bodies) = shapes_bin(count);
    let eye = Vec3::new(0.0, 9.0, 13.0);
    let at = Vec3::new(0.0, 0.5, 0.0);
    let mut viewer = Viewer::open("shapes", options, eye, at).await;
    let mut reading;
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, bodies) = shapes_bin(count);
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            } else {
                viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref());
            }
        }
        viewer.advance(&mut world);
        reading = bin_reading(&world, &bodies);
        let lines = [
            format!(
                "{} bodies   step {}   step time {:.2} ms   {} asleep",
                bodies.len(),
                world.step_count(),
                viewer.step_ms(),
                reading.0
            ),
            format!(
                "fastest {:.3} m/s   {} out of the bin",
                reading.1, reading.2
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
        println!("asleep={}", reading.0);
        println!("fastest={}", reading.1);
        println!("lost={}", reading.2);
    }
}
