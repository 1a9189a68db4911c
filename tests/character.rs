//! The character controller on scripted paths: it climbs a 30 degree slope and not a 60
//! degree one, steps up 0.3 m and not 0.5 m, slides along a wall, rides a platform, pushes a
//! crate; over 10,000 random moves in a cluttered level it never ends inside anything.

use minirigid::collide::volume_contact;
use minirigid::prelude::*;
use testbed::SplitMix;
use testbed::scenes::ground;

const HALF_HEIGHT: Real = 0.5;
const RADIUS: Real = 0.3;
/// The capsule's centre above the ground it stands on (its skin included).
const STANDING: Real = HALF_HEIGHT + RADIUS + 0.01;

fn character(world: &mut World, at: Vector3) -> BodyHandle {
    world
        .insert(
            BodyDesc::kinematic()
                .capsule(HALF_HEIGHT, RADIUS)
                .position(at),
        )
        .unwrap()
}

/// Walks the character at `velocity` (horizontal, m/s) for `seconds`, falling under gravity
/// when it is not on the ground; the last move's result.
fn walk(
    world: &mut World,
    controller: &mut CharacterController,
    body: BodyHandle,
    velocity: Vector3,
    seconds: Real,
    mut each_step: impl FnMut(&mut World, u32),
) -> CharacterMove {
    let dt = world.config().dt;
    let mut fall: Real = 0.0;
    let mut last = None;
    for k in 0..(seconds / dt).round() as u32 {
        let desired = velocity * dt + Vector3::y() * (fall * dt);
        let moved = controller.move_character(world, body, desired).unwrap();
        fall = if moved.grounded {
            0.0
        } else {
            fall - 9.81 * dt
        };
        each_step(world, k);
        world.step();
        last = Some(moved);
    }
    last.unwrap()
}

/// A ramp of angle `degrees` rising along +x from the origin, its top surface through it.
fn ramp(world: &mut World, degrees: Real) {
    let angle = degrees.to_radians();
    let normal = Vector3::new(-angle.sin(), angle.cos(), 0.0);
    let along = Vector3::new(angle.cos(), angle.sin(), 0.0);
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(10.0, 0.5, 3.0))
                .rotation(UnitQuaternion::from_euler_angles(0.0, 0.0, angle))
                .position(-normal * 0.5 + along * 10.0),
        )
        .unwrap();
}

fn flat_world() -> World {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 40.0);
    world
}

#[test]
fn it_climbs_a_30_degree_slope_and_not_a_60_degree_one() {
    for (degrees, climbs) in [(30.0, true), (60.0, false)] {
        let mut world = flat_world();
        ramp(&mut world, degrees);
        let body = character(&mut world, Vector3::new(-2.0, STANDING, 0.0));
        let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
        let moved = walk(
            &mut world,
            &mut controller,
            body,
            Vector3::new(2.0, 0.0, 0.0),
            4.0,
            |_, _| {},
        );
        let at = moved.pose.translation.vector;
        if climbs {
            // Along the slope at its height: x tan 30 under the capsule's lowest point.
            let surface = at.x * (degrees as Real).to_radians().tan();
            assert!(at.x > 4.0, "it walked up: {at}");
            assert!(
                at.y > surface + 0.5 && at.y < surface + STANDING + 0.2,
                "on the slope: {at} (surface {surface})"
            );
            assert!(moved.grounded);
        } else {
            assert!(at.y < STANDING + 0.3, "it did not climb: {at}");
            assert!(at.x < 0.5, "held at the foot of the slope: {at}");
        }
    }
}

#[test]
fn it_steps_up_0_3_m_and_not_0_5_m() {
    for (height, climbs) in [(0.3, true), (0.5, false)] {
        let mut world = flat_world();
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(2.0, height / 2.0, 2.0))
                    .position(Vector3::new(3.0, height / 2.0, 0.0)),
            )
            .unwrap();
        let body = character(&mut world, Vector3::new(-1.0, STANDING, 0.0));
        let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
        let moved = walk(
            &mut world,
            &mut controller,
            body,
            Vector3::new(1.5, 0.0, 0.0),
            3.0,
            |_, _| {},
        );
        let at = moved.pose.translation.vector;
        if climbs {
            assert!(at.x > 2.0, "on the step: {at}");
            assert!(
                (at.y - (height + STANDING)).abs() < 0.02,
                "standing on it: {at}"
            );
            assert!(moved.grounded);
        } else {
            assert!(at.x < 1.0 - RADIUS + 0.01, "held at its foot: {at}");
            assert!((at.y - STANDING).abs() < 0.02, "on the ground: {at}");
        }
    }
}

#[test]
fn it_slides_along_a_wall() {
    let mut world = flat_world();
    // A wall whose face is the plane x = 2.
    let wall = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(0.5, 2.0, 20.0))
                .position(Vector3::new(2.5, 2.0, 0.0)),
        )
        .unwrap();
    let body = character(&mut world, Vector3::new(0.0, STANDING, 0.0));
    let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
    let diagonal = Vector3::new(1.0, 0.0, 1.0).normalize() * 2.0;
    let mut touched = false;
    let moved = walk(
        &mut world,
        &mut controller,
        body,
        diagonal,
        3.0,
        |world, _| {
            touched |= world.body(body).unwrap().position().x > 1.6;
        },
    );
    let at = moved.pose.translation.vector;
    assert!(touched);
    assert!(
        at.x <= 2.0 - RADIUS + 1e-3 && at.x > 2.0 - RADIUS - 0.05,
        "at the wall: {at}"
    );
    // Along it at the part of the speed along it (2 / sqrt 2 m/s once at the wall).
    assert!(at.z > 3.0, "slid along it: {at}");
    assert!(moved.hits.iter().any(|(h, _)| *h == wall));
}

#[test]
fn it_rides_a_moving_platform() {
    let mut world = flat_world();
    let platform = world
        .insert(
            BodyDesc::kinematic()
                .cuboid(Vector3::new(2.0, 0.25, 2.0))
                .position(Vector3::new(0.0, 1.0, 0.0)),
        )
        .unwrap();
    let body = character(&mut world, Vector3::new(0.0, 1.25 + STANDING, 0.0));
    let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
    let dt = world.config().dt;
    let moved = walk(
        &mut world,
        &mut controller,
        body,
        Vector3::zeros(),
        3.0,
        |world, k| {
            // Along x at 1 m/s, turning about y at 0.2 rad/s.
            let t = (k + 1) as Real * dt;
            let pose = Isometry3::from_parts(
                Vector3::new(t, 1.0, 0.0).into(),
                UnitQuaternion::from_euler_angles(0.0, 0.2 * t, 0.0),
            );
            world
                .body_mut(platform)
                .unwrap()
                .set_target_pose(pose)
                .unwrap();
        },
    );
    let at = moved.pose.translation.vector;
    let top = world.body(platform).unwrap().position();
    assert!(
        (at.x - top.x).abs() < 0.1 && at.z.abs() < 0.1,
        "it rode along: {at} against the platform at {top}"
    );
    assert!((at.y - (1.25 + STANDING)).abs() < 0.03, "on top: {at}");
    assert_eq!(moved.ground.map(|g| g.0), Some(platform));
}

#[test]
fn it_pushes_a_crate() {
    let mut world = flat_world();
    let crate_ = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.4, 0.4, 0.4))
                .position(Vector3::new(2.0, 0.4, 0.0)),
        )
        .unwrap();
    let body = character(&mut world, Vector3::new(0.0, STANDING, 0.0));
    let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
    walk(
        &mut world,
        &mut controller,
        body,
        Vector3::new(1.5, 0.0, 0.0),
        3.0,
        |_, _| {},
    );
    let pushed = world.body(crate_).unwrap().position();
    assert!(pushed.x > 3.0, "the crate moved ahead: {pushed}");
}

#[test]
fn ten_thousand_random_moves_in_a_cluttered_level_never_end_inside_anything() {
    let mut world = flat_world();
    let mut rng = SplitMix(17);
    for i in 0..60 {
        let at = Vector3::new(
            rng.range(-12.0, 12.0),
            rng.range(0.0, 1.5),
            rng.range(-12.0, 12.0),
        );
        let rotation = UnitQuaternion::from_euler_angles(
            rng.range(-0.6, 0.6),
            rng.range(-3.0, 3.0),
            rng.range(-0.6, 0.6),
        );
        let desc = BodyDesc::fixed().pose(Isometry3::from_parts(at.into(), rotation));
        let desc = match i % 3 {
            0 => desc.cuboid(Vector3::new(
                rng.range(0.2, 2.0),
                rng.range(0.1, 1.0),
                rng.range(0.2, 2.0),
            )),
            1 => desc.ball(rng.range(0.2, 1.2)),
            _ => desc.capsule(rng.range(0.2, 1.0), rng.range(0.1, 0.5)),
        };
        world.insert(desc).unwrap();
    }
    let body = character(&mut world, Vector3::new(0.0, 6.0, 0.0));
    let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
    let shape = world.body(body).unwrap().collider().shape.clone();
    let mut worst: Real = 0.0;
    for k in 0..10_000 {
        let desired = Vector3::new(
            rng.range(-0.4, 0.4),
            rng.range(-0.4, 0.2),
            rng.range(-0.4, 0.4),
        );
        let moved = controller
            .move_character(&mut world, body, desired)
            .unwrap();
        let volume = shape.world(&moved.pose);
        for (handle, other) in world.bodies() {
            if handle == body {
                continue;
            }
            let placed = other
                .collider()
                .shape
                .world(&other.collider().world_pose(other.pose()));
            if let Some(contact) = volume_contact(&volume, &placed) {
                worst = worst.max(contact.depth);
                assert!(
                    contact.depth <= 1e-4,
                    "move {k}: {} m inside body {handle:?}",
                    contact.depth
                );
            }
        }
        world.step();
    }
    assert!(worst <= 1e-4);
}

#[test]
fn bad_character_input_is_refused_by_name() {
    let mut world = flat_world();
    let body = character(&mut world, Vector3::new(0.0, STANDING, 0.0));
    let dynamic = world.insert(BodyDesc::dynamic()).unwrap();
    let mut controller = CharacterController::new(CharacterConfig::default()).unwrap();
    let message = |e: WorldError| e.to_string();
    assert!(
        message(
            controller
                .move_character(&mut world, body, Vector3::new(Real::NAN, 0.0, 0.0))
                .unwrap_err()
        )
        .contains("desired")
    );
    assert!(
        message(
            controller
                .move_character(&mut world, dynamic, Vector3::zeros())
                .unwrap_err()
        )
        .contains("kinematic")
    );
    world.remove(body);
    assert_eq!(
        controller
            .move_character(&mut world, body, Vector3::zeros())
            .unwrap_err(),
        WorldError::UnknownBody
    );
    for (config, field) in [
        (
            CharacterConfig {
                max_slope: -0.1,
                ..CharacterConfig::default()
            },
            "max_slope",
        ),
        (
            CharacterConfig {
                up: Vector3::zeros(),
                ..CharacterConfig::default()
            },
            "up",
        ),
        (
            CharacterConfig {
                skin: Real::NAN,
                ..CharacterConfig::default()
            },
            "skin",
        ),
    ] {
        let error = CharacterController::new(config).unwrap_err().to_string();
        assert!(error.contains(field), "{error}");
    }
}
