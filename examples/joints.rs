//! Joints on the viewer: a chain of 20 boxes hanging from a static anchor, a plank bridge of
//! revolute joints with a crate dropped on it, a door on a motorised hinge that opens to its
//! limit, and a ragdoll of boxes and a ball (spherical neck, waist, shoulders and hips with cone
//! and twist limits, revolute elbows and knees with limits) falling onto the ground. Joints are
//! drawn in orange: each body's centre to its anchor. `--scene chain|bridge|door|ragdoll` shows
//! one of them; the default shows all four.
//!
//! Keys: left drag grabs a body (and pulls on its joints); Space pauses, S steps once, R resets,
//! M reverses the door's motor, C draws contacts, F5 saves a snapshot to
//! `joints.snapshot.json`, F9 loads it. The right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --release --example joints`; without a display:
//! `cargo run --release --example joints -- --headless --frames 120 --screenshot out.png`
//! (each frame one step). Off-screen runs end by printing what happened as `key=value` lines.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::*;
use support::Options;
use support::viewer::Viewer;
use testbed::joints::{bridge, chain, door, ragdoll};
use testbed::scenes::ground;

const SNAPSHOT_FILE: &str = "joints.snapshot.json";

/// How far the door opens (rad).
const DOOR_OPEN: Real = 1.5;

/// What the example watches in each scene.
struct Scene {
    world: World,
    chain: Option<(BodyHandle, Vec<BodyHandle>)>,
    door: Option<(BodyHandle, JointHandle)>,
    ragdoll: Vec<JointHandle>,
}

fn build(which: &str) -> Scene {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 30.0);
    let all = which == "all";
    let mut scene = Scene {
        world,
        chain: None,
        door: None,
        ragdoll: Vec::new(),
    };
    let world = &mut scene.world;
    if all || which == "chain" {
        let top = Vector3::new(if all { -7.0 } else { 0.0 }, 7.0, 0.0);
        scene.chain = Some(chain(world, top, 20));
    }
    if all || which == "bridge" {
        let at = Vector3::new(0.0, 2.5, 0.0);
        bridge(world, at, 10);
        world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(0.4))
                    .density(400.0)
                    .position(at + Vector3::new(-1.0, 3.0, 0.0))
                    .color([0.3, 0.6, 0.9]),
            )
            .expect("a valid crate");
    }
    if all || which == "door" {
        let at = Vector3::new(if all { 7.0 } else { 0.0 }, 0.0, 0.0);
        scene.door = Some(door(world, at, DOOR_OPEN));
    }
    if all || which == "ragdoll" {
        let at = Vector3::new(0.0, 1.5, if all { 5.0 } else { 0.0 });
        let (bodies, joints) = ragdoll(world, at);
        world
            .body_mut(bodies[2])
            .expect("the head")
            .set_linvel(Vector3::new(1.5, 0.0, 1.0))
            .expect("a valid push");
        scene.ragdoll = joints;
    }
    scene
}

/// The chain's last link's distance from the vertical through its anchor (m).
fn chain_off_axis(world: &World, chain: &(BodyHandle, Vec<BodyHandle>)) -> Real {
    let (Some(anchor), Some(last)) = (
        world.body(chain.0),
        chain.1.last().and_then(|&h| world.body(h)),
    ) else {
        return Real::NAN;
    };
    let d = last.position() - anchor.position();
    (d.x * d.x + d.z * d.z).sqrt()
}

/// The largest distance between the two anchors of any of `joints` (m): a ragdoll in one piece
/// keeps it near zero.
fn largest_gap(world: &World, joints: &[JointHandle]) -> Real {
    joints
        .iter()
        .filter_map(|&j| world.joint_reading(j).ok())
        .map(|r| (r.anchors[1] - r.anchors[0]).norm())
        .fold(0.0, Real::max)
}

#[kiss3d::main]
async fn main() {
    let mut names = vec!["scene"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("joints", &names);
    let which: String = options.text("scene").unwrap_or("all").to_owned();
    let which = match which.as_str() {
        "all" | "chain" | "bridge" | "door" | "ragdoll" => which,
        other => {
            eprintln!("joints: unknown scene `{other}`; showing all");
            "all".into()
        }
    };
    let mut scene = build(&which);
    let (eye, at) = if which == "all" {
        (Vec3::new(-3.0, 5.0, 15.0), Vec3::new(0.0, 2.0, 1.0))
    } else {
        (Vec3::new(3.0, 4.0, 8.0), Vec3::new(0.0, 2.0, 0.0))
    };
    let mut viewer = Viewer::open("joints", options, eye, at).await;
    let mut opening = true;
    loop {
        for key in viewer.keys() {
            if key == Key::R {
                scene = build(&which);
                viewer.grab = None;
                viewer.stage.status = "reset".into();
            } else if key == Key::M
                && let Some((_, hinge)) = scene.door
            {
                opening = !opening;
                let speed = if opening { 2.0 } else { -2.0 };
                let motor = Some(Motor {
                    speed,
                    max_force: 50.0,
                });
                if let Err(e) = scene.world.set_joint_motor(hinge, motor) {
                    viewer.stage.status = format!("door: {e}");
                }
            } else {
                viewer.snapshot_key(key, &mut scene.world, SNAPSHOT_FILE.as_ref());
            }
        }
        viewer.advance(&mut scene.world);
        let world = &scene.world;
        let mut facts = Vec::new();
        if let Some(chain) = &scene.chain {
            facts.push(format!(
                "chain end {:.3} m off plumb",
                chain_off_axis(world, chain)
            ));
        }
        if let Some((_, hinge)) = scene.door
            && let Ok(reading) = world.joint_reading(hinge)
        {
            facts.push(format!(
                "door {:.1} deg (limit {:.1})",
                reading.angle.to_degrees(),
                DOOR_OPEN.to_degrees()
            ));
        }
        if !scene.ragdoll.is_empty() {
            facts.push(format!(
                "ragdoll joints apart {:.1} mm",
                1000.0 * largest_gap(world, &scene.ragdoll)
            ));
        }
        let lines = [
            format!(
                "{} bodies, {} joints   step {}   step time {:.2} ms",
                world.len(),
                world.joint_count(),
                world.step_count(),
                viewer.step_ms()
            ),
            facts.join("   "),
            viewer.help(),
            "R reset   M door motor   F5 save   F9 load".into(),
        ];
        if !viewer.show(&scene.world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        let world = &scene.world;
        println!("joints={}", world.joint_count());
        if let Some(chain) = &scene.chain {
            println!("chain_off_axis={}", chain_off_axis(world, chain));
        }
        if let Some((_, hinge)) = scene.door
            && let Ok(reading) = world.joint_reading(hinge)
        {
            println!("door_angle={}", reading.angle);
            println!("door_limit={DOOR_OPEN}");
        }
        if !scene.ragdoll.is_empty() {
            println!("ragdoll_gap={}", largest_gap(world, &scene.ragdoll));
        }
    }
}
