//! Body control (`BodyControl`): forces and torques for the next step, impulses at once,
//! damping, gravity scale, locked axes, kinematic targets and user data. Each against its
//! closed form; a box rides a platform driven by targets; the state saves, hashes and restores
//! bit for bit; bad input is refused by name with the body unchanged.

mod common;

use minirigid::prelude::*;
use minirigid::world::{SNAPSHOT_VERSION, UserData};
use testbed::scenes::ground;

fn floating() -> World {
    World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    })
}

fn close(a: Real, b: Real, relative: Real) -> bool {
    (a - b).abs() <= relative * b.abs().max(Real::MIN_POSITIVE)
}

#[test]
fn a_force_changes_the_velocity_by_f_dt_over_m_in_one_step_and_is_then_spent() {
    let mut world = floating();
    let dt = world.config().dt;
    let body = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 0.2, 0.3))
                .density(3.0),
        )
        .unwrap();
    let mass = world.body(body).unwrap().mass();
    let force = Vector3::new(12.0, -3.0, 7.5);
    world.body_mut(body).unwrap().add_force(force).unwrap();
    assert_eq!(world.body(body).unwrap().control().force, force);
    world.step();
    let v = world.body(body).unwrap().linvel();
    for axis in 0..3 {
        assert!(
            close(v[axis], force[axis] * dt / mass, 1e-6),
            "axis {axis}: {} against {}",
            v[axis],
            force[axis] * dt / mass
        );
    }
    // Spent: the next step leaves the velocity as it is.
    assert_eq!(world.body(body).unwrap().control().force, Vector3::zeros());
    world.step();
    assert_eq!(world.body(body).unwrap().linvel(), v);
}

#[test]
fn forces_added_in_one_frame_add_up() {
    let mut world = floating();
    let body = world.insert(BodyDesc::dynamic()).unwrap();
    let handle = world.body_mut(body).unwrap();
    handle.add_force(Vector3::new(1.0, 0.0, 0.0)).unwrap();
    handle.add_force(Vector3::new(2.0, 1.0, 0.0)).unwrap();
    handle.add_torque(Vector3::new(0.0, 0.0, 4.0)).unwrap();
    let control = handle.control();
    assert_eq!(control.force, Vector3::new(3.0, 1.0, 0.0));
    assert_eq!(control.torque, Vector3::new(0.0, 0.0, 4.0));
}

#[test]
fn a_torque_changes_the_angular_velocity_by_i_inverse_tau_dt() {
    // A cube (the same inertia about every axis) about any axis, and a plank about each of its
    // principal axes (where `w x I w` is zero, so the step's gyroscopic term adds nothing).
    let mut world = floating();
    let dt = world.config().dt;
    let cube = world.insert(BodyDesc::dynamic().density(2.0)).unwrap();
    let tau = Vector3::new(0.3, -1.2, 0.7);
    world.body_mut(cube).unwrap().add_torque(tau).unwrap();
    let rotation = UnitQuaternion::from_euler_angles(0.4, -0.2, 1.1);
    let mut planks = Vec::new();
    for axis in 0..3 {
        let plank = BodyDesc::dynamic()
            .cuboid(Vector3::new(1.0, 0.1, 0.4))
            .rotation(rotation)
            .position(Vector3::new(5.0 * (axis as Real + 1.0), 0.0, 0.0));
        let plank = world.insert(plank).unwrap();
        let torque = rotation * Vector3::ith(axis, 0.8);
        world.body_mut(plank).unwrap().add_torque(torque).unwrap();
        planks.push((plank, torque));
    }
    let expected = |handle: BodyHandle, torque: Vector3, world: &World| {
        let body = world.body(handle).unwrap();
        body.world_inertia().try_inverse().unwrap() * torque * dt
    };
    let cube_expected = expected(cube, tau, &world);
    let plank_expected: Vec<_> = planks
        .iter()
        .map(|&(plank, torque)| expected(plank, torque, &world))
        .collect();
    world.step();
    let w = world.body(cube).unwrap().angvel();
    for axis in 0..3 {
        assert!(
            close(w[axis], cube_expected[axis], 1e-6),
            "{w} against {cube_expected}"
        );
    }
    for (&(plank, _), expected) in planks.iter().zip(&plank_expected) {
        let w = world.body(plank).unwrap().angvel();
        assert!(
            (w - expected).norm() <= 1e-6 * expected.norm(),
            "{w} against {expected}"
        );
    }
}

#[test]
fn a_force_at_a_point_adds_the_torque_of_its_arm() {
    let mut world = floating();
    let body = world
        .insert(BodyDesc::dynamic().position(Vector3::new(1.0, 2.0, 3.0)))
        .unwrap();
    let point = Point3::new(1.5, 2.0, 3.0);
    let force = Vector3::new(0.0, 10.0, 0.0);
    world
        .body_mut(body)
        .unwrap()
        .add_force_at_point(force, point)
        .unwrap();
    let control = *world.body(body).unwrap().control();
    assert_eq!(control.force, force);
    assert_eq!(control.torque, Vector3::new(0.0, 0.0, 5.0));
}

#[test]
fn impulses_change_the_velocities_at_once() {
    let mut world = floating();
    let body = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 0.5, 0.5))
                .mass(4.0),
        )
        .unwrap();
    let handle = world.body_mut(body).unwrap();
    handle.apply_impulse(Vector3::new(8.0, 0.0, 0.0)).unwrap();
    assert_eq!(handle.linvel(), Vector3::new(2.0, 0.0, 0.0));
    // A cube of 4 kg and side 1 m: I = m s^2 / 6 = 2/3 kg m^2.
    handle
        .apply_impulse_at_point(Vector3::new(0.0, 0.0, 1.0), Point3::new(0.0, 0.5, 0.0))
        .unwrap();
    assert!((handle.linvel() - Vector3::new(2.0, 0.0, 0.25)).norm() < 1e-6);
    assert!((handle.angvel() - Vector3::new(0.75, 0.0, 0.0)).norm() < 1e-6);
    handle
        .apply_angular_impulse(Vector3::new(0.0, 2.0 / 3.0, 0.0))
        .unwrap();
    assert!((handle.angvel() - Vector3::new(0.75, 1.0, 0.0)).norm() < 1e-6);
}

#[test]
fn damping_decays_the_velocities_by_one_over_one_plus_c_h_per_substep() {
    let mut world = floating();
    let substeps = world.config().solver.substeps;
    let h = world.config().dt / substeps as Real;
    let (c_lin, c_ang) = (2.0, 5.0);
    let body = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .linvel(Vector3::new(3.0, 0.0, -4.0))
                .angvel(Vector3::new(0.0, 2.0, 0.0))
                .linear_damping(c_lin)
                .angular_damping(c_ang),
        )
        .unwrap();
    let steps = 60;
    for _ in 0..steps {
        world.step();
    }
    let n = (steps * substeps) as i32;
    let expected_speed = 5.0 * (1.0 / (1.0 + h * c_lin)).powi(n);
    let expected_spin = 2.0 * (1.0 / (1.0 + h * c_ang)).powi(n);
    let body = world.body(body).unwrap();
    assert!(close(body.linvel().norm(), expected_speed, 1e-4));
    assert!(close(body.angvel().norm(), expected_spin, 1e-4));
    // Close to the exponential it approximates: within 1% after one second.
    assert!(close(body.linvel().norm(), 5.0 * (-c_lin).exp(), 0.01));
}

#[test]
fn a_gravity_scale_of_zero_floats_and_of_minus_one_falls_up() {
    let mut world = World::new(WorldConfig::default());
    let dt = world.config().dt;
    let float = world
        .insert(
            BodyDesc::dynamic()
                .gravity_scale(0.0)
                .position(Vector3::new(0.0, 5.0, 0.0)),
        )
        .unwrap();
    let up = world
        .insert(
            BodyDesc::dynamic()
                .gravity_scale(-1.0)
                .position(Vector3::new(5.0, 5.0, 0.0)),
        )
        .unwrap();
    let half = world
        .insert(
            BodyDesc::dynamic()
                .gravity_scale(0.5)
                .position(Vector3::new(10.0, 5.0, 0.0)),
        )
        .unwrap();
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(
        world.body(float).unwrap().position(),
        Point3::new(0.0, 5.0, 0.0)
    );
    let g = world.config().gravity.y;
    assert!(close(
        world.body(up).unwrap().linvel().y,
        -g * 60.0 * dt,
        1e-5
    ));
    assert!(close(
        world.body(half).unwrap().linvel().y,
        0.5 * g * 60.0 * dt,
        1e-5
    ));
}

#[test]
fn locked_rotations_keep_a_box_upright_as_it_slides_down_a_slope() {
    // A tall box on a 30 degree slope with friction: free, it tips over; with its rotations
    // locked, it slides down without turning.
    let run = |locks: Locks| {
        let mut world = World::new(WorldConfig::default());
        let slope = UnitQuaternion::from_euler_angles(0.0, 0.0, (30.0 as Real).to_radians());
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(10.0, 0.5, 3.0))
                    .rotation(slope),
            )
            .unwrap();
        let normal = slope * Vector3::y();
        let tall = world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::new(0.2, 1.0, 0.2))
                    .rotation(slope)
                    .position(normal * 1.52)
                    .friction(1.0)
                    .locks(locks),
            )
            .unwrap();
        for _ in 0..120 {
            world.step();
        }
        let body = world.body(tall).unwrap();
        (slope.angle_to(&body.pose().rotation), body.position())
    };
    let (free_turn, _) = run(Locks::NONE);
    let (locked_turn, locked_at) = run(Locks::ROTATION);
    assert!(
        free_turn > 0.5,
        "the free box tipped: turned {free_turn} rad"
    );
    // Not a turn, only the rounding of renormalising its rotation.
    assert!(
        locked_turn < 1e-6,
        "the locked box never turned: {locked_turn} rad"
    );
    assert!(locked_at.x < -0.5, "and slid down the slope: {locked_at}");
}

#[test]
fn a_locked_translation_keeps_a_body_in_its_plane() {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 20.0);
    let locks = Locks {
        linear: [false, false, true],
        angular: [true, true, false],
    };
    // Balls dropped on a tilted box: they scatter in x and y, never in z.
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(1.0, 0.2, 1.0))
                .rotation(UnitQuaternion::from_euler_angles(0.5, 0.0, 0.4))
                .position(Vector3::new(0.0, 1.0, 0.0)),
        )
        .unwrap();
    let balls: Vec<_> = (0..5)
        .map(|i| {
            world
                .insert(
                    BodyDesc::dynamic()
                        .ball(0.2)
                        .position(Vector3::new(0.1 * i as Real, 2.0 + 0.5 * i as Real, 0.0))
                        .locks(locks),
                )
                .unwrap()
        })
        .collect();
    for _ in 0..240 {
        world.step();
    }
    for ball in balls {
        let body = world.body(ball).unwrap();
        assert_eq!(body.position().z, 0.0);
        assert_eq!(body.linvel().z, 0.0);
        assert_eq!(body.angvel().x, 0.0);
        assert_eq!(body.angvel().y, 0.0);
    }
}

/// A kinematic platform driven along a path by targets, one per step, with a box on it.
fn platform_world() -> (World, BodyHandle, BodyHandle) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 30.0);
    let platform = world
        .insert(
            BodyDesc::kinematic()
                .cuboid(Vector3::new(2.0, 0.25, 2.0))
                .position(Vector3::new(0.0, 1.0, 0.0)),
        )
        .unwrap();
    let crate_ = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.3, 0.3, 0.3))
                .position(Vector3::new(0.0, 1.55, 0.0)),
        )
        .unwrap();
    (world, platform, crate_)
}

fn path(t: Real) -> Isometry3 {
    // Along x and up, turning about y, starting from rest at accelerations friction holds
    // the crate to (2 m/s^2 along x, under the 5.9 m/s^2 that friction 0.6 gives).
    Isometry3::from_parts(
        Vector3::new(t * t, 1.0 + 0.25 * t * t, 0.0).into(),
        UnitQuaternion::from_euler_angles(0.0, 0.2 * t * t, 0.0),
    )
}

#[test]
fn a_kinematic_target_is_reached_exactly_and_a_box_on_the_platform_rides_it() {
    let (mut world, platform, crate_) = platform_world();
    // Let the crate settle on the platform first.
    for _ in 0..30 {
        world.step();
    }
    let dt = world.config().dt;
    let steps = 180;
    for k in 1..=steps {
        let target = path(k as Real * dt);
        world
            .body_mut(platform)
            .unwrap()
            .set_target_pose(target)
            .unwrap();
        // The target as kept: its rotation renormalised, as every pose given is.
        let kept = world.body(platform).unwrap().control().target.unwrap();
        assert!(kept.rotation.angle_to(&target.rotation) < 1e-6);
        world.step();
        let body = world.body(platform).unwrap();
        assert_eq!(*body.pose(), kept, "step {k}: the target exactly");
        assert_eq!(body.linvel(), Vector3::zeros(), "and at rest after it");
    }
    // The crate rode along: it is still on the platform, where it started on it.
    let end = path(steps as Real * dt);
    let local = end.inverse_transform_point(&world.body(crate_).unwrap().position());
    assert!(
        local.x.abs() < 0.05 && local.z.abs() < 0.05 && (local.y - 0.55).abs() < 0.02,
        "the crate in the platform's frame: {local}"
    );
}

#[test]
fn a_target_once_moves_the_body_there_and_stops_it() {
    let (mut world, platform, _) = platform_world();
    let target = Isometry3::translation(0.5, 1.0, 0.0);
    world
        .body_mut(platform)
        .unwrap()
        .set_target_pose(target)
        .unwrap();
    world.step();
    assert_eq!(*world.body(platform).unwrap().pose(), target);
    world.step();
    assert_eq!(*world.body(platform).unwrap().pose(), target);
}

#[test]
fn control_state_saves_hashes_and_restores_bit_for_bit() {
    let (mut world, platform, crate_) = platform_world();
    let extra = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.3)
                .position(Vector3::new(4.0, 3.0, 0.0))
                .linear_damping(0.5)
                .angular_damping(0.2)
                .gravity_scale(0.7)
                .locks(Locks {
                    linear: [false, false, true],
                    angular: [true, false, false],
                })
                .user_data(0xfeed),
        )
        .unwrap();
    let plain_hash = {
        let (mut plain, ..) = platform_world();
        plain.step();
        plain.state_hash()
    };
    world.step();
    assert_ne!(world.state_hash(), plain_hash);
    // Mid-frame: a force pending and a target set.
    world
        .body_mut(crate_)
        .unwrap()
        .add_force(Vector3::new(3.0, 0.0, 1.0))
        .unwrap();
    world
        .body_mut(platform)
        .unwrap()
        .set_target_pose(path(0.1))
        .unwrap();
    for bytes in [
        world.to_bytes().unwrap(),
        world.to_json().unwrap().into_bytes(),
    ] {
        let mut restored = if bytes.starts_with(b"MRGD") {
            World::from_bytes(&bytes).unwrap()
        } else {
            World::from_json(std::str::from_utf8(&bytes).unwrap()).unwrap()
        };
        assert_eq!(restored.state_hash(), world.state_hash());
        assert_eq!(restored.body(extra).unwrap().user_data(), 0xfeed);
        let mut original = world.clone();
        for k in 0..60 {
            let target = path(0.1 + k as Real * 0.01);
            for w in [&mut original, &mut restored] {
                w.body_mut(platform)
                    .unwrap()
                    .set_target_pose(target)
                    .unwrap();
                w.body_mut(extra)
                    .unwrap()
                    .add_torque(Vector3::new(0.0, 0.1, 0.0))
                    .unwrap();
                w.step();
            }
            assert_eq!(restored.state_hash(), original.state_hash(), "step {k}");
        }
    }
    // Each field of the control state is hashed.
    let base = world.state_hash();
    let mut changed = world.clone();
    changed.body_mut(extra).unwrap().set_user_data(1);
    assert_ne!(changed.state_hash(), base);
    let mut changed = world.clone();
    changed
        .body_mut(extra)
        .unwrap()
        .set_gravity_scale(0.6)
        .unwrap();
    assert_ne!(changed.state_hash(), base);
}

#[test]
fn a_force_wakes_a_sleeping_body() {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 10.0);
    let body = world
        .insert(BodyDesc::dynamic().position(Vector3::new(0.0, 0.5, 0.0)))
        .unwrap();
    for _ in 0..200 {
        world.step();
    }
    assert!(world.body(body).unwrap().is_sleeping());
    world
        .body_mut(body)
        .unwrap()
        .add_force(Vector3::new(0.0, 200.0, 0.0))
        .unwrap();
    world.step();
    let body = world.body(body).unwrap();
    assert!(!body.is_sleeping() && body.linvel().y > 0.0);
}

/// A call on a body that must fail naming `field`.
type Refused = (fn(&mut RigidBody) -> Result<(), WorldError>, &'static str);

#[test]
fn bad_control_input_is_refused_by_name_and_changes_nothing() {
    let mut world = World::new(WorldConfig::default());
    let dynamic = world.insert(BodyDesc::dynamic()).unwrap();
    let fixed = world
        .insert(BodyDesc::fixed().position(Vector3::new(5.0, 0.0, 0.0)))
        .unwrap();
    // A force already gathered, near the limit of a sum.
    world
        .body_mut(dynamic)
        .unwrap()
        .add_force(Vector3::new(9e19, 0.0, 0.0))
        .unwrap();
    let cases: [Refused; 11] = [
        (
            |b| b.add_force(Vector3::new(Real::NAN, 0.0, 0.0)),
            "force.x",
        ),
        (
            |b| b.add_torque(Vector3::new(0.0, Real::INFINITY, 0.0)),
            "torque.y",
        ),
        (
            |b| b.add_force(Vector3::new(9e19, 0.0, 0.0)),
            "sum of the step's forces",
        ),
        (|b| b.set_linear_damping(-1.0), "linear_damping"),
        (|b| b.set_angular_damping(Real::NAN), "angular_damping"),
        (|b| b.set_gravity_scale(Real::INFINITY), "gravity_scale"),
        (
            |b| b.apply_impulse(Vector3::new(0.0, Real::NAN, 0.0)),
            "impulse.y",
        ),
        (
            |b| b.apply_impulse(Vector3::new(1e20, 0.0, 0.0)),
            "linvel (after the impulse)",
        ),
        (
            |b| b.apply_angular_impulse(Vector3::new(0.0, 0.0, 1e20)),
            "angvel (after the impulse)",
        ),
        (
            |b| b.add_force_at_point(Vector3::x(), Point3::new(Real::NAN, 0.0, 0.0)),
            "point.x",
        ),
        (
            |b| b.set_target_pose(Isometry3::identity()),
            "only a kinematic body",
        ),
    ];
    for (call, field) in cases {
        let before = world.state_hash();
        let error = call(world.body_mut(dynamic).unwrap())
            .unwrap_err()
            .to_string();
        assert!(error.contains(field), "`{error}` does not name {field}");
        assert_eq!(world.state_hash(), before, "{field}: the world changed");
    }
    // A static body ignores forces and impulses (its mass is infinite) and takes no target.
    let before = world.state_hash();
    let body = world.body_mut(fixed).unwrap();
    body.add_force(Vector3::new(1.0, 0.0, 0.0)).unwrap();
    body.apply_impulse(Vector3::new(1.0, 0.0, 0.0)).unwrap();
    assert!(body.set_target_pose(Isometry3::identity()).is_err());
    assert_eq!(world.state_hash(), before);
    // Descriptions are checked too, and a refused one inserts nothing.
    for (desc, field) in [
        (
            BodyDesc::dynamic().linear_damping(-0.1),
            "desc.linear_damping",
        ),
        (
            BodyDesc::dynamic().angular_damping(2e6),
            "desc.angular_damping",
        ),
        (
            BodyDesc::dynamic().gravity_scale(Real::NAN),
            "desc.gravity_scale",
        ),
    ] {
        let error = world.insert(desc).unwrap_err().to_string();
        assert!(error.contains(field), "{error}");
        assert_eq!(world.len(), 2);
    }
}

/// A change to a snapshot that must be refused naming `field`.
type Spoiled = (fn(&mut Snapshot), &'static str);

#[test]
fn hostile_control_states_in_a_snapshot_are_refused() {
    let mut world = World::new(WorldConfig::default());
    world.insert(BodyDesc::dynamic()).unwrap();
    world
        .insert(BodyDesc::fixed().position(Vector3::new(3.0, 0.0, 0.0)))
        .unwrap();
    let good = world.snapshot();
    let cases: [Spoiled; 6] = [
        (|s| s.controls[0].linear_damping = -1.0, "linear_damping"),
        (|s| s.controls[0].gravity_scale = Real::NAN, "gravity_scale"),
        (|s| s.controls[0].force.x = Real::INFINITY, "force"),
        (|s| s.controls[1].force.x = 1.0, "bodies[1].force"),
        (
            |s| s.controls[0].target = Some(Isometry3::identity()),
            "bodies[0].target",
        ),
        (
            |s| {
                s.controls.pop();
            },
            "controls",
        ),
    ];
    common::spoiled_snapshots_are_refused_by_name(&good, cases);
}

#[test]
fn version_8_snapshots_load_with_bodies_at_rest_in_control_and_step_on() {
    // The bin of capsules, rocks, dice, tables and dumbbells (`testbed::shapes::shapes_bin(60)`)
    // stepped 60 steps by the build before body control and saved in format 8, mid-fall. That
    // build reached 0x58551032590529f5 60 steps later, as every build did until the narrow
    // phase cached the hull pairs' separating axes (format 11), which moves their contacts
    // within its tolerance (0x2d3ff29186cc60c8), and then tested hull pairs in the first one's
    // frame, turned by matrices (their contacts' last bits: 0xd18b39260cad23e1), and then kept
    // an axis per pair of a compound's polyhedral parts too (format 12: the tables' legs
    // against the rocks and dice, within the same tolerance; 0xe3dfedec862f43eb), and then
    // preferred a face axis to an edge axis up to `collide::FACE_PREFERENCE` deeper; this one
    // reaches 0x1918ee1338ef5f6c.
    let bytes = include_bytes!("data/v8-shapes.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert!(
        world
            .bodies()
            .all(|(_, body)| *body.control() == BodyControl::default())
    );
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0x1918_ee13_38ef_5f6c);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn a_conveyor_carries_what_rests_on_it_along_its_surface() {
    // A belt moving at 2 m/s along its own x; turned a quarter about y, its x is world -z.
    for (turn, along) in [
        (0.0, Vector3::x()),
        (std::f32::consts::FRAC_PI_2, -Vector3::z()),
    ] {
        let mut world = World::new(WorldConfig::default());
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(20.0, 0.5, 20.0))
                    .position(Vector3::new(0.0, -0.5, 0.0))
                    .rotation(UnitQuaternion::from_euler_angles(0.0, turn, 0.0))
                    .tangent_velocity(Vector3::new(2.0, 0.0, 0.0)),
            )
            .unwrap();
        let block = world
            .insert(BodyDesc::dynamic().position(Vector3::new(0.0, 0.5, 0.0)))
            .unwrap();
        for _ in 0..120 {
            world.step();
        }
        let v = world.body(block).unwrap().linvel();
        assert!(
            (v - along * 2.0).norm() < 0.04,
            "carried at the belt's speed: {v}"
        );
    }
}

#[test]
fn a_collider_may_roll_with_its_own_resistance() {
    // The world rolls freely (resistance 0); one ball has its own resistance, and a patch of
    // ground with its own slows every ball on it (a pair takes the larger).
    let mut world = World::new(WorldConfig {
        solver: SolverConfig {
            rolling_resistance: 0.0,
            ..SolverConfig::default()
        },
        ..WorldConfig::default()
    });
    ground(&mut world, 30.0);
    let sticky = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(5.0, 0.5, 1.0))
                .position(Vector3::new(0.0, -0.49, 10.0))
                .rolling_resistance(0.2),
        )
        .unwrap();
    // The patch stands 1 cm proud of the ground, so that a ball on it touches it alone.
    let roll = |world: &mut World, z: Real, desc: BodyDesc| {
        let lift = if z == 10.0 { 0.01 } else { 0.0 };
        world
            .insert(
                desc.ball(0.25)
                    .position(Vector3::new(-4.0, 0.25 + lift, z))
                    .linvel(Vector3::new(3.0, 0.0, 0.0))
                    .angvel(Vector3::new(0.0, 0.0, -12.0)),
            )
            .unwrap()
    };
    let free = roll(&mut world, 0.0, BodyDesc::dynamic());
    let own = roll(&mut world, 3.0, BodyDesc::dynamic().rolling_resistance(0.2));
    let on_patch = roll(&mut world, 10.0, BodyDesc::dynamic());
    for _ in 0..60 {
        world.step();
    }
    let speed = |h| world.body(h).unwrap().linvel().norm();
    assert!(speed(free) > 2.9, "rolls on: {}", speed(free));
    assert!(
        speed(own) < 2.0,
        "slowed by its own resistance: {}",
        speed(own)
    );
    assert!(
        speed(on_patch) < 2.0,
        "slowed by the ground's: {}",
        speed(on_patch)
    );
    let error = world
        .body_mut(sticky)
        .unwrap()
        .set_surface_motion(Some(-1.0), Vector3::zeros())
        .unwrap_err()
        .to_string();
    assert!(error.contains("rolling_resistance"), "{error}");
}

/// A pendulum on a hinge beside a resting box: `words` puts user data on the box's collider,
/// the ground's and the hinge.
fn hinged(words: bool) -> (World, [BodyHandle; 2], JointHandle) {
    let mut world = World::new(WorldConfig::default());
    let ground = ground(&mut world, 10.0);
    let word = |w: u64| if words { w } else { 0 };
    world
        .body_mut(ground)
        .unwrap()
        .set_collider_user_data(word(7));
    let crate_ = world
        .insert(
            BodyDesc::dynamic()
                .position(Vector3::new(3.0, 0.6, 0.0))
                .collider_user_data(word(0xC0FFEE)),
        )
        .unwrap();
    let bob = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.3)
                .position(Vector3::new(1.0, 3.0, 0.0)),
        )
        .unwrap();
    let hinge = world
        .insert_joint(
            JointDesc::revolute(ground, bob, Point3::new(0.0, 3.0, 0.0), Vector3::z())
                .user_data(word(u64::MAX)),
        )
        .unwrap();
    (world, [crate_, bob], hinge)
}

#[test]
fn collider_and_joint_user_data_save_hash_restore_and_change_nothing_else() {
    let (mut world, [crate_, _], hinge) = hinged(true);
    let (mut plain, ..) = hinged(false);
    assert_eq!(world.body(crate_).unwrap().collider_user_data(), 0xC0FFEE);
    assert_eq!(world.joint(hinge).unwrap().user_data(), u64::MAX);
    for _ in 0..30 {
        world.step();
        plain.step();
    }
    // The engine never reads them: the same motion, a different hash.
    for ((_, a), (_, b)) in world.bodies().zip(plain.bodies()) {
        assert_eq!(a.pose(), b.pose());
        assert_eq!(a.linvel(), b.linvel());
    }
    assert_ne!(world.state_hash(), plain.state_hash());
    for (name, change) in [
        (
            "collider",
            (|w: &mut World, c, _| {
                w.body_mut(c).unwrap().set_collider_user_data(1);
            }) as fn(&mut World, BodyHandle, JointHandle),
        ),
        ("joint", |w, _, j| w.set_joint_user_data(j, 1).unwrap()),
    ] {
        let mut changed = world.clone();
        change(&mut changed, crate_, hinge);
        assert_ne!(changed.state_hash(), world.state_hash(), "{name}");
    }
    // Saved only where set, and restored bit for bit.
    let snapshot = world.snapshot();
    assert_eq!(snapshot.user_data.colliders.len(), 2);
    assert_eq!(snapshot.user_data.joints, vec![(hinge, u64::MAX)]);
    assert_eq!(plain.snapshot().user_data, UserData::default());
    let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    for restored in [&from_json, &from_bytes] {
        assert_eq!(restored.state_hash(), world.state_hash());
        assert_eq!(
            restored.body(crate_).unwrap().collider_user_data(),
            0xC0FFEE
        );
        assert_eq!(restored.joint(hinge).unwrap().user_data(), u64::MAX);
    }
    common::step_in_lockstep(&mut world, &mut from_json, &mut from_bytes, 30);
    // A removed joint's handle is refused by name, and nothing changes.
    let before = world.state_hash();
    world.remove_joint(hinge).unwrap();
    let after = world.state_hash();
    assert_ne!(after, before);
    assert_eq!(
        world.set_joint_user_data(hinge, 3),
        Err(WorldError::UnknownJoint)
    );
    assert_eq!(world.state_hash(), after);
}

#[test]
fn hostile_user_data_in_a_snapshot_is_refused() {
    let (world, [crate_, _], hinge) = hinged(true);
    let good = world.snapshot();
    // A handle no body of `world` has.
    let stranger = world.clone().insert(BodyDesc::dynamic()).unwrap();
    type Spoil = Box<dyn Fn(&mut Snapshot)>;
    let cases: Vec<(Spoil, &str)> = vec![
        (
            Box::new(|s| s.user_data.colliders[0].1 = 0),
            "user_data.colliders[0]",
        ),
        (
            Box::new(|s| s.user_data.colliders.swap(0, 1)),
            "user_data.colliders[1]",
        ),
        (
            Box::new(move |s| s.user_data.colliders.push((crate_, 2))),
            "user_data.colliders[2]",
        ),
        (
            Box::new(move |s| s.user_data.colliders[1] = (stranger, 2)),
            "user_data.colliders[1]",
        ),
        (
            Box::new(move |s| s.user_data.joints.push((hinge, 5))),
            "user_data.joints[1]",
        ),
        (
            Box::new(|s| s.user_data.joints.push((JointHandle::default(), 5))),
            "user_data.joints[1]",
        ),
    ];
    common::spoiled_snapshots_are_refused_by_name(&good, cases);
    assert!(World::from_snapshot(good).is_ok());
}

#[test]
fn version_9_snapshots_load_without_user_data_and_step_as_they_did() {
    // The world of `filtering.rs`'s `write_fuzz_seeds` (damping, locks, a force pending, a
    // kinematic target, filters, a sensor with a visitor, hit events), saved in format 9 by
    // the build before collider and joint user data. That build hashed it 0x32059ac54b5ab8a9
    // on load and 0x4192c3cf8d75b9a3 30 steps later; this one does too.
    let bytes = include_bytes!("data/v9-game.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.state_hash(), 0x3205_9ac5_4b5a_b8a9);
    assert!(world.bodies().all(|(_, b)| b.collider_user_data() == 0));
    for _ in 0..30 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0x4192_c3cf_8d75_b9a3);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn version_10_snapshots_load_without_cached_axes_and_step_on() {
    // The bin of `version_8_snapshots_load...` (`testbed::shapes::shapes_bin(60)`, 60 steps),
    // saved in format 10 by the build before the narrow phase cached the hull pairs' separating
    // axes. That build hashed it 0xc30716408a7abf5d on load and 0x58551032590529f5 60 steps
    // later. Loaded, it has no cached axes and hashes the same; its first step tests every
    // pair in full, and it reaches what the version 8 file does (see there).
    let bytes = include_bytes!("data/v10-shapes.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.state_hash(), 0xc307_1640_8a7a_bf5d);
    assert!(world.snapshot().axes.is_empty());
    for _ in 0..60 {
        world.step();
    }
    assert!(!world.snapshot().axes.is_empty());
    assert_eq!(world.state_hash(), 0x1918_ee13_38ef_5f6c);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn version_11_snapshots_load_with_their_axes_as_parts_zero_and_step_on() {
    // Box3D's washer with 5^3 cubes and eight rocks (hulls of `pile_hull_points`) dropped in
    // at y = 25, 150 steps, saved in format 11 by the build before a compound's part pairs
    // kept their own axes: 15 axes of pairs without a compound. That build hashed it
    // 0xf2e0fced4e435c8d on load. Loaded, its axes are those pairs' with parts 0 and 0 and it
    // hashes the same; stepped on, the drum's part pairs cache their axes too, and a copy
    // restored at the end steps as it does.
    let bytes = include_bytes!("data/v11-washer.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    assert_eq!(world.state_hash(), 0xf2e0_fced_4e43_5c8d);
    let axes = world.snapshot().axes;
    assert_eq!(axes.len(), 15);
    assert!(axes.iter().all(|e| e.parts == [0, 0]));
    for _ in 0..60 {
        world.step();
    }
    let axes = world.snapshot().axes;
    assert!(axes.iter().any(|e| e.parts != [0, 0]), "{axes:?}");
    common::every_truncation_fails(&bytes[..]);
    let mut again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
    for _ in 0..30 {
        world.step();
        again.step();
    }
    assert_eq!(again.state_hash(), world.state_hash());
}

#[test]
fn the_whole_step_responses_move_controlled_bodies_as_the_solver_does_in_one_substep() {
    // Seed 003's `Reflect` and `None` integrate once a step, with the solver's velocity update
    // (`body::accelerate`): a force gives `F dt / m`, a torque `I^-1 tau dt`, damping
    // `1 / (1 + c dt)`, gravity its scale; one substep of the solver gives the same bits (for
    // a cube: the solver also turns a body whose inertia differs about its axes by the
    // gyroscopic term, which the whole-step responses leave out).
    for response in [Response::Reflect, Response::None] {
        let make = |response, substeps| {
            let mut world = World::new(WorldConfig {
                response,
                ..WorldConfig::default()
            });
            let mut config = *world.config();
            config.solver.substeps = substeps;
            world.set_config(config).unwrap();
            let body = world
                .insert(
                    BodyDesc::dynamic()
                        .cuboid(Vector3::repeat(0.3))
                        .density(3.0)
                        .linvel(Vector3::new(1.0, 2.0, -1.0))
                        .angvel(Vector3::new(0.5, -0.2, 0.1))
                        .linear_damping(0.7)
                        .angular_damping(0.3)
                        .gravity_scale(0.5),
                )
                .unwrap();
            let control = world.body_mut(body).unwrap();
            control.add_force(Vector3::new(12.0, -3.0, 7.5)).unwrap();
            control.add_torque(Vector3::new(0.1, 0.2, -0.3)).unwrap();
            (world, body)
        };
        let (mut whole, body) = make(response, 8);
        let (mut solver, twin) = make(Response::Solver, 1);
        let dt = whole.config().dt;
        let (mass, before) = {
            let b = whole.body(body).unwrap();
            (b.mass(), b.linvel())
        };
        whole.step();
        solver.step();
        let (a, b) = (whole.body(body).unwrap(), solver.body(twin).unwrap());
        assert_eq!(
            (a.linvel(), a.angvel()),
            (b.linvel(), b.angvel()),
            "{response:?}"
        );
        let expected = before / (1.0 + dt * 0.7)
            + whole.config().gravity * (0.5 * dt)
            + Vector3::new(12.0, -3.0, 7.5) * (dt / mass);
        for axis in 0..3 {
            assert!(
                close(a.linvel()[axis], expected[axis], 1e-6),
                "{response:?} axis {axis}: {} against {}",
                a.linvel()[axis],
                expected[axis]
            );
        }
    }
}
