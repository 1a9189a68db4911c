//! Seed 001's box-box tester in 3D: box A (the first) turns red while the two intersect. Move
//! and turn box B with the keys; the text names the axis of the 15-axis separating axis test
//! that separates them ("separated on A0 x B1") or that gives the minimum translation, and the
//! contact normal, depth and points are drawn.
//!
//! Keys: arrows move B along x and y, PageUp/PageDown along z; J/L, I/K, U/O turn it about y, x
//! and z. The mouse orbits the camera.
//!
//! Run: `cargo run --example box_box`; without a display, place B by hand:
//! `cargo run --example box_box -- --headless --offset 1.8,0.6,0.2 --angles 0.3,0.5,0.1 --screenshot out.png`

mod support;

use kiss3d::prelude::*;
use minirigid::collide::{obb_obb_contact, obb_obb_intersects, obb_obb_sat};
use minirigid::prelude::{Obb, Point3, UnitQuaternion, Vector3};
use support::Options;
use support::stage::Stage;

/// Box A's colour while apart; red while they intersect.
const APART: Color = Color::new(0.3, 0.75, 0.35, 1.0);
const TOUCHING: Color = Color::new(0.95, 0.1, 0.1, 1.0);

#[kiss3d::main]
async fn main() {
    let options = Options::parse("box_box", &["offset", "angles"]);
    let mut offset = options
        .numbers("offset", 3)
        .map_or(Vector3::new(2.3, 0.6, 0.2), |v| {
            Vector3::new(v[0], v[1], v[2])
        });
    let mut angles = options
        .numbers("angles", 3)
        .map_or(Vector3::new(0.3, 0.5, 0.1), |v| {
            Vector3::new(v[0], v[1], v[2])
        });
    let mut stage = Stage::open("box_box", options, 1024, 576).await;
    let mut camera = OrbitCamera3d::new(Vec3::new(3.0, 4.0, 9.0), Vec3::new(1.0, 0.0, 0.0));
    let mut scene = SceneNode3d::empty();
    scene
        .add_light(Light::point(400.0))
        .set_position(Vec3::new(4.0, 8.0, 8.0));

    // Seed 001's tester: half extents are half the boxes' scales.
    let a = Obb::new(
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::new(1.0, 0.6, 0.8),
    );
    let half_b = Vector3::new(0.7, 0.9, 0.5);
    let mut node_a = scene.add_cube(
        2.0 * a.half_extents.x,
        2.0 * a.half_extents.y,
        2.0 * a.half_extents.z,
    );
    let mut node_b = scene.add_cube(2.0 * half_b.x, 2.0 * half_b.y, 2.0 * half_b.z);
    node_b.set_color(Color::new(0.75, 0.75, 0.75, 1.0));

    loop {
        let (keys, _) = stage.input();
        for (key, _, _) in keys {
            let (step, turn) = (0.05, 0.05);
            match key {
                Key::Left => offset.x -= step,
                Key::Right => offset.x += step,
                Key::Up => offset.y += step,
                Key::Down => offset.y -= step,
                Key::PageUp => offset.z -= step,
                Key::PageDown => offset.z += step,
                Key::I => angles.x += turn,
                Key::K => angles.x -= turn,
                Key::J => angles.y += turn,
                Key::L => angles.y -= turn,
                Key::U => angles.z += turn,
                Key::O => angles.z -= turn,
                _ => {}
            }
        }

        let rotation = UnitQuaternion::from_euler_angles(angles.x, angles.y, angles.z);
        let b = Obb::new(Point3::from(offset), rotation, half_b);
        let intersecting = obb_obb_intersects(&a, &b);
        node_a.set_color(if intersecting { TOUCHING } else { APART });
        node_b.set_pose(support::pose(&b.pose()));

        let sat = obb_obb_sat(&a, &b);
        let window = stage.window();
        let mut lines = vec![format!(
            "B at ({:+.2}, {:+.2}, {:+.2}), turned ({:+.2}, {:+.2}, {:+.2}) rad",
            offset.x, offset.y, offset.z, angles.x, angles.y, angles.z
        )];
        match obb_obb_contact(&a, &b) {
            Some(contact) => {
                lines.push(format!(
                    "intersecting: minimum translation along {}, depth {:.3}, {} point{}",
                    sat.axis,
                    contact.depth,
                    contact.points.len(),
                    if contact.points.len() == 1 { "" } else { "s" }
                ));
                lines.push(format!(
                    "normal ({:+.2}, {:+.2}, {:+.2}) from A toward B",
                    contact.normal.x, contact.normal.y, contact.normal.z
                ));
                for p in &contact.points {
                    let at = support::point3(&p.position);
                    window.draw_point(at, YELLOW, 10.0);
                    let tip = p.position + contact.normal * contact.depth.max(3.0);
                    window.draw_line(at, support::point3(&tip), WHITE, 3.0, false);
                }
            }
            None => lines.push(format!(
                "apart: separated on {} (gap {:.3} along it)",
                sat.axis, sat.separation
            )),
        }
        lines.push("arrows, PageUp/PageDown: move B   I/K, J/L, U/O: turn B".into());
        stage.text(&lines);
        if !stage.present_3d(&mut scene, &mut camera).await {
            break;
        }
    }
}
