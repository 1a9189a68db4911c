//! Seed 003's bouncing box, the main example: two static cubes at x = -13 and x = 13 and a cube
//! between them moving 0.1 per 20 ms step, bouncing forever through `World` with
//! `Response::Reflect`.
//!
//! Keys: Space pauses, S steps once, R resets, F5 saves a snapshot to
//! `bouncing_box.snapshot.json`, F9 loads it back. The mouse orbits the camera.
//!
//! Run: `cargo run --example bouncing_box`; without a display:
//! `cargo run --example bouncing_box -- --headless --frames 60 --screenshot out.png`
//! (headless, each frame is one step).

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{BodyHandle, VisualShape, World};
use support::{Display, FrameCounter, Options};
use testbed::scenes::seed_003_bouncing;

const SNAPSHOT_FILE: &str = "bouncing_box.snapshot.json";

/// The scene nodes of the world's bodies, in body order.
fn build_nodes(scene: &mut SceneNode3d, world: &World) -> Vec<(BodyHandle, SceneNode3d)> {
    world
        .bodies()
        .map(|(handle, body)| {
            let mut node = match &body.visual().shape {
                VisualShape::Cuboid { half_extents } => {
                    let size = half_extents * 2.0;
                    scene.add_cube(size.x, size.y, size.z)
                }
                VisualShape::Ball { radius } => scene.add_sphere(*radius),
                VisualShape::Mesh { .. } => scene.add_cube(1.0, 1.0, 1.0),
            };
            node.set_color(support::color(body.visual().color));
            (handle, node)
        })
        .collect()
}

#[kiss3d::main]
async fn main() {
    let options = Options::parse("bouncing_box", &[]);
    let mut display = Display::open("bouncing_box", 1024, 576, &options).await;
    display
        .window()
        .set_background_color(Color::new(0.12, 0.12, 0.14, 1.0));
    let mut camera = OrbitCamera3d::new(Vec3::new(0.0, 7.0, 28.0), Vec3::ZERO);
    let mut scene = SceneNode3d::empty();
    scene
        .add_light(Light::point(4000.0))
        .set_position(Vec3::new(0.0, 30.0, 30.0));

    let (mut world, mut moving) = seed_003_bouncing();
    let mut nodes = build_nodes(&mut scene, &world);
    let font = Font::default();
    let mut frames = FrameCounter::new(&options);
    let mut paused = false;
    let mut status = String::new();
    let mut last = std::time::Instant::now();

    loop {
        // Input.
        let mut step_once = false;
        for mut event in display.window().events().iter() {
            if let WindowEvent::Key(key, Action::Press, _) = event.value {
                event.inhibited = true;
                match key {
                    Key::Space => paused = !paused,
                    Key::S => step_once = true,
                    Key::R => {
                        for (_, node) in &mut nodes {
                            node.remove();
                        }
                        (world, moving) = seed_003_bouncing();
                        nodes = build_nodes(&mut scene, &world);
                        status = "reset".into();
                    }
                    Key::F5 => {
                        status = match world.save(SNAPSHOT_FILE) {
                            Ok(()) => format!("saved {SNAPSHOT_FILE}"),
                            Err(e) => format!("save failed: {e}"),
                        }
                    }
                    Key::F9 => {
                        status = match World::load(SNAPSHOT_FILE) {
                            Ok(loaded) => {
                                world = loaded;
                                format!("loaded {SNAPSHOT_FILE}")
                            }
                            Err(e) => format!("load failed: {e}"),
                        }
                    }
                    _ => event.inhibited = false,
                }
            }
        }

        // Simulation: one step per frame off-screen (reproducible pictures), real time in a window.
        let now = std::time::Instant::now();
        let elapsed = (now - last).as_secs_f32();
        last = now;
        if display.is_headless() {
            if frames.frame > 0 {
                world.step();
            }
        } else if step_once {
            world.step();
        } else if !paused {
            world.advance(elapsed);
        }

        // Drawing.
        for (handle, node) in &mut nodes {
            if let Some(body) = world.body(*handle) {
                node.set_pose(support::pose(body.pose()));
            }
        }
        let text = match world.body(moving) {
            Some(body) => format!(
                "step {}   x = {:+.2} m   speed = {:.2} m/s{}",
                world.step_count(),
                body.position().x,
                body.linvel().norm(),
                if paused { "   (paused)" } else { "" }
            ),
            None => "the moving box is gone".into(),
        };
        let window = display.window();
        window.draw_text(&text, Vec2::new(10.0, 10.0), 36.0, &font, WHITE);
        window.draw_text(
            "Space pause   S step   R reset   F5 save   F9 load",
            Vec2::new(10.0, 50.0),
            28.0,
            &font,
            Color::new(0.8, 0.8, 0.8, 1.0),
        );
        if !status.is_empty() {
            window.draw_text(&status, Vec2::new(10.0, 85.0), 28.0, &font, YELLOW);
        }
        if !display.render_3d(&mut scene, &mut camera).await {
            break;
        }
        if !frames.after_frame(&display, &options) {
            break;
        }
    }
}
