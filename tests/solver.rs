//! The contact solver against the scenes the best engines hold themselves to (Box3D's hello
//! world and pyramid, Box2D's ramp, Jolt's sliding box, rapier's restitution and gyroscopic
//! tests, solver2d's mass ratio and overlap recovery), with the default settings unless a test
//! says otherwise (dt 1/60, 8 substeps, friction 0.6, restitution 0), but sleeping off: these
//! measure the solver, which a pile asleep would hide (`tests/sleeping.rs` tests sleeping).

use minirigid::prelude::*;
use testbed::scenes::{ground, pyramid, stack};

const G: Real = 9.81;

fn world() -> World {
    World::new(WorldConfig {
        sleep: SleepConfig::disabled(),
        ..WorldConfig::default()
    })
}

fn steps(world: &mut World, seconds: Real) {
    let n = (seconds / world.config().dt).round() as usize;
    for _ in 0..n {
        world.step();
    }
}

/// How far a body's rotation is from the nearest one that rests a box on a face: the angle
/// between world up and the nearest of the box's six face normals.
fn tilt_from_a_face(body: &RigidBody) -> Real {
    let up = body.pose().rotation.inverse_transform_vector(&Vector3::y());
    up.abs().max().clamp(-1.0, 1.0).acos()
}

#[test]
fn a_dropped_cube_comes_to_rest_on_the_ground() {
    // Box3D's HelloWorld: half size 1, dropped from y = 4.
    let mut world = world();
    ground(&mut world, 20.0);
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(1.0))
                .position(Vector3::new(0.0, 4.0, 0.0)),
        )
        .unwrap();
    steps(&mut world, 2.0);
    let body = world.body(cube).unwrap();
    let y = body.position().y;
    assert!((y - 1.0).abs() < 0.01, "rests at y = {y}");
    assert!(body.pose().rotation.angle() < 0.01, "tilted");
    assert!(
        body.linvel().norm() < 0.01,
        "still moving: {}",
        body.linvel()
    );
}

#[test]
fn a_cube_dropped_on_an_edge_tips_over_onto_a_face() {
    let mut world = world();
    ground(&mut world, 20.0);
    // Edge down, a little past balance so it falls one way.
    let turn =
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.25 * std::f32::consts::PI + 0.1);
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .rotation(turn)
                .position(Vector3::new(0.0, 1.5, 0.0)),
        )
        .unwrap();
    steps(&mut world, 3.0);
    let body = world.body(cube).unwrap();
    assert!(
        (body.position().y - 0.5).abs() < 0.01,
        "y = {}",
        body.position().y
    );
    assert!(
        tilt_from_a_face(body) < 0.01,
        "tilt {}",
        tilt_from_a_face(body)
    );
    assert!(body.linvel().norm() < 0.01 && body.angvel().norm() < 0.01);
}

fn largest_displacement(world: &World, cubes: &[BodyHandle], start: &[Point3]) -> Real {
    cubes
        .iter()
        .zip(start)
        .map(|(h, p)| (world.body(*h).unwrap().position() - p).norm())
        .fold(0.0, Real::max)
}

/// Sleeping off: these measure the solver, which a sleeping pile would hide.
fn awake(world: &mut World) {
    let config = WorldConfig {
        sleep: SleepConfig::disabled(),
        ..*world.config()
    };
    world.set_config(config).unwrap();
}

/// Box3D's and rapier's settings: 4 substeps (so 30 Hz contacts), sleeping off.
fn at_4_substeps(world: &mut World) {
    awake(world);
    let config = *world.config();
    let solver = SolverConfig {
        substeps: 4,
        ..config.solver
    };
    world.set_config(WorldConfig { solver, ..config }).unwrap();
}

fn positions(world: &World, bodies: &[BodyHandle]) -> Vec<Point3> {
    bodies
        .iter()
        .map(|h| world.body(*h).unwrap().position())
        .collect()
}

#[test]
fn a_stack_of_20_cubes_stands_for_10_seconds() {
    let (mut world, cubes) = stack(20);
    awake(&mut world);
    let start = positions(&world, &cubes);
    steps(&mut world, 10.0);
    // It stands: no cube strays sideways or tilts, and all are at rest.
    for (h, p) in cubes.iter().zip(&start) {
        let body = world.body(*h).unwrap();
        let sideways = (body.position() - p).xz().norm();
        assert!(sideways < 1e-3, "a cube moved {sideways} m sideways");
        assert!(tilt_from_a_face(body) < 1e-3);
        assert!(body.linvel().norm() < 1e-3 && body.angvel().norm() < 1e-3);
    }
    // It sags as soft contacts do, no further: each contact sinks until its spring carries the
    // cubes above (60 Hz at the default 8 substeps: 2.7 cm at the top of twenty, measured;
    // Box3D's and rapier's 30 Hz, four times that).
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 0.03, "a cube moved {moved} m");
}

#[test]
fn a_column_of_40_cubes_stands_at_4_substeps() {
    // 30 Hz contacts sag in proportion to the cubes above: the foot of this column rests
    // centimetres deep, which is load, not an overlap to push out. Pushed out apart from the
    // velocities as deep overlaps (beyond 1 cm, whatever the load), a column of 30 buckled and
    // fell within 600 steps.
    let (mut world, cubes) = stack(40);
    at_4_substeps(&mut world);
    let start = positions(&world, &cubes);
    for _ in 0..600 {
        world.step();
    }
    for (h, p) in cubes.iter().zip(&start) {
        let body = world.body(*h).unwrap();
        let sideways = (body.position() - p).xz().norm();
        assert!(sideways < 1e-3, "a cube moved {sideways} m sideways");
        assert!(body.linvel().norm() < 1e-3 && body.angvel().norm() < 1e-3);
    }
    // The top sinks by the sum of the forty contacts' sag (0.43 m measured; rapier3d's column,
    // which stands there only with its contacts recycled, 0.44 m).
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 0.5, "a cube moved {moved} m");
}

#[test]
fn a_pyramid_of_base_20_stands_for_10_seconds() {
    let (mut world, cubes) = pyramid(20);
    awake(&mut world);
    assert_eq!(cubes.len(), 210);
    let start = positions(&world, &cubes);
    steps(&mut world, 10.0);
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 0.05, "a cube moved {moved} m");
}

#[test]
fn a_pyramid_of_base_40_comes_to_rest_at_4_substeps() {
    // Box3D's and rapier's settings (4 substeps, so 30 Hz contacts). With contacts stiffer than
    // an eighth of the substep rate, one iteration per substep never settled this pile: its
    // cubes kept half a metre per second that the springs pushed back every step, and it slid
    // apart after some 700 steps.
    let (mut world, cubes) = pyramid(40);
    at_4_substeps(&mut world);
    let start = positions(&world, &cubes);
    for _ in 0..400 {
        world.step();
    }
    let fastest = cubes
        .iter()
        .map(|h| world.body(*h).unwrap().linvel().norm())
        .fold(0.0, Real::max);
    assert!(fastest < 0.02, "a cube still moves at {fastest} m/s");
    // Soft contacts settle (rapier3d's most-moved cube: 10.9 cm); then nothing moves.
    let settled = largest_displacement(&world, &cubes, &start);
    assert!(settled < 0.12, "a cube moved {settled} m");
    for _ in 0..200 {
        world.step();
    }
    let later = largest_displacement(&world, &cubes, &start);
    assert!(
        (later - settled).abs() < 2e-3,
        "it kept moving: {settled} m, then {later} m"
    );
}

/// Box3D's large pyramid (base 100, 5,050 cubes) at Box3D's and rapier's settings: after 200
/// steps (the comparison) its most-moved cube has sunk as rapier3d's does (0.674 m
/// measured with two soft iterations a substep, 0.673 m with one; rapier3d 0.668 m, 0.792 m
/// with fresh contacts), and it still stands after 500 (0.770 m measured; 0.715 m at 600).
/// The known limit: it falls between steps 800 and 1,000 (1.26 m at 800, 9.2 m at 1,000; with
/// one soft iteration it fell between 600 and 800); at the default 8 substeps it stands (next
/// test). About 5 s in release.
#[test]
#[ignore = "a large scene; run by hand in release"]
fn the_large_pyramid_stands_500_steps_at_4_substeps() {
    let (mut world, cubes) = pyramid(100);
    at_4_substeps(&mut world);
    assert_eq!(cubes.len(), 5050);
    let start = positions(&world, &cubes);
    for _ in 0..200 {
        world.step();
    }
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 0.7, "after 200 steps a cube moved {moved} m");
    for _ in 200..500 {
        world.step();
    }
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 1.0, "after 500 steps a cube moved {moved} m");
}

/// The large pyramid at the default 8 substeps stands 1,000 steps (0.182 m measured; 0.179 m
/// with one soft iteration a substep). About 14 s in release.
#[test]
#[ignore = "a large scene; run by hand in release"]
fn the_large_pyramid_stands_1000_steps() {
    let (mut world, cubes) = pyramid(100);
    awake(&mut world);
    let start = positions(&world, &cubes);
    for _ in 0..1000 {
        world.step();
    }
    let moved = largest_displacement(&world, &cubes, &start);
    assert!(moved < 0.25, "after 1,000 steps a cube moved {moved} m");
}

/// A ramp tilted `angle` about z (rising toward -x) and a box of half size 0.5 resting on it,
/// both of friction `mu` (so the pair's is `mu` too).
fn ramp(angle: Real, mu: Real) -> (World, BodyHandle) {
    let mut world = world();
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle);
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(20.0, 0.5, 5.0))
                .rotation(turn)
                .friction(mu),
        )
        .unwrap();
    let normal = turn * Vector3::y();
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .rotation(turn)
                .position(normal * 1.0)
                .friction(mu),
        )
        .unwrap();
    (world, cube)
}

#[test]
fn friction_holds_a_box_on_a_ramp_or_lets_it_slide_at_the_coulomb_rate() {
    let angle: Real = 0.25;
    let tan = angle.tan(); // 0.2553
    let downhill = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle) * -Vector3::x();
    for mu in [tan + 0.01, 0.3, 0.6] {
        let (mut world, cube) = ramp(angle, mu);
        steps(&mut world, 0.5); // settle onto the ramp
        let start = world.body(cube).unwrap().position();
        steps(&mut world, 1.0);
        let moved = (world.body(cube).unwrap().position() - start).norm();
        assert!(moved < 0.01, "mu {mu}: slid {moved} m");
    }
    for mu in [0.0, 0.1, tan - 0.05] {
        let (mut world, cube) = ramp(angle, mu);
        steps(&mut world, 0.25);
        let v0 = world.body(cube).unwrap().linvel().dot(&downhill);
        steps(&mut world, 1.0);
        let v1 = world.body(cube).unwrap().linvel().dot(&downhill);
        let expected = G * (angle.sin() - mu * angle.cos());
        let measured = v1 - v0;
        assert!(
            (measured - expected).abs() <= 0.05 * expected,
            "mu {mu}: acceleration {measured}, Coulomb {expected}"
        );
    }
}

#[test]
fn a_sliding_box_stops_where_coulomb_says_in_12_directions() {
    // Jolt's TestFriction, run until the box stops. Each substep slows the box by `a h` (the
    // friction impulse is applied before positions move: warm started, then solved) and then
    // moves it by its new velocity, so it travels `sum_k h (v0 - k a h)` for k = 1, 2, ...:
    // Coulomb's `v0^2 / 2a` less `v0 h / 2` (2 cm here), the discretisation of the substep.
    let mu: Real = 0.6;
    let v0: Real = 20.0;
    for k in 0..12 {
        let mut world = world();
        ground(&mut world, 100.0);
        let angle = k as Real * std::f32::consts::TAU / 12.0;
        let direction = Vector3::new(angle.cos(), 0.0, angle.sin());
        let cube = world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(0.5))
                    .position(Vector3::new(0.0, 0.5, 0.0))
                    .linvel(direction * v0)
                    .friction(mu),
            )
            .unwrap();
        steps(&mut world, 5.0);
        let body = world.body(cube).unwrap();
        assert!(
            body.linvel().norm() < 1e-3,
            "still sliding at {}",
            body.linvel()
        );
        let h = world.config().dt / world.config().solver.substeps as Real;
        let a = mu * G;
        let substeps_to_stop = (v0 / (a * h)).floor();
        let mut discrete = 0.0;
        let mut v = v0;
        for _ in 0..substeps_to_stop as usize {
            v -= a * h;
            discrete += v * h;
        }
        let travelled = body.position() - Point3::new(0.0, 0.5, 0.0);
        let along = travelled.dot(&direction);
        let across = (travelled - direction * along).norm();
        assert!(
            (along - discrete).abs() < 0.01,
            "direction {k}: travelled {along} m, Coulomb {discrete} m (continuous {})",
            v0 * v0 / (2.0 * a)
        );
        assert!(across < 0.01, "direction {k}: drifted {across} m sideways");
    }
}

fn drop_ball(restitution: Real) -> (Real, Real) {
    let mut world = world();
    ground(&mut world, 20.0);
    let radius = 0.5;
    let drop = 2.0;
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(radius)
                .position(Vector3::new(0.0, radius + drop, 0.0))
                .restitution(restitution),
        )
        .unwrap();
    // Down, then up: the highest point after the first bounce.
    let mut bounced = false;
    let mut highest: Real = 0.0;
    for _ in 0..400 {
        world.step();
        let body = world.body(ball).unwrap();
        if body.linvel().y > 0.0 {
            bounced = true;
        }
        if bounced {
            highest = highest.max(body.position().y - radius);
            if body.linvel().y < 0.0 {
                break;
            }
        }
    }
    (highest, drop)
}

#[test]
fn restitution_gives_back_e_squared_of_the_height() {
    for e in [0.3, 0.5, 0.8, 0.95] {
        let (rebound, drop) = drop_ball(e);
        let expected = e * e * drop;
        assert!(
            (rebound - expected).abs() < 0.05,
            "e = {e}: rebound {rebound} m, expected {expected} m"
        );
    }
    let (rebound, drop) = drop_ball(0.0);
    assert!(rebound < 0.02 * drop, "e = 0: rebound {rebound} m");
}

#[test]
fn a_perfectly_elastic_box_never_rises_above_its_drop_height() {
    let mut world = world();
    ground(&mut world, 20.0);
    let top = 3.0;
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.0, top, 0.0))
                .restitution(1.0),
        )
        .unwrap();
    for step in 0..1_200 {
        world.step();
        let y = world.body(cube).unwrap().position().y;
        assert!(y <= top + 1e-4, "step {step}: rose to {y}");
    }
}

#[test]
fn a_torque_free_box_spinning_about_its_middle_axis_keeps_its_angular_momentum() {
    let config = WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    };
    let mut world = World::new(config);
    // Half extents 0.1, 0.5, 1: the y axis is the middle one (unstable: the box flips).
    let spin = Vector3::new(0.01, 10.0, 0.01);
    let body = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.1, 0.5, 1.0))
                .angvel(spin),
        )
        .unwrap();
    let start = world.body(body).unwrap().angular_momentum().norm();
    let mut flipped = false;
    for _ in 0..600 {
        world.step();
        let b = world.body(body).unwrap();
        let l = b.angular_momentum().norm();
        assert!(
            (l - start).abs() <= 0.02 * start,
            "|L| {l}, started {start}"
        );
        let axis = b.pose().rotation * Vector3::y();
        flipped |= axis.y < 0.0;
    }
    assert!(
        flipped,
        "the middle axis is unstable: the box should have flipped"
    );
}

#[test]
fn a_heavy_box_on_a_light_one_does_not_sink() {
    let mut world = world();
    ground(&mut world, 20.0);
    let light = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.0, 0.5, 0.0))
                .density(1.0),
        )
        .unwrap();
    let heavy = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.0, 1.5, 0.0))
                .density(100.0),
        )
        .unwrap();
    steps(&mut world, 5.0);
    let light_y = world.body(light).unwrap().position().y;
    let heavy_y = world.body(heavy).unwrap().position().y;
    assert!((light_y - 0.5).abs() < 0.01, "light box at {light_y}");
    assert!((heavy_y - 1.5).abs() < 0.01, "heavy box at {heavy_y}");
}

/// The deepest overlap among the world's contacts (0 when none overlaps).
fn deepest_overlap(world: &World) -> Real {
    world
        .contacts()
        .iter()
        .map(|c| c.contact.depth)
        .fold(0.0, Real::max)
}

#[test]
fn an_overlapped_pyramid_separates_and_comes_to_rest() {
    // Box3D's pyramid layout of base 5 squeezed to 75%: every cube overlaps its neighbours,
    // and the bottom row the ground, by a quarter of its size.
    let mut world = world();
    ground(&mut world, 20.0);
    let (h, base, squeeze) = (0.5, 5, 0.75);
    let mut cubes = Vec::new();
    for i in 0..base {
        for j in i..base {
            let x = ((i + 1) as Real * h + 2.0 * (j - i) as Real * h - h * base as Real) * squeeze;
            let y = (2 * i + 1) as Real * h * squeeze;
            let desc = BodyDesc::dynamic()
                .cuboid(Vector3::repeat(h))
                .position(Vector3::new(x, y, 0.0));
            cubes.push(world.insert(desc).unwrap());
        }
    }
    // No body is thrown: deep overlaps are pushed out through push-out velocities that move
    // positions and are dropped, held to the cap per body however many overlaps push it (the
    // top cube rests on four rows of them). A body's velocity stays under the cap, and its
    // displacement per step under the cap plus what gravity and the contacts give it.
    let cap = world.config().solver.max_push_out_speed;
    let dt = world.config().dt;
    let (mut fastest, mut fastest_moving): (Real, Real) = (0.0, 0.0);
    for _ in 0..300 {
        let before: Vec<Point3> = cubes
            .iter()
            .map(|h| world.body(*h).unwrap().position())
            .collect();
        world.step();
        for (h, p) in cubes.iter().zip(&before) {
            let body = world.body(*h).unwrap();
            fastest = fastest.max(body.linvel().norm());
            fastest_moving = fastest_moving.max((body.position() - p).norm() / dt);
        }
    }
    assert!(fastest <= cap, "a cube reached {fastest} m/s (cap {cap})");
    assert!(
        fastest_moving <= 1.25 * cap,
        "a cube moved at {fastest_moving} m/s (cap {cap})"
    );
    for h in &cubes {
        let body = world.body(*h).unwrap();
        assert!(
            body.linvel().norm() < 0.01,
            "still moving: {}",
            body.linvel()
        );
        assert!(body.position().y > 0.0 && body.position().xz().coords.norm() < 10.0);
    }
    let deepest = deepest_overlap(&world);
    assert!(deepest < 0.01, "still overlapping by {deepest} m");
}

#[test]
fn a_block_created_overlapped_gains_no_energy_once_pushed_apart() {
    // 6 x 6 x 6 unit cubes created 10 cm into each other (and into the ground). Pushing them
    // apart must raise the block (its potential energy grows), but once every overlap is under
    // 1 cm the push-out is done: from then on the block's energy (kinetic and potential) may
    // only fall, up to rounding and the contact springs' give (a rise of 1.4 J of 6,365 J
    // measured). A push-out that leaked into real velocity would throw cubes and show here.
    let mut world = world();
    ground(&mut world, 20.0);
    let (n, spacing) = (6, 0.9);
    let mut cubes = Vec::new();
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let at = Vector3::new(i as Real, j as Real, k as Real) * spacing;
                let desc = BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(0.5))
                    .position(at + Vector3::new(0.0, 0.5, 0.0));
                cubes.push(world.insert(desc).unwrap());
            }
        }
    }
    let energy = |world: &World| -> Real {
        cubes
            .iter()
            .map(|&c| {
                let body = world.body(c).unwrap();
                body.kinetic_energy() + body.mass() * G * body.position().y
            })
            .sum()
    };
    let cap = world.config().solver.max_push_out_speed;
    let (start, mut last, mut pushed_apart) = (energy(&world), Real::MAX, false);
    let (mut fastest, mut largest_rise): (Real, Real) = (0.0, 0.0);
    for _ in 0..400 {
        world.step();
        let now = energy(&world);
        pushed_apart |= deepest_overlap(&world) < 0.01;
        if pushed_apart {
            largest_rise = largest_rise.max(now - last);
        }
        last = now;
        for &c in &cubes {
            fastest = fastest.max(world.body(c).unwrap().linvel().norm());
        }
    }
    assert!(
        pushed_apart,
        "still overlapping by {} m",
        deepest_overlap(&world)
    );
    assert!(
        last > start,
        "the block was not raised: {start} J -> {last} J"
    );
    assert!(
        largest_rise < 5e-4 * last,
        "the energy rose by {largest_rise} J in a step (of {last} J)"
    );
    assert!(fastest <= cap, "a cube reached {fastest} m/s (cap {cap})");
    for &c in &cubes {
        let speed = world.body(c).unwrap().linvel().norm();
        assert!(speed < 0.01, "still moving at {speed} m/s");
    }
}
