//! Capsules in the world: at rest lying down on a box, a mesh and a heightfield (the same
//! height, still, asleep), sliding across a mesh's seams without a bump, rolling down a ramp
//! at a solid capsule's rate, restored bit for bit, and bad capsules refused by name.

mod common;

use minirigid::prelude::*;
use std::f32::consts::FRAC_PI_2;
use testbed::surfaces::{grid_shape, heightfield};

const RADIUS: Real = 0.25;
const HALF_HEIGHT: Real = 0.5;

/// A capsule lying along x, its lowest point `gap` above `y = 0`.
fn lying(gap: Real) -> BodyDesc {
    BodyDesc::dynamic()
        .capsule(HALF_HEIGHT, RADIUS)
        .position(Vector3::new(0.3, RADIUS + gap, -0.2))
        .rotation(UnitQuaternion::from_axis_angle(
            &Vector3::z_axis(),
            FRAC_PI_2,
        ))
}

/// Where the lying capsule rests on `floor` (top at `y = 0`) and how still it is: its height
/// after 3 s, the largest speed and spin over the third second, whether it sleeps by 6 s.
fn rest_on(floor: BodyDesc) -> (Real, Real, Real, bool) {
    let mut world = World::new(WorldConfig::default());
    world.insert(floor).unwrap();
    let capsule = world.insert(lying(0.05)).unwrap();
    let (mut speed, mut spin) = (0.0 as Real, 0.0 as Real);
    for step in 0..180 {
        world.step();
        let body = world.body(capsule).unwrap();
        if step >= 120 {
            speed = speed.max(body.linvel().norm());
            spin = spin.max(body.angvel().norm());
        }
    }
    let height = world.body(capsule).unwrap().position().y;
    for _ in 0..180 {
        world.step();
    }
    (
        height,
        speed,
        spin,
        world.body(capsule).unwrap().is_sleeping(),
    )
}

#[test]
fn a_capsule_lying_down_rests_still_on_a_box_a_mesh_and_a_heightfield() {
    let floors = [
        BodyDesc::fixed()
            .cuboid(Vector3::new(5.0, 0.5, 5.0))
            .position(Vector3::new(0.0, -0.5, 0.0)),
        BodyDesc::fixed().shape(grid_shape(10, 10, 1.0, |_, _| 0.0)),
        BodyDesc::fixed().shape(heightfield(11, 11, 10.0, |_, _| 0.0)),
    ];
    let mut heights = Vec::new();
    for (k, floor) in floors.into_iter().enumerate() {
        let (height, speed, spin, asleep) = rest_on(floor);
        assert!((height - RADIUS).abs() < 0.01, "floor {k}: {height}");
        assert!(
            speed < 1e-3 && spin < 1e-3,
            "floor {k}: {speed} m/s, {spin} rad/s"
        );
        assert!(asleep, "floor {k}: awake after 6 s");
        heights.push(height);
    }
    for h in &heights[1..] {
        assert!((h - heights[0]).abs() < 1e-3, "{heights:?}");
    }
}

#[test]
fn a_capsule_slides_across_a_meshs_seams_without_a_bump() {
    for field in [false, true] {
        let mut world = World::new(WorldConfig::default());
        let floor = if field {
            heightfield(51, 101, 100.0, |_, _| 0.0)
        } else {
            grid_shape(100, 50, 1.0, |_, _| 0.0)
        };
        world
            .insert(BodyDesc::fixed().shape(floor).friction(0.0))
            .unwrap();
        // Lying across the direction of travel, at 5 m/s along +x, diagonally over the cells.
        let capsule = world
            .insert(
                BodyDesc::dynamic()
                    .capsule(HALF_HEIGHT, RADIUS)
                    .position(Vector3::new(-20.0, RADIUS, -7.3))
                    .rotation(UnitQuaternion::from_axis_angle(
                        &Vector3::x_axis(),
                        FRAC_PI_2,
                    ))
                    .linvel(Vector3::new(5.0, 0.0, 1.0))
                    .friction(0.0),
            )
            .unwrap();
        let (mut vy, mut spin) = (0.0 as Real, 0.0 as Real);
        for step in 0..480 {
            world.step();
            let body = world.body(capsule).unwrap();
            if step >= 10 {
                vy = vy.max(body.linvel().y.abs());
                spin = spin.max(body.angvel().norm());
            }
        }
        let body = world.body(capsule).unwrap();
        assert!(body.position().x > 19.0, "{:?}", body.position());
        assert!(
            vy < 0.01 && spin < 0.01,
            "field {field}: {vy} m/s, {spin} rad/s"
        );
    }
}

#[test]
fn a_capsule_rolls_down_a_ramp_at_a_solid_capsules_rate() {
    let mut config = WorldConfig::default();
    config.solver.rolling_resistance = 0.0;
    let mut world = World::new(config);
    let theta = (10.0 as Real).to_radians();
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), -theta);
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(20.0, 0.5, 3.0))
                .pose(Isometry3::from_parts(
                    (tilt * Vector3::new(0.0, -0.5, 0.0)).into(),
                    tilt,
                )),
        )
        .unwrap();
    // Its axis along z, across the slope, touching the ramp's top.
    let at = tilt * Vector3::new(-10.0, RADIUS, 0.0);
    let capsule = world
        .insert(
            BodyDesc::dynamic()
                .capsule(HALF_HEIGHT, RADIUS)
                .position(at)
                .rotation(UnitQuaternion::from_axis_angle(
                    &Vector3::x_axis(),
                    FRAC_PI_2,
                ))
                .friction(1.0),
        )
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    // a = g sin(theta) / (1 + I / (m r^2)), I the moment about its own axis.
    let props = Shape::capsule(HALF_HEIGHT, RADIUS)
        .unwrap()
        .mass_properties(1000.0);
    let k = props.inertia[(1, 1)] / (props.mass * RADIUS * RADIUS);
    let expected = 9.81 * theta.sin() / (1.0 + k) * 2.0;
    let body = world.body(capsule).unwrap();
    let along = (tilt.inverse() * body.linvel()).x;
    assert!(
        (along - expected).abs() < 0.01 * expected,
        "{along} against {expected} (k = {k})"
    );
    // Rolling, not sliding: the contact point is still.
    let rolling = body.angvel().norm() * RADIUS;
    assert!(
        (rolling - along).abs() < 0.01 * along,
        "{rolling} against {along}"
    );
}

/// A pile of capsules and balls poured into a bin of boxes, the world at `steps`.
fn pile(steps: usize) -> World {
    let mut world = World::new(WorldConfig::default());
    // A bin: a floor and four walls.
    for (half, at) in [
        (Vector3::new(3.0, 0.5, 3.0), Vector3::new(0.0, -0.5, 0.0)),
        (Vector3::new(0.5, 2.0, 3.0), Vector3::new(-3.0, 1.0, 0.0)),
        (Vector3::new(0.5, 2.0, 3.0), Vector3::new(3.0, 1.0, 0.0)),
        (Vector3::new(3.0, 2.0, 0.5), Vector3::new(0.0, 1.0, -2.0)),
        (Vector3::new(3.0, 2.0, 0.5), Vector3::new(0.0, 1.0, 2.0)),
    ] {
        world
            .insert(BodyDesc::fixed().cuboid(half).position(at))
            .unwrap();
    }
    for i in 0..24 {
        let (x, z) = ((i % 4) as Real - 1.5, ((i / 4) % 2) as Real - 0.5);
        let y = 1.0 + 0.6 * (i / 8) as Real;
        let turn = UnitQuaternion::from_euler_angles(0.3 * i as Real, 1.3, 0.7 * i as Real);
        let desc = if i % 3 == 2 {
            BodyDesc::dynamic().ball(0.3)
        } else {
            BodyDesc::dynamic().capsule(0.4, 0.2)
        };
        world
            .insert(desc.position(Vector3::new(x, y, z)).rotation(turn))
            .unwrap();
    }
    for _ in 0..steps {
        world.step();
    }
    world
}

#[test]
fn a_pile_of_capsules_comes_to_rest_and_restores_bit_for_bit() {
    let mut world = pile(90);
    let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
    common::step_in_lockstep(&mut world, &mut from_json, &mut from_bytes, 150);
    for _ in 0..360 {
        world.step();
    }
    for (_, body) in world.bodies() {
        if body.kind() == BodyKind::Dynamic {
            assert!(body.position().y > 0.15, "sunk: {:?}", body.position());
            assert!(body.is_sleeping(), "awake after 10 s: {:?}", body.linvel());
        }
    }
}

#[test]
fn bad_capsules_are_refused_by_name_and_the_world_is_unchanged() {
    let mut world = pile(0);
    let before = world.state_hash();
    for (desc, field) in [
        (BodyDesc::dynamic().capsule(-1.0, 0.5), "half_height"),
        (BodyDesc::dynamic().capsule(0.5, 0.0), "radius"),
        (BodyDesc::dynamic().capsule(Real::NAN, 0.5), "half_height"),
        (BodyDesc::dynamic().capsule(0.5, Real::INFINITY), "radius"),
    ] {
        let error = world.insert(desc).unwrap_err().to_string();
        assert!(error.contains(field), "{error}");
    }
    assert!(
        Shape::capsule(0.0, 1.0)
            .unwrap_err()
            .to_string()
            .contains("half_height")
    );
    assert_eq!(world.state_hash(), before);
}
