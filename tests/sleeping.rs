//! Islands and sleeping: piles at rest fall asleep (and only bodies at rest do), cost no
//! collision test while they sleep, wake when touched, moved, left without support or asked,
//! sleep and wake identically after a snapshot round trip, and bad sleep settings or states are
//! refused by name.

mod common;

use minirigid::prelude::*;
use testbed::scenes::{ground, pyramid, pyramid_cubes, stack};

fn steps(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step();
    }
}

fn asleep(world: &World, handles: &[BodyHandle]) -> usize {
    handles
        .iter()
        .filter(|&&h| world.body(h).unwrap().is_sleeping())
        .count()
}

/// Steps until every body in `handles` sleeps; panics after `limit` steps.
fn until_asleep(world: &mut World, handles: &[BodyHandle], limit: usize) -> usize {
    for step in 0..limit {
        if asleep(world, handles) == handles.len() {
            return step;
        }
        world.step();
    }
    panic!(
        "{} of {} bodies asleep after {limit} steps",
        asleep(world, handles),
        handles.len()
    );
}

#[test]
fn a_pyramid_at_rest_falls_asleep_and_then_costs_no_collision_test() {
    let (mut world, cubes) = pyramid(6);
    let took = until_asleep(&mut world, &cubes, 600);
    // At rest within a few tenths of a second, then the half second of rest.
    assert!(took >= 30, "asleep after only {took} steps");
    let poses: Vec<Isometry3> = cubes
        .iter()
        .map(|&h| *world.body(h).unwrap().pose())
        .collect();
    let hash_before = world.state_hash();
    let impulses_before = world.contact_impulses().to_vec();
    world.step();
    assert_eq!(world.stage_counts().pairs, 0, "sleeping pairs were tested");
    assert!(world.events().is_empty(), "{:?}", world.events());
    steps(&mut world, 100);
    for (&h, pose) in cubes.iter().zip(&poses) {
        let body = world.body(h).unwrap();
        assert_eq!(body.pose(), pose, "a sleeping cube moved");
        assert_eq!(body.linvel(), Vector3::zeros());
    }
    // Only the step counter changed.
    assert_ne!(world.state_hash(), hash_before);
    assert_eq!(world.sleeping_count(), cubes.len());
    // The sleeping contacts keep their impulses, as they were, for the warm start when they
    // wake (a world where nothing moves skips the solver and carries the set over).
    assert!(world.contact_impulses().len() >= cubes.len());
    assert_eq!(world.contact_impulses(), &impulses_before[..]);
}

#[test]
fn only_bodies_at_rest_sleep_never_one_in_flight() {
    // A cube thrown straight up next to a settling stack: its speed passes through zero at the
    // top, far shorter than the half second of rest a body needs.
    let (mut world, cubes) = stack(4);
    let thrown = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(5.0, 0.5, 0.0))
                .linvel(Vector3::new(0.0, 8.0, 0.0)),
        )
        .unwrap();
    for _ in 0..400 {
        world.step();
        for (handle, body) in world.bodies() {
            if body.is_sleeping() {
                // Supported: something within a millimetre below it.
                let aabb = body.world_aabb();
                let below = Aabb::new(
                    Point3::new(aabb.mins.x, aabb.mins.y - 1e-3, aabb.mins.z),
                    Point3::new(aabb.maxs.x, aabb.mins.y + 1e-3, aabb.maxs.z),
                );
                let support = world.query_aabb(&below);
                assert!(
                    support.iter().any(|&h| h != handle),
                    "{handle:?} sleeps at y = {} with nothing below",
                    body.position().y
                );
            }
        }
    }
    assert!(world.body(thrown).unwrap().is_sleeping());
    assert_eq!(asleep(&world, &cubes), cubes.len());
}

#[test]
fn a_ball_fired_into_a_sleeping_pyramid_wakes_it_and_moves_cubes() {
    let (mut world, cubes) = pyramid(5);
    until_asleep(&mut world, &cubes, 600);
    let start: Vec<Point3> = cubes
        .iter()
        .map(|&h| world.body(h).unwrap().position())
        .collect();
    world
        .insert(
            BodyDesc::dynamic()
                .ball(0.4)
                .density(5.0)
                .position(Vector3::new(-8.0, 1.0, 0.0))
                .linvel(Vector3::new(20.0, 0.0, 0.0)),
        )
        .unwrap();
    let mut woke = false;
    for _ in 0..60 {
        world.step();
        woke |= asleep(&world, &cubes) < cubes.len();
    }
    assert!(woke, "the pyramid never woke");
    let moved = cubes
        .iter()
        .zip(&start)
        .filter(|&(&h, p)| (world.body(h).unwrap().position() - p).norm() > 0.05)
        .count();
    assert!(moved >= 3, "only {moved} cubes moved");
}

#[test]
fn two_piles_sleep_and_wake_apart() {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 50.0);
    let left = pyramid_cubes(&mut world, 3, -5.0);
    let right = pyramid_cubes(&mut world, 3, 5.0);
    let all: Vec<BodyHandle> = left.iter().chain(&right).copied().collect();
    until_asleep(&mut world, &all, 600);
    // Nudge the left pyramid's top cube: the left island wakes, the right one sleeps on.
    let top = *left.last().unwrap();
    world
        .body_mut(top)
        .unwrap()
        .set_linvel(Vector3::new(0.0, 0.0, 0.5))
        .unwrap();
    world.step();
    assert_eq!(
        asleep(&world, &left),
        0,
        "the left pyramid did not wake whole"
    );
    assert_eq!(
        asleep(&world, &right),
        right.len(),
        "the right pyramid woke"
    );
    // The right pyramid's pairs, untested while it sleeps (their keys among the left one's,
    // which are tested), still touch: no event names them, step after step.
    let names_right = |event: &ContactEvent| {
        let (ContactEvent::Started(a, b) | ContactEvent::Stopped(a, b)) = *event;
        right.contains(&a) || right.contains(&b)
    };
    for _ in 0..30 {
        assert!(
            !world.events().iter().any(names_right),
            "{:?}",
            world.events()
        );
        world.step();
    }
    assert_eq!(asleep(&world, &right), right.len());
}

#[test]
fn a_sleeping_stack_wakes_when_its_bottom_is_moved_away_or_removed() {
    for how in ["teleport", "remove"] {
        let (mut world, cubes) = stack(5);
        until_asleep(&mut world, &cubes, 600);
        let heights: Vec<Real> = cubes
            .iter()
            .map(|&h| world.body(h).unwrap().position().y)
            .collect();
        let bottom = cubes[0];
        match how {
            "teleport" => {
                let mut pose = *world.body(bottom).unwrap().pose();
                pose.translation.vector.x += 10.0;
                world.body_mut(bottom).unwrap().set_pose(pose).unwrap();
            }
            _ => {
                world.remove(bottom).unwrap();
                // Removal wakes at once: the stack must not hang in the air.
                assert_eq!(asleep(&world, &cubes[1..]), 0, "{how}");
            }
        }
        steps(&mut world, 30);
        for (&h, &y) in cubes[1..].iter().zip(&heights[1..]) {
            let now = world.body(h).unwrap().position().y;
            assert!(now < y - 0.5, "{how}: a cube stayed at {now} (was {y})");
        }
    }
}

#[test]
fn wake_on_request_wakes_the_island_and_names_a_removed_handle() {
    let (mut world, cubes) = stack(3);
    until_asleep(&mut world, &cubes, 600);
    world.wake(cubes[0]).unwrap();
    assert_eq!(asleep(&world, &cubes), 0);
    // Awake and at rest again, the island sleeps again after the half second.
    until_asleep(&mut world, &cubes, 100);
    let gone = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .position(Vector3::new(9.0, 9.0, 9.0)),
        )
        .unwrap();
    world.remove(gone).unwrap();
    assert_eq!(world.wake(gone), Err(WorldError::UnknownBody));
}

#[test]
fn a_moving_kinematic_body_keeps_what_it_touches_awake() {
    let mut world = World::new(WorldConfig::default());
    let platform = world
        .insert(
            BodyDesc::kinematic()
                .cuboid(Vector3::new(3.0, 0.5, 3.0))
                .linvel(Vector3::new(0.2, 0.0, 0.0)),
        )
        .unwrap();
    let rider = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.0, 1.0, 0.0)),
        )
        .unwrap();
    steps(&mut world, 120);
    assert!(!world.body(rider).unwrap().is_sleeping());
    assert!(world.body(rider).unwrap().linvel().x > 0.15, "not carried");
    // Stopped, the platform no longer keeps it awake.
    world
        .body_mut(platform)
        .unwrap()
        .set_linvel(Vector3::zeros())
        .unwrap();
    steps(&mut world, 120);
    assert!(world.body(rider).unwrap().is_sleeping());
}

#[test]
fn a_ball_spinning_or_rolling_on_the_floor_stops_and_sleeps() {
    // On one contact point nothing but rolling resistance stops a spin about the vertical;
    // without it the ball spins forever and keeps whatever it touches awake.
    for (linvel, angvel) in [
        (Vector3::zeros(), Vector3::new(0.0, 6.0, 0.0)),
        (Vector3::new(2.0, 0.0, 0.0), Vector3::new(0.0, 0.0, -4.0)),
    ] {
        let mut world = World::new(WorldConfig::default());
        ground(&mut world, 100.0);
        let ball = world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.5)
                    .position(Vector3::new(0.0, 0.5, 0.0))
                    .linvel(linvel)
                    .angvel(angvel),
            )
            .unwrap();
        until_asleep(&mut world, &[ball], 3_000);
        // With no rolling resistance it never stops spinning.
        let mut config = *world.config();
        config.solver.rolling_resistance = 0.0;
        world.set_config(config).unwrap();
        world
            .body_mut(ball)
            .unwrap()
            .set_angvel(Vector3::new(0.0, 6.0, 0.0))
            .unwrap();
        steps(&mut world, 600);
        let spin = world.body(ball).unwrap().angvel().y;
        assert!(spin > 5.9, "spin {spin}");
        assert!(!world.body(ball).unwrap().is_sleeping());
    }
}

#[test]
fn with_sleeping_off_nothing_sleeps() {
    let config = WorldConfig {
        sleep: SleepConfig::disabled(),
        ..WorldConfig::default()
    };
    let mut world = World::new(config);
    ground(&mut world, 20.0);
    let cubes = pyramid_cubes(&mut world, 4, 0.0);
    steps(&mut world, 300);
    assert_eq!(asleep(&world, &cubes), 0);
    assert!(world.stage_counts().pairs > 0);
}

#[test]
fn a_restored_world_sleeps_and_wakes_exactly_as_the_original() {
    let (mut original, cubes) = pyramid(5);
    // Saved while some cubes are still counting their rest time.
    steps(&mut original, 40);
    let mut from_json = World::from_json(&original.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&original.to_bytes().unwrap()).unwrap();
    common::step_in_lockstep(&mut original, &mut from_json, &mut from_bytes, 120);
    assert_eq!(asleep(&original, &cubes), cubes.len());
    // Saved asleep, then woken by a ball in all three.
    let mut from_json = World::from_json(&original.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&original.to_bytes().unwrap()).unwrap();
    for world in [&mut original, &mut from_json, &mut from_bytes] {
        world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.4)
                    .position(Vector3::new(-8.0, 1.5, 0.0))
                    .linvel(Vector3::new(15.0, 0.0, 0.0)),
            )
            .unwrap();
    }
    common::step_in_lockstep(&mut original, &mut from_json, &mut from_bytes, 150);
}

#[test]
fn bad_sleep_settings_and_states_are_refused_by_name() {
    for (edit, field) in [
        (
            (|c: &mut SleepConfig| c.speed_threshold = Real::NAN) as fn(&mut SleepConfig),
            "config.sleep.speed_threshold",
        ),
        (|c| c.speed_threshold = -1.0, "config.sleep.speed_threshold"),
        (
            |c| c.time_to_sleep = Real::INFINITY,
            "config.sleep.time_to_sleep",
        ),
        (|c| c.time_to_sleep = -0.5, "config.sleep.time_to_sleep"),
    ] {
        let mut config = WorldConfig::default();
        edit(&mut config.sleep);
        let message = World::try_new(config).unwrap_err().to_string();
        assert!(message.contains(field), "`{message}` does not name {field}");
    }
    for value in [-0.1, 1.5, Real::NAN] {
        let mut config = WorldConfig::default();
        config.solver.rolling_resistance = value;
        let field = "config.solver.rolling_resistance";
        let message = World::try_new(config).unwrap_err().to_string();
        assert!(message.contains(field), "`{message}` does not name {field}");
    }
    let (mut world, cubes) = stack(2);
    until_asleep(&mut world, &cubes, 600);
    let snapshot = world.snapshot();
    // The ground (body 0) asleep; a negative rest time; one state short.
    type Edit = fn(&mut Snapshot);
    let cases: [(Edit, &str); 4] = [
        (|s| s.sleep[0].asleep = true, "sleep[0].asleep"),
        (|s| s.sleep[1].rest_time = -1.0, "sleep[1].rest_time"),
        (|s| s.sleep[2].rest_time = Real::NAN, "sleep[2].rest_time"),
        (
            |s| {
                s.sleep.pop();
            },
            "sleep",
        ),
    ];
    for (edit, field) in cases {
        let mut bad = snapshot.clone();
        edit(&mut bad);
        let message = match World::from_bytes(&bad.to_bytes().unwrap()) {
            Ok(_) => panic!("{field}: accepted"),
            Err(e) => e.to_string(),
        };
        assert!(message.contains(field), "`{message}` does not name {field}");
    }
    // Asleep in a world whose sleeping is off.
    let mut bad = snapshot;
    bad.config.sleep.enabled = false;
    assert!(World::from_snapshot(bad).is_err());
}
