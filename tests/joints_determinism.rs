//! Joints are state: a ragdoll restored mid-fall through JSON and binary steps bit-equal with
//! the original; a pinned hash for a joint scene; the same bits on any number of threads and
//! at any lane width; hostile snapshots with joints refused by name; older formats load
//! without joints.

mod common;

use minirigid::prelude::*;
use minirigid::world::{SNAPSHOT_VERSION, Snapshot};
use testbed::joints::{bridge, chain, falling_ragdoll, joint_grid, ragdoll};
use testbed::scenes::{ground, pyramid};

#[test]
fn a_ragdoll_restored_mid_fall_steps_in_lockstep_with_the_original() {
    let (mut original, _, joints) = falling_ragdoll();
    for _ in 0..30 {
        original.step();
    }
    // Mid-fall, the joints carry impulses (their warm start is state).
    assert!(
        joints
            .iter()
            .all(|&j| original.joint(j).unwrap().impulses().linear != Vector3::zeros())
    );
    let mut from_json = World::from_json(&original.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&original.to_bytes().unwrap()).unwrap();
    assert_eq!(from_json.state_hash(), original.state_hash());
    assert_eq!(from_bytes.state_hash(), original.state_hash());
    common::step_in_lockstep(&mut original, &mut from_json, &mut from_bytes, 300);
    // Forgetting the joints' impulses changes the trajectory: they are state.
    let (mut original, _, _) = falling_ragdoll();
    for _ in 0..30 {
        original.step();
    }
    let mut forgetful = original.snapshot();
    for joint in forgetful.joints.values_mut() {
        let mut value = serde_json::to_value(&*joint).unwrap();
        value["impulses"] =
            serde_json::to_value(minirigid::world::JointImpulses::default()).unwrap();
        *joint = serde_json::from_value(value).unwrap();
    }
    let mut forgetful = World::from_snapshot(forgetful).unwrap();
    for _ in 0..10 {
        original.step();
        forgetful.step();
    }
    assert_ne!(forgetful.state_hash(), original.state_hash());
}

/// Six ragdolls falling on a ground (six islands, so several groups), a bridge with boxes
/// dropped on it, and a chain: joints of every kind of the examples beside contacts.
fn scene() -> World {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 30.0);
    for k in 0..6 {
        let (bodies, _) = ragdoll(
            &mut world,
            Vector3::new(-8.0 + 3.0 * k as Real, 1.0 + 0.3 * k as Real, 0.0),
        );
        world
            .body_mut(bodies[2])
            .unwrap()
            .set_linvel(Vector3::new(1.0, 0.0, 0.5 * k as Real))
            .unwrap();
    }
    bridge(&mut world, Vector3::new(0.0, 4.0, 6.0), 8);
    for k in 0..4 {
        world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(0.3))
                    .position(Vector3::new(-2.0 + 1.3 * k as Real, 5.5, 6.0)),
            )
            .unwrap();
    }
    chain(&mut world, Vector3::new(6.0, 8.0, -4.0), 12);
    world
}

/// Runs `work` on a pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(work)
}

#[test]
fn the_same_bits_on_one_two_or_three_threads_and_at_every_lane_width() {
    let run = |threads: usize, lanes: SolverLanes| {
        on_threads(threads, || {
            let mut world = scene();
            world.set_solver_lanes(lanes);
            (0..120)
                .map(|_| {
                    world.step();
                    world.state_hash()
                })
                .collect::<Vec<_>>()
        })
    };
    let one = run(1, SolverLanes::One);
    for (threads, lanes) in [
        (2, SolverLanes::One),
        (3, SolverLanes::One),
        (1, SolverLanes::Four),
        (1, SolverLanes::Eight),
        (2, SolverLanes::Eight),
        (8, SolverLanes::Four),
    ] {
        assert_eq!(
            run(threads, lanes),
            one,
            "{threads} threads, {lanes:?} differ"
        );
    }
}

/// The hashes of `steps` steps of the world `build` makes, alone and on crews of 2, 3 and 8
/// threads (more than this machine's cores), and alone at one and four lanes (the default is
/// the widest: the plain ball and sockets of wide levels are solved in lanes, `BallBatch`),
/// are the same.
fn same_bits_on_any_crew(steps: usize, build: impl Fn() -> World + Sync) {
    let hashes = |threads: usize, lanes: Option<SolverLanes>| {
        on_threads(threads, || {
            let mut world = build();
            if let Some(lanes) = lanes {
                world.set_solver_lanes(lanes);
            }
            (0..steps)
                .map(|_| {
                    world.step();
                    world.state_hash()
                })
                .collect::<Vec<_>>()
        })
    };
    let alone = hashes(1, None);
    for threads in [2, 3, 8] {
        assert_eq!(
            hashes(threads, None),
            alone,
            "{threads} threads differ from one"
        );
    }
    for lanes in [SolverLanes::One, SolverLanes::Four] {
        assert_eq!(
            hashes(1, Some(lanes)),
            alone,
            "{lanes:?} differs from the widest"
        );
    }
}

/// A pyramid of base 24 with a chain of ten balls hanging from its top cube and swinging:
/// one island of some 1,600 contacts and ten joints, which a crew of every thread solves
/// (`response/solver/crew.rs`): the same bits alone, on a crew of 2 or 3, and of 8 threads
/// (more than this machine's cores).
#[test]
fn a_large_jointed_island_gives_the_same_bits_on_any_crew() {
    same_bits_on_any_crew(60, || {
        let (mut world, cubes) = pyramid(24);
        let mut config = *world.config();
        config.sleep.enabled = false;
        world.set_config(config).unwrap();
        let top = *cubes.last().unwrap();
        let mut above = top;
        let mut y = world.body(top).unwrap().position().y;
        for k in 0..10 {
            // Each ball half a metre to the side of the last, so that the chain swings.
            let at = Vector3::new(0.5 * (k + 1) as Real, y + 0.5, 0.0);
            let ball = world
                .insert(BodyDesc::dynamic().ball(0.2).position(at))
                .unwrap();
            world
                .insert_joint(JointDesc::spherical(above, ball, Point3::from(at)))
                .unwrap();
            (above, y) = (ball, at.y);
        }
        world
    });
}

/// Box3D's joint grid, 30 x 30 balls (1,740 spherical joints, one island, no contacts): its
/// levels are too narrow to share, so its joints are solved in colours (`place::colour_joints`),
/// each colour's shared by a crew: the same bits at every thread count.
#[test]
fn the_joint_grid_gives_the_same_bits_on_any_crew() {
    same_bits_on_any_crew(40, || joint_grid(30));
}

/// The solver keeps what it makes each plain ball and socket from (its anchors, softness and
/// impulse) from step to step, and forgets it whenever a joint changes between steps: after
/// each kind of change (a softness, a kind and back, a joint removed, one inserted, a body
/// removed with its joints), the world steps in lockstep with copies restored from it, whose
/// solvers kept nothing.
#[test]
fn a_joint_changed_between_steps_steps_as_a_restored_copy_does() {
    let mut world = joint_grid(8);
    let handles: Vec<JointHandle> = world.joints().map(|(h, _)| h).collect();
    let bodies: Vec<BodyHandle> = world.bodies().map(|(h, _)| h).collect();
    let spherical = JointKind::Spherical {
        cone: Some(0.5),
        twist: None,
        friction: 0.0,
        spring: None,
    };
    type Edit<'a> = Box<dyn Fn(&mut World) + 'a>;
    let edits: Vec<(&str, Edit<'_>)> = vec![
        (
            "softness",
            Box::new(|w| {
                let soft = Spring {
                    hertz: 20.0,
                    damping_ratio: 1.0,
                };
                w.set_joint_softness(handles[5], soft).unwrap()
            }),
        ),
        (
            "kind",
            Box::new(|w| w.set_joint_kind(handles[9], spherical).unwrap()),
        ),
        (
            "kind back",
            Box::new(|w| w.set_joint_kind(handles[9], JointKind::BALL).unwrap()),
        ),
        (
            "removal",
            Box::new(|w| {
                w.remove_joint(handles[20]).unwrap();
            }),
        ),
        (
            "insertion",
            Box::new(|w| {
                let (a, b) = (bodies[10], bodies[27]);
                let anchor = w.body(a).unwrap().pose().translation.vector.into();
                w.insert_joint(JointDesc::spherical(a, b, anchor)).unwrap();
            }),
        ),
        (
            "body removal",
            Box::new(|w| {
                w.remove(bodies[35]).unwrap();
            }),
        ),
    ];
    for _ in 0..10 {
        world.step();
    }
    for (what, edit) in &edits {
        edit(&mut world);
        let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
        let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
        assert_eq!(
            from_bytes.state_hash(),
            world.state_hash(),
            "after the {what}"
        );
        common::step_in_lockstep(&mut world, &mut from_json, &mut from_bytes, 5);
    }
}

/// A hub ball (radius 1) held by 1,100 small balls round it, one joint each (every tenth a revolute, the others
/// spherical), none colliding: one island of 1,100 joints in 1,100 levels of one, coloured, and
/// the hub's joints past the 64 colours go after them, in levels. The same bits on any crew,
/// and the hub stays with its spokes.
#[test]
fn a_hub_with_more_joints_than_colours_gives_the_same_bits_on_any_crew() {
    let build = || {
        let mut world = World::new(WorldConfig::default());
        let filter = CollisionFilter {
            category: 2,
            mask: !2,
            group: 0,
        };
        let ball = |at: Vector3, radius: Real| {
            BodyDesc::dynamic().ball(radius).position(at).filter(filter)
        };
        let hub = world
            .insert(ball(Vector3::new(0.0, 5.0, 0.0), 1.0))
            .unwrap();
        for k in 0..1100 {
            // Points spread over a sphere of radius 2 round the hub (a Fibonacci lattice).
            let t = (k as Real + 0.5) / 1100.0;
            let (polar, turn) = ((1.0 - 2.0 * t).acos(), 2.39996 * k as Real);
            let direction = Vector3::new(
                polar.sin() * turn.cos(),
                polar.cos(),
                polar.sin() * turn.sin(),
            );
            let at = Vector3::new(0.0, 5.0, 0.0) + 2.0 * direction;
            let spoke = world.insert(ball(at, 0.1)).unwrap();
            let anchor = Point3::from(Vector3::new(0.0, 5.0, 0.0) + 1.5 * direction);
            let joint = if k % 10 == 0 {
                JointDesc::revolute(hub, spoke, anchor, direction)
            } else {
                JointDesc::spherical(hub, spoke, anchor)
            };
            world.insert_joint(joint).unwrap();
        }
        world
    };
    same_bits_on_any_crew(20, build);
    let mut world = build();
    for _ in 0..20 {
        world.step();
    }
    let hub = world.bodies().next().unwrap().1.pose().translation.vector;
    for (_, body) in world.bodies().skip(1) {
        let reach = (body.pose().translation.vector - hub).norm();
        assert!(
            (reach - 2.0).abs() < 0.05,
            "a spoke came {reach} m from the hub"
        );
    }
}

/// 120 chains of three balls lying across a plank that tips on the ground: one island whose
/// 240 joints fall in two wide levels, which a crew solves level by level, several joints at
/// once (`place::level_joints`): the bits of one at a time in handle order.
#[test]
fn wide_levels_of_joints_give_the_same_bits_on_any_crew() {
    same_bits_on_any_crew(40, || {
        let mut world = World::new(WorldConfig::default());
        ground(&mut world, 40.0);
        world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::new(15.0, 0.1, 1.0))
                    .position(Vector3::new(0.0, 0.6, 0.0))
                    .angvel(Vector3::new(0.3, 0.0, 0.5)),
            )
            .unwrap();
        for k in 0..120 {
            let x = -14.5 + 0.25 * k as Real;
            let balls: Vec<BodyHandle> = (0..3)
                .map(|n| {
                    let at = Vector3::new(x, 0.8, -0.3 + 0.3 * n as Real);
                    world
                        .insert(BodyDesc::dynamic().ball(0.1).position(at))
                        .unwrap()
                })
                .collect();
            for n in 0..2 {
                let anchor = Point3::new(x, 0.8, -0.15 + 0.3 * n as Real);
                world
                    .insert_joint(JointDesc::spherical(balls[n], balls[n + 1], anchor))
                    .unwrap();
            }
        }
        world
    });
}

/// The hash of [`scene`] after 120 steps. It changes only when the simulation's results
/// change on purpose or on a platform whose floating point differs. To update: run this test,
/// read the hash it prints, and set `PINNED` in the change that explains why.
const PINNED: u64 = 0xa786_38f6_d719_3765;

#[test]
fn joint_determinism_is_pinned() {
    let mut world = scene();
    for _ in 0..120 {
        world.step();
    }
    let hash = world.state_hash();
    assert_eq!(
        hash, PINNED,
        "the joint scene's state after 120 steps changed (hash {hash:#018x}). If the change \
         is intended, set PINNED in tests/joints_determinism.rs to {hash:#018x}."
    );
}

/// A world with a revolute joint, saved as JSON.
fn jointed_json() -> (String, Snapshot) {
    let mut world = World::new(WorldConfig::default());
    let fixed = world
        .insert(BodyDesc::fixed().cuboid(Vector3::repeat(0.1)))
        .unwrap();
    let arm = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 0.1, 0.1))
                .position(Vector3::new(0.5, 0.0, 0.0)),
        )
        .unwrap();
    world
        .insert_joint(
            JointDesc::revolute(fixed, arm, Point3::origin(), Vector3::z())
                .limits(-1.0, 1.0)
                .motor(1.0, 5.0),
        )
        .unwrap();
    world.step();
    (world.to_json().unwrap(), world.snapshot())
}

fn refused(snapshot: Snapshot, what: &str) {
    match World::from_snapshot(snapshot) {
        Ok(_) => panic!("accepted; expected an error naming {what}"),
        Err(e) => assert!(e.to_string().contains(what), "`{e}` does not name {what}"),
    }
}

#[test]
fn hostile_snapshots_with_joints_are_refused_by_name() {
    let (json, snapshot) = jointed_json();
    assert!(World::from_json(&json).is_ok());
    assert_eq!(snapshot.version, SNAPSHOT_VERSION);
    // An unknown kind, a missing field.
    assert!(World::from_json(&json.replace("\"Revolute\"", "\"Hinge\"")).is_err());
    assert!(World::from_json(&json.replace("\"collide_connected\"", "\"collides\"")).is_err());
    // A body that is not in the world; a body joined to itself.
    let mut s = snapshot.clone();
    let body = s.bodies.keys().next().unwrap();
    let other = s.bodies.keys().nth(1).unwrap();
    s.bodies.remove(other);
    s.sleep.pop();
    s.touching.clear();
    s.contacts.clear();
    refused(s, "joints[0].bodies");
    let _ = body;
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut s = snapshot.clone();
        let joint = s.joints.values_mut().next().unwrap();
        let mut value = serde_json::to_value(&*joint).unwrap();
        f(&mut value);
        *joint = serde_json::from_value(value).unwrap();
        s
    };
    refused(
        edit(&|v| v["bodies"][1] = v["bodies"][0].clone()),
        "joints[0].bodies",
    );
    // Out-of-order limits, huge impulses, bad rotations, negative stiffness inside a joint.
    refused(
        edit(&|v| v["kind"]["Revolute"]["limits"] = serde_json::json!([1.0, -1.0])),
        "joints[0].kind.limits must be in order",
    );
    refused(
        edit(&|v| v["impulses"]["motor"] = serde_json::json!(1e30)),
        "joints[0].impulses.motor",
    );
    refused(
        edit(&|v| v["frames"][0]["rotation"] = serde_json::json!([0.0, 0.0, 0.0, 2.0])),
        "joints[0].frame_a",
    );
    refused(
        edit(&|v| v["softness"]["hertz"] = serde_json::json!(-1.0)),
        "joints[0].softness.hertz",
    );
    // NaN in the binary form (JSON has no NaN): a marked value's bits replaced.
    let marked = edit(&|v| v["force"] = serde_json::json!([12345.678, 0.0, 0.0]));
    let mut bytes = marked.to_bytes().unwrap();
    let mark = 12345.678f32.to_le_bytes();
    let at = bytes.windows(4).position(|w| w == mark).unwrap();
    bytes[at..at + 4].copy_from_slice(&Real::NAN.to_le_bytes());
    match World::from_bytes(&bytes) {
        Ok(_) => panic!("a NaN force was accepted"),
        Err(e) => assert!(e.to_string().contains("joints[0].force.x"), "{e}"),
    }
    // Every truncation of a jointed world's binary snapshot is refused.
    let world = World::from_snapshot(snapshot).unwrap();
    let bytes = world.to_bytes().unwrap();
    common::every_truncation_fails(&bytes[..]);
}

#[test]
fn version_5_snapshots_load_without_joints_and_step_as_they_did() {
    // The version-4 pyramid (a base-4 pyramid hit by a ball, contact reuse within 1 cm) loaded
    // by the build before joints, set to two soft iterations, stepped 20 steps and saved in
    // format 5 mid-contact. That build reached 0x20f82c5c356909be 60 steps later, with ten
    // bodies asleep; a world without joints hashes as it did.
    let bytes = include_bytes!("data/v5-pyramid.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.joint_count(), 0);
    assert_eq!(world.config().solver.soft_iterations, 2);
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0x20f8_2c5c_3569_09be);
    assert_eq!(world.sleeping_count(), 10);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn version_6_snapshots_load_without_a_surface_table_and_step_as_they_did() {
    // The falling ragdoll and a bridge of 8 planks, stepped 40 steps by the build before
    // meshes and saved in format 6 mid-contact and mid-swing. That build reached
    // 0xc0c7c34f79e1a1de 60 steps later; this one does too, and saves it in the current version.
    let bytes = include_bytes!("data/v6-ragdoll.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.joint_count(), 19);
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0xc0c7_c34f_79e1_a1de);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn version_12_snapshots_load_with_springless_spherical_joints_and_step_as_they_did() {
    // The falling ragdoll stepped 40 steps by the build before spherical springs and saved in
    // format 12 mid-fall (hashed 0xca397b8346065125 then); that build reached
    // 0x3fd9057ef352004f 60 steps later. Its joints load as they were (no spring, so the same
    // hash) and step to the same bits; saved again, it is version 13.
    let bytes = include_bytes!("data/v12-ragdoll.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.state_hash(), 0xca39_7b83_4606_5125);
    assert!(world.snapshot().joint_springs.is_empty());
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0x3fd9_057e_f352_004f);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(SNAPSHOT_VERSION, 13);
    assert_eq!(again.state_hash(), world.state_hash());
}

/// The falling ragdoll with a spring (2 Hz, damping ratio 0.7) on each spherical joint.
fn sprung_ragdoll() -> World {
    let (mut world, _, joints) = falling_ragdoll();
    for joint in joints {
        let mut kind = *world.joint(joint).unwrap().kind();
        if let JointKind::Spherical { spring, .. } = &mut kind {
            *spring = Some(Spring {
                hertz: 2.0,
                damping_ratio: 0.7,
            });
            world.set_joint_kind(joint, kind).unwrap();
        }
    }
    world
}

#[test]
fn spherical_springs_are_state_saved_beside_the_joints() {
    let mut world = sprung_ragdoll();
    let (mut plain, _, _) = falling_ragdoll();
    for _ in 0..30 {
        world.step();
        plain.step();
    }
    // The springs change the motion and the hash.
    let snapshot = world.snapshot();
    assert_eq!(snapshot.joint_springs.len(), 6);
    assert_ne!(world.state_hash(), plain.state_hash());
    // Restored mid-fall through JSON and binary, it steps bit-equal with the original.
    let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    for _ in 0..120 {
        world.step();
        from_json.step();
        from_bytes.step();
    }
    assert_eq!(from_json.state_hash(), world.state_hash());
    assert_eq!(from_bytes.state_hash(), world.state_hash());
    // The list decides: a spring dropped from it is dropped from its joint.
    let mut s = world.snapshot();
    let (dropped, _) = s.joint_springs.remove(0);
    let restored = World::from_snapshot(s).unwrap();
    assert!(matches!(
        restored.joint(dropped).unwrap().kind(),
        JointKind::Spherical { spring: None, .. }
    ));
    // Hostile lists refused by name: out of order, a joint that is not spherical, a removed
    // joint, a bad spring.
    let snapshot = world.snapshot();
    let mut s = snapshot.clone();
    s.joint_springs.swap(0, 1);
    refused(s, "joint_springs[1]");
    let hinge = (snapshot.joints.iter())
        .find(|(_, j)| matches!(j.kind(), JointKind::Revolute(_)))
        .unwrap()
        .0;
    let mut s = snapshot.clone();
    s.joint_springs.push((hinge, s.joint_springs[0].1));
    s.joint_springs.sort_by_key(|e| e.0);
    refused(s, "joint_springs[");
    let mut s = snapshot.clone();
    let (first, _) = s.joint_springs[0];
    s.joints.remove(first);
    refused(s, "joint_springs[0]");
    let mut s = snapshot.clone();
    s.joint_springs[2].1.hertz = Real::NAN;
    refused(s, "joint_springs[2].spring.hertz");
    let mut s = snapshot;
    s.joint_springs[3].1.damping_ratio = -1.0;
    refused(s, "joint_springs[3].spring.damping_ratio");
}

#[test]
fn mutated_jointed_snapshots_never_panic() {
    // What the fuzz target does (`fuzz/`, whose seeds include this ragdoll), over a few
    // thousand seeded byte flips: decode, and whatever decodes steps and round-trips.
    let (mut world, _, _) = falling_ragdoll();
    for _ in 0..20 {
        world.step();
    }
    let bytes = world.to_bytes().unwrap();
    let mut rng = testbed::SplitMix(7);
    for _ in 0..3000 {
        let mut data = bytes.clone();
        for _ in 0..1 + rng.next_u64() % 4 {
            let at = (rng.next_u64() % data.len() as u64) as usize;
            data[at] = rng.next_u64() as u8;
        }
        if let Ok(mut world) = World::from_bytes(&data) {
            world.step();
            let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
            assert_eq!(again.state_hash(), world.state_hash());
        }
    }
}

/// Writes the fuzz target's jointed seeds (`fuzz/seeds/ragdoll.bin` and `.json`): run with
/// `--ignored` after a format change.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let (mut world, _, _) = falling_ragdoll();
    for _ in 0..20 {
        world.step();
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    std::fs::write(dir.join("ragdoll.bin"), world.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("ragdoll.json"), world.to_json().unwrap()).unwrap();
}

/// A plain ball and socket whose warm start would throw a light ball's spin past the float
/// range (a snapshot's largest impulse, 1e20 N s, at a 10 km arm on a 1 ug ball of 1 mm) lets
/// go for that pass instead of spreading an infinity: the world stays finite, restores bit for
/// bit, and gives the same bits at one, four and eight lanes (the batches' let-go is lane by
/// lane what the one-at-a-time joint did).
#[test]
fn a_ball_joint_whose_velocities_overflow_lets_go_at_every_lane_width() {
    let build = || {
        let mut world = World::new(WorldConfig::default());
        let anchor = world
            .insert(BodyDesc::fixed().ball(0.5).position(Vector3::zeros()))
            .unwrap();
        let light = world
            .insert(
                BodyDesc::dynamic()
                    .ball(1e-3)
                    .mass(1e-9)
                    .position(Vector3::new(1e4, 0.0, 0.0)),
            )
            .unwrap();
        let joint = world
            .insert_joint(JointDesc::spherical(anchor, light, Point3::origin()))
            .unwrap();
        let mut snapshot = world.snapshot();
        let stored = snapshot.joints.get_mut(joint).unwrap();
        let mut value = serde_json::to_value(&*stored).unwrap();
        value["impulses"]["linear"] = serde_json::json!([0.0, 1e20, 1e20]);
        *stored = serde_json::from_value(value).unwrap();
        (World::from_snapshot(snapshot).unwrap(), light)
    };
    let run = |lanes: SolverLanes| {
        let (mut world, light) = build();
        world.set_solver_lanes(lanes);
        let mut hashes = Vec::new();
        for _ in 0..5 {
            world.step();
            let body = world.body(light).unwrap();
            assert!(body.linvel().iter().all(|v| v.is_finite()));
            assert!(body.angvel().iter().all(|v| v.is_finite()));
            let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
            assert_eq!(again.state_hash(), world.state_hash());
            hashes.push(world.state_hash());
        }
        hashes
    };
    let one = run(SolverLanes::One);
    assert_eq!(run(SolverLanes::Four), one);
    assert_eq!(run(SolverLanes::Eight), one);
}
