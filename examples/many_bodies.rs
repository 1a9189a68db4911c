//! A pile: 1,000 boxes and balls (`--bodies N` for more) dropped into an open bin under
//! gravity (`testbed::scenes::bin`), where the contact solver brings them to rest and they
//! fall asleep (drawn dimmer). The text shows the step time, the contacts and how many sleep.
//! `--scene room` shows instead seed 003's elastic response at scale: bodies bouncing forever
//! in a closed room without gravity (`Response::Reflect`), with what each stage of the
//! narrow-phase filter rejected. The bodies are drawn instanced (one cube and one sphere mesh
//! for all), so a frame costs little more at 10,000 bodies than at 1,000.
//!
//! Keys: left drag grabs a body; Space pauses, S steps once, C draws contacts, R resets. The
//! right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --example many_bodies` (`-- --scene room`); without a display:
//! `cargo run --example many_bodies -- --headless --frames 60 --screenshot out.png` (each frame
//! one step, or `--steps-per-frame N`). Off-screen runs end by printing where the bodies are as
//! `key=value` lines, which the render tests read.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{Aabb, BodyKind, Point3, World};
use support::Options;
use support::viewer::Viewer;
use testbed::scenes::{bin, room, room_half_side};

/// What `--scene` builds.
#[derive(Clone, Copy, PartialEq)]
enum Scene {
    Pile,
    Room,
}

/// The world, and the box the bodies should stay in (the bin's inside, or the room).
fn build(scene: Scene, count: usize) -> (World, Aabb) {
    match scene {
        Scene::Pile => bin(count, 1, false),
        Scene::Room => {
            let half = room_half_side(count);
            let inside = Aabb::new(
                Point3::new(-half, -half, -half),
                Point3::new(half, half, half),
            );
            (room(count, 1, 5.0), inside)
        }
    }
}

#[kiss3d::main]
async fn main() {
    let mut names = vec!["bodies", "scene"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("many_bodies", &names);
    let count = options
        .numbers("bodies", 1)
        .map_or(1_000, |v| v[0].clamp(1.0, 100_000.0) as usize);
    let scene = match options.text("scene") {
        None | Some("pile") => Scene::Pile,
        Some("room") => Scene::Room,
        Some(other) => {
            eprintln!("many_bodies: --scene is pile or room, got {other:?}");
            std::process::exit(2);
        }
    };
    let (mut world, inside) = build(scene, count);
    let half = inside.half_extents().max();
    let (eye, at) = match scene {
        Scene::Pile => (
            Vec3::new(0.0, 1.9 * half + 3.0, 2.0 * half + 3.0),
            Vec3::ZERO,
        ),
        Scene::Room => (Vec3::new(half * 1.6, half * 1.1, half * 2.4), Vec3::ZERO),
    };
    let mut viewer = Viewer::open("many_bodies", options, eye, at).await;
    viewer.real_time = false;
    // The room's walls would hide it: they are drawn as its edges instead.
    viewer.bodies.draw_static = scene == Scene::Pile;
    let corners: Vec<Vec3> = inside.corners().iter().map(support::point3).collect();

    loop {
        for key in viewer.keys() {
            if key == Key::R {
                (world, _) = build(scene, count);
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            }
        }
        viewer.advance(&mut world);
        let window = viewer.stage.window();
        if scene == Scene::Room {
            for i in 0..8usize {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        let grey = Color::new(0.6, 0.6, 0.6, 1.0);
                        window.draw_line(corners[i], corners[i | bit], grey, 2.0, false);
                    }
                }
            }
        }
        let mut lines = vec![format!(
            "{count} bodies   step {}   step time {:.2} ms   {} contacts   {} asleep",
            world.step_count(),
            viewer.step_ms(),
            world.contacts().len(),
            world.sleeping_count()
        )];
        if scene == Scene::Room {
            let counts = world.stage_counts();
            lines.push(format!(
                "{} broad-phase pairs: {} out by spheres, {} by AABBs, {} by SAT; {} touching",
                counts.pairs,
                counts.rejected_by_sphere,
                counts.rejected_by_aabb,
                counts.rejected_by_exact,
                counts.touching
            ));
        }
        lines.push(viewer.help());
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        let dynamic: Vec<_> = world
            .bodies()
            .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            .collect();
        let inside_count = dynamic
            .iter()
            .filter(|(_, b)| inside.contains_point(&b.position()))
            .count();
        let fastest = dynamic
            .iter()
            .map(|(_, b)| b.linvel().norm())
            .fold(0.0, f32::max);
        println!("bodies={}", dynamic.len());
        println!("inside={inside_count}");
        println!("fastest={fastest}");
        println!("asleep={}", world.sleeping_count());
        println!("steps={}", world.step_count());
    }
}
