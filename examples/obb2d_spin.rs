//! Seed 000's demo: two rectangles spinning in place, blue while apart, red while they collide,
//! with the four candidate separating axes of the 2D separating axis test drawn and, on each,
//! the two rectangles' projections. The axis that separates them is drawn in yellow.
//!
//! Rectangle 1 is 30 x 140 at (100, 150), starting at 30 degrees and turning 2 degrees a tick;
//! rectangle 2 is 40 x 110 at (100, 70), starting at 40 degrees and turning 1 degree a tick
//! (canvas coordinates, y down, drawn 2.5 times larger). As in the seed, touching does not
//! count as colliding here (`separating_axis(strict = true)`); the library's default is closed.
//!
//! Keys: Space pauses, S steps one tick. A tick every 50 ms; headless, a tick a frame (frame 0
//! shows tick 0).
//!
//! Run: `cargo run --example obb2d_spin`; without a display:
//! `cargo run --example obb2d_spin -- --headless --frames 40 --screenshot out.png`

mod support;

use kiss3d::prelude::*;
use minirigid::collide::d2::obb2_sat;
use minirigid::prelude::{Obb2, Point2, Real, Vector2};
use support::Options;
use support::stage::{Advance, Pacing, Stage};

/// Drawing scale and offset from the seed's canvas coordinates to the window's pixels.
const SCALE: Real = 2.5;
const OFFSET: Vector2 = Vector2::new(150.0, 25.0);

/// The two rectangles at `tick` (seed 000).
fn rectangles(tick: u64) -> [Obb2; 2] {
    let t = tick as Real;
    [
        Obb2::new(
            Point2::new(100.0, 150.0),
            Vector2::new(15.0, 70.0),
            (30.0 + 2.0 * t).to_radians(),
        ),
        Obb2::new(
            Point2::new(100.0, 70.0),
            Vector2::new(20.0, 55.0),
            (40.0 + t).to_radians(),
        ),
    ]
}

fn screen(p: &Point2) -> Vec2 {
    let q = p.coords * SCALE + OFFSET;
    Vec2::new(q.x, q.y)
}

#[kiss3d::main]
async fn main() {
    let options = Options::parse("obb2d_spin", &[]);
    let mut stage = Stage::open("obb2d_spin", options, 800, 600).await;
    let mut camera = FixedView2d::new(CoordinateSystem2d::TopLeftDown, false);
    let mut scene = SceneNode2d::empty();
    let boxes = rectangles(0);
    let mut nodes: Vec<SceneNode2d> = boxes
        .iter()
        .map(|b| {
            let size = b.half_extents * 2.0 * SCALE;
            scene.add_rectangle(size.x, size.y)
        })
        .collect();
    let mut pacing = Pacing::default();
    let (mut tick, mut since_tick) = (0u64, 0.0);

    loop {
        let (keys, _) = stage.input();
        for (key, action, _) in keys {
            pacing.key(key, action);
        }
        match pacing.advance(&stage) {
            Advance::Nothing => {}
            Advance::One => tick += 1,
            Advance::Seconds(seconds) => {
                since_tick += seconds;
                while since_tick >= 0.05 {
                    since_tick -= 0.05;
                    tick += 1;
                }
            }
        }

        let boxes = rectangles(tick);
        let sat = obb2_sat(&boxes[0], &boxes[1]);
        let separating = sat.separating_axis(true);
        let fill = if separating.is_some() {
            Color::new(0.1, 0.2, 0.95, 1.0)
        } else {
            Color::new(0.95, 0.12, 0.1, 1.0)
        };
        for (node, b) in nodes.iter_mut().zip(&boxes) {
            node.set_color(fill);
            node.set_position(screen(&b.center));
            node.set_rotation(b.angle);
        }

        // The rectangles' outlines from the library's own corners, over the filled shapes.
        let window = stage.window();
        for b in &boxes {
            let corners = b.corners();
            for i in 0..4 {
                window.draw_line_2d(
                    screen(&corners[i]),
                    screen(&corners[(i + 1) % 4]),
                    WHITE,
                    1.5,
                );
            }
        }
        // The four axes, each drawn beside the rectangles (A's axes on one side, B's on the
        // other), with both rectangles' projections on it.
        let middle = nalgebra::center(&boxes[0].center, &boxes[1].center);
        for (k, axis) in sat.axes.iter().enumerate() {
            let highlighted = separating == Some(k);
            let line_color = if highlighted {
                YELLOW
            } else {
                Color::new(0.5, 0.5, 0.5, 1.0)
            };
            let far = 150.0;
            let normal = Vector2::new(-axis.y, axis.x);
            let base = middle + normal * (if k < 2 { 95.0 } else { -95.0 });
            window.draw_line_2d(
                screen(&(base - axis * far)),
                screen(&(base + axis * far)),
                line_color,
                if highlighted { 3.0 } else { 1.0 },
            );
            for (i, (b, color)) in boxes.iter().zip([GREEN, CYAN]).enumerate() {
                let s = (b.center - middle).dot(axis);
                let r = b.projection_radius(axis);
                let lift = normal * (if i == 0 { 2.5 } else { -2.5 });
                window.draw_line_2d(
                    screen(&(base + axis * (s - r) + lift)),
                    screen(&(base + axis * (s + r) + lift)),
                    color,
                    4.0,
                );
            }
        }
        let names = ["A0", "A1", "B0", "B1"];
        let text = match separating {
            Some(k) => format!("tick {tick}: apart, separated on axis {}", names[k]),
            None => format!("tick {tick}: colliding (all four projections overlap)"),
        };
        let legend = "projections: green = rectangle 1, cyan = rectangle 2".to_owned();
        let keys = "Space pause   S step".to_owned();
        stage.text(&[text, legend, keys]);
        if !stage.present_2d(&mut scene, &mut camera).await {
            break;
        }
    }
}
