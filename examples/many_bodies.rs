//! A thousand or more boxes and balls in a closed room (`testbed::scenes::room`), bouncing with
//! `Response::Reflect`: the broad phase at work. The text shows the step time and what each stage
//! of the narrow-phase filter did. The bodies are drawn instanced (one cube and one sphere mesh
//! for all), so a frame costs little more at 10,000 bodies than at 1,000.
//!
//! Keys: Space pauses, S steps once. The mouse orbits the camera.
//!
//! Run: `cargo run --example many_bodies` (`-- --bodies 5000` for more); without a
//! display: `cargo run --example many_bodies -- --headless --frames 60 --screenshot out.png`
//! (each frame is one step).

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::Point3;
use support::Options;
use support::viewer::Viewer;
use testbed::scenes::{room, room_half_side};

#[kiss3d::main]
async fn main() {
    let options = Options::parse("many_bodies", &["bodies"]);
    let count = options
        .numbers("bodies", 1)
        .map_or(1_000, |v| v[0].clamp(1.0, 100_000.0) as usize);
    let half = room_half_side(count);
    let eye = Vec3::new(half * 1.6, half * 1.1, half * 2.4);
    let mut viewer = Viewer::open("many_bodies", options, eye, Vec3::ZERO).await;
    // The walls would hide the room: they are drawn as its edges instead.
    viewer.bodies.draw_static = false;
    viewer.real_time = false;
    let corners: Vec<Vec3> = minirigid::geom::Aabb::new(
        Point3::new(-half, -half, -half),
        Point3::new(half, half, half),
    )
    .corners()
    .iter()
    .map(support::point3)
    .collect();

    let mut world = room(count, 1, 5.0);
    loop {
        viewer.keys();
        viewer.advance(&mut world);
        let window = viewer.stage.window();
        for i in 0..8usize {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    let grey = Color::new(0.6, 0.6, 0.6, 1.0);
                    window.draw_line(corners[i], corners[i | bit], grey, 2.0, false);
                }
            }
        }
        let counts = world.stage_counts();
        let lines = [
            format!(
                "{count} bodies   step {}   step time {:.2} ms",
                world.step_count(),
                viewer.step_ms()
            ),
            format!(
                "{} broad-phase pairs: {} out by spheres, {} by AABBs, {} by SAT; {} touching",
                counts.pairs,
                counts.rejected_by_sphere,
                counts.rejected_by_aabb,
                counts.rejected_by_exact,
                counts.touching
            ),
        ];
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
}
