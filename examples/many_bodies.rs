//! A thousand or more boxes and balls in a closed room (`testbed::scenes::room`), bouncing with
//! `Response::Reflect`: the broad phase at work. The text shows the step time and what each stage
//! of the narrow-phase filter did.
//!
//! Run: `cargo run --example many_bodies` (`-- --bodies 5000` for more); without a
//! display: `cargo run --example many_bodies -- --headless --frames 60 --screenshot out.png`
//! (headless, each frame is one step).

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{BodyKind, Point3, VisualShape};
use support::{Display, FrameCounter, Options};
use testbed::scenes::{room, room_half_side};

#[kiss3d::main]
async fn main() {
    let options = Options::parse("many_bodies", &["bodies"]);
    let count = options
        .numbers("bodies", 1)
        .map_or(1_000, |v| v[0].clamp(1.0, 100_000.0) as usize);
    let mut display = Display::open("many_bodies", 1024, 576, &options).await;
    display
        .window()
        .set_background_color(Color::new(0.12, 0.12, 0.14, 1.0));
    let half = room_half_side(count);
    let mut camera = OrbitCamera3d::new(Vec3::new(half * 1.6, half * 1.1, half * 2.4), Vec3::ZERO);
    let mut scene = SceneNode3d::empty();
    scene
        .add_light(Light::point(40.0 * half * half))
        .set_position(Vec3::new(half, 3.0 * half, 3.0 * half));

    let mut world = room(count, 1, 5.0);
    // Dynamic bodies get scene nodes; the walls are drawn as the room's edges.
    let mut nodes: Vec<_> = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(handle, body)| {
            let mut node = match &body.visual().shape {
                VisualShape::Cuboid { half_extents } => scene.add_cube(
                    2.0 * half_extents.x,
                    2.0 * half_extents.y,
                    2.0 * half_extents.z,
                ),
                VisualShape::Ball { radius } => scene.add_sphere(*radius),
                VisualShape::Mesh { .. } => scene.add_cube(0.5, 0.5, 0.5),
            };
            node.set_color(support::color(body.visual().color));
            (handle, node)
        })
        .collect();
    let corners: Vec<Vec3> = minirigid::geom::Aabb::new(
        Point3::new(-half, -half, -half),
        Point3::new(half, half, half),
    )
    .corners()
    .iter()
    .map(support::point3)
    .collect();
    let font = Font::default();
    let mut frames = FrameCounter::new(&options);
    let mut step_ms = 0.0;

    loop {
        if frames.frame > 0 || !display.is_headless() {
            let start = std::time::Instant::now();
            world.step();
            let ms = start.elapsed().as_secs_f64() * 1e3;
            step_ms = if step_ms == 0.0 {
                ms
            } else {
                0.9 * step_ms + 0.1 * ms
            };
        }
        for (handle, node) in &mut nodes {
            if let Some(body) = world.body(*handle) {
                node.set_pose(support::pose(body.pose()));
            }
        }
        let window = display.window();
        for i in 0..8usize {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    window.draw_line(
                        corners[i],
                        corners[i | bit],
                        Color::new(0.6, 0.6, 0.6, 1.0),
                        2.0,
                        false,
                    );
                }
            }
        }
        let counts = world.stage_counts();
        let lines = [
            format!(
                "{} bodies   step {}   step time {:.2} ms",
                count,
                world.step_count(),
                step_ms
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
        support::draw_lines(window, &font, &lines, 26.0);
        if !display.render_3d(&mut scene, &mut camera).await {
            break;
        }
        if !frames.after_frame(&display, &options) {
            break;
        }
    }
}
