//! Seed 003's bouncing box, the main example: two static cubes at x = -13 and x = 13 and a cube
//! between them moving 0.1 per 20 ms step, bouncing forever through `World` with
//! `Response::Reflect`.
//!
//! Keys: Space pauses, S steps once, R resets, F5 saves a snapshot to
//! `bouncing_box.snapshot.json`, F9 loads it back, C draws contacts; the left button grabs a
//! body, the right one orbits the camera.
//!
//! Run: `cargo run --example bouncing_box`; without a display:
//! `cargo run --example bouncing_box -- --headless --frames 60 --screenshot out.png`
//! (headless, each frame is one step).

mod support;

use kiss3d::prelude::*;
use support::Options;
use support::viewer::Viewer;
use testbed::scenes::seed_003_bouncing;

const SNAPSHOT_FILE: &str = "bouncing_box.snapshot.json";

#[kiss3d::main]
async fn main() {
    let options = Options::parse("bouncing_box", &[]);
    let eye = Vec3::new(0.0, 7.0, 28.0);
    let mut viewer = Viewer::open("bouncing_box", options, eye, Vec3::ZERO).await;
    let (mut world, mut moving) = seed_003_bouncing();
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, moving) = seed_003_bouncing();
                viewer.stage.status = "reset".into();
            } else {
                viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref());
            }
        }
        viewer.advance(&mut world);
        let state = match world.body(moving) {
            Some(body) => format!(
                "step {}   x = {:+.2} m   speed = {:.2} m/s{}",
                world.step_count(),
                body.position().x,
                body.linvel().norm(),
                if viewer.pacing.paused {
                    "   (paused)"
                } else {
                    ""
                }
            ),
            None => "the moving box is gone".into(),
        };
        let keys = "R reset   F5 save   F9 load".to_owned();
        if !viewer.show(&world, &[state, viewer.help(), keys]).await {
            break;
        }
    }
}
