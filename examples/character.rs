//! A character walked around a level: a kinematic capsule moved by cast and slide
//! (`CharacterController`), up a 30 degree ramp and a flight of steps, along a wall, pushing
//! crates, riding a platform across a gap, and through a trigger (a sensor) that lights up
//! while the character is inside it. The status line gives where the character is, whether
//! it stands on the ground and how many times it entered the trigger.
//!
//! Keys: the arrow keys walk; Space pauses, S steps once, R resets, C draws contacts. The
//! right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --release --example character`; without a display the character walks a
//! scripted path (north, east through the trigger, west through the crates, south, east up
//! the steps): `cargo run --release --example character -- --headless --frames 540
//! --screenshot out.png`. Off-screen runs end by printing what happened as `key=value` lines.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{Real, Vector3};
use support::Options;
use support::stage::Advance;
use support::viewer::Viewer;
use testbed::character::{Level, scripted_input};

#[kiss3d::main]
async fn main() {
    let options = Options::parse("character", &Viewer::OPTIONS);
    let mut level = Level::new();
    let eye = Vec3::new(2.0, 12.0, 16.0);
    let at = Vec3::new(2.0, 0.0, 0.0);
    let mut viewer = Viewer::open("character", options, eye, at).await;
    let start: Vec<_> = level
        .crates
        .iter()
        .map(|&c| level.world.body(c).map(|b| b.position()))
        .collect();
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                level = Level::new();
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            }
        }
        let input = if viewer.stage.is_headless() {
            scripted_input(viewer.stage.frame())
        } else {
            let mut held = |key: Key| -> Real {
                let window = viewer.stage.window();
                if window.canvas().get_key(key) == Action::Press {
                    1.0
                } else {
                    0.0
                }
            };
            Vector3::new(
                held(Key::Right) - held(Key::Left),
                0.0,
                held(Key::Down) - held(Key::Up),
            )
        };
        // One step per frame (each frame when running, one on S when paused): the controller
        // moves the character before each step.
        match viewer.pacing.advance(&viewer.stage) {
            Advance::Nothing => {}
            Advance::One | Advance::Seconds(_) => level.frame(input),
        }
        let at = level.position();
        let lines = [
            format!(
                "character at ({:.2}, {:.2}, {:.2})   {}   entered the trigger {} times{}",
                at.x,
                at.y,
                at.z,
                if level.grounded {
                    "on the ground"
                } else {
                    "in the air"
                },
                level.entered,
                if level.inside { " (inside)" } else { "" }
            ),
            "arrow keys walk   R reset   Space pause   S step   C contacts   right drag: orbit"
                .into(),
        ];
        if !viewer.show(&level.world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        let at = level.position();
        let pushed = level
            .crates
            .iter()
            .zip(&start)
            .filter_map(|(&c, s)| Some((level.world.body(c)?.position() - (*s)?).norm()))
            .fold(0.0, Real::max);
        println!("x={}", at.x);
        println!("y={}", at.y);
        println!("z={}", at.z);
        println!("grounded={}", u8::from(level.grounded));
        println!("entered={}", level.entered);
        println!("inside={}", u8::from(level.inside));
        println!("pushed={pushed}");
    }
}
