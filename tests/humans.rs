//! Box3D's human (`testbed::human`, from `shared/human.c`): 14 capsules on spherical joints
//! with cone and twist limits and revolute knees and elbows, each with a spring toward the
//! rest pose and a friction motor. It lands in one piece and comes to rest; Box3D's rain
//! scene, which drops columns of them onto meshes, gives the same bits on any thread count and
//! when restored mid-fall.

mod common;

use minirigid::prelude::*;
use testbed::human::{HumanDesc, human, rain, rain_step};

fn gaps(world: &World, joints: &[JointHandle]) -> Real {
    (joints.iter())
        .map(|&j| {
            let r = world.joint_reading(j).unwrap();
            (r.anchors[0] - r.anchors[1]).norm()
        })
        .fold(0.0, Real::max)
}

#[test]
fn a_human_lands_in_one_piece_and_comes_to_rest() {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::new(0.0, -10.0, 0.0),
        ..WorldConfig::default()
    });
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(20.0, 1.0, 20.0))
                .position(Vector3::new(0.0, -1.0, 0.0)),
        )
        .unwrap();
    let body = human(
        &mut world,
        &HumanDesc {
            position: Vector3::new(0.0, 1.0, 0.0),
            friction_torque: 5.0,
            hertz: 1.0,
            damping_ratio: 0.7,
            group: 0,
            thigh_group: -1000,
            user_data: 1,
        },
    );
    assert_eq!(body.joints.len(), 13);
    // Box3D's bone frames leave some of its joints' anchors apart at the start (the thighs'
    // by 4 cm, as in Box3D); the joints close them.
    let first = gaps(&world, &body.joints);
    assert!(first > 0.03 && first < 0.05, "{first} m");
    let mut widest: Real = 0.0;
    for step in 0..600 {
        world.step();
        if step >= 30 {
            widest = widest.max(gaps(&world, &body.joints));
        }
        for &b in &body.bodies {
            let low = world.body(b).unwrap().world_aabb().mins.y;
            assert!(low > -0.01, "a bone {low} m into the ground at step {step}");
        }
    }
    // Measured: 3.9 mm at the widest, as it lands.
    println!("start gap {first} m, widest after half a second {widest} m");
    assert!(widest < 5e-3, "{widest} m");
    // At rest, asleep, lying on the ground (its head below a standing head's 1.65 m).
    assert_eq!(world.sleeping_count(), 14);
    let head = world.body(body.bodies[5]).unwrap().position();
    assert!(head.y < 0.5, "head at {head:?}");
}

/// Box3D's rain for its first `steps` steps (one column of ten groups of three humans falls
/// at step 0, the next at step 16).
fn rain_for(steps: usize) -> World {
    let mut world = rain();
    for k in 0..steps {
        rain_step(&mut world, k);
        world.step();
    }
    world
}

#[test]
fn the_rain_gives_the_same_bits_on_any_thread_count_and_restored_mid_fall() {
    let one = common::on_threads(1, || rain_for(24));
    assert_eq!(one.bodies().count(), 200 + 2 * 30 * 14);
    assert_eq!(one.joint_count(), 2 * 30 * 13);
    for threads in [2, 3] {
        let other = common::on_threads(threads, || rain_for(24));
        assert_eq!(other.state_hash(), one.state_hash(), "{threads} threads");
    }
    // Mid-fall, through both forms, then on with the rain's next drops.
    let mut world = one;
    let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    for k in 24..70 {
        for w in [&mut world, &mut from_json, &mut from_bytes] {
            rain_step(w, k);
            w.step();
        }
    }
    assert_eq!(from_json.state_hash(), world.state_hash());
    assert_eq!(from_bytes.state_hash(), world.state_hash());
    assert_eq!(world.joint_count(), 3 * 30 * 13);
    // Pinned: a change that moves it moves the humans, the meshes or the joints' bits.
    assert_eq!(world.state_hash(), 0x0d35_d1d1_51c5_7235);
}
