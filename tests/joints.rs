//! Joints as users meet them: the physics each kind promises (periods, limits, motors,
//! springs, loads), breaking, and bad input refused by name with the world unchanged.

use minirigid::prelude::*;
use minirigid::world::JOINT_SOFTNESS;
use std::f32::consts::PI;

fn world() -> World {
    World::new(WorldConfig {
        sleep: SleepConfig {
            enabled: false,
            ..SleepConfig::default()
        },
        ..WorldConfig::default()
    })
}

fn anchor(world: &mut World, at: Vector3) -> BodyHandle {
    world
        .insert(BodyDesc::fixed().cuboid(Vector3::repeat(0.05)).position(at))
        .unwrap()
}

fn ball(world: &mut World, at: Vector3, radius: Real) -> BodyHandle {
    world
        .insert(BodyDesc::dynamic().ball(radius).position(at))
        .unwrap()
}

/// The times (s) at which `x` crosses zero going up, over `seconds`.
fn upward_crossings(
    world: &mut World,
    seconds: Real,
    mut x: impl FnMut(&World) -> Real,
) -> Vec<f64> {
    let mut times = Vec::new();
    let mut last = x(world);
    let steps = (seconds / world.config().dt).round() as usize;
    for _ in 0..steps {
        world.step();
        let now = x(world);
        if last < 0.0 && now >= 0.0 {
            // Linear interpolation within the step.
            let t = world.time() - f64::from(world.config().dt) * f64::from(now / (now - last));
            times.push(t);
        }
        last = now;
    }
    times
}

#[test]
fn a_pendulum_swings_with_its_period() {
    // A small ball on a 1 m joint released at 10 degrees: T = 2 pi sqrt(L/g) (1 + theta^2/16).
    let (length, theta) = (1.0f32, 10f32.to_radians());
    let g = 9.81f32;
    let expected = f64::from(2.0 * PI * (length / g).sqrt() * (1.0 + theta * theta / 16.0));
    for kind in ["spherical", "revolute"] {
        let mut world = world();
        let pivot = Vector3::new(0.0, 5.0, 0.0);
        let fixed = anchor(&mut world, pivot);
        let at = pivot + Vector3::new(length * theta.sin(), -length * theta.cos(), 0.0);
        let bob = ball(&mut world, at, 0.02);
        let desc = match kind {
            "spherical" => JointDesc::spherical(fixed, bob, pivot.into()),
            _ => JointDesc::revolute(fixed, bob, pivot.into(), Vector3::z()),
        };
        world.insert_joint(desc).unwrap();
        let times = upward_crossings(&mut world, 25.0, |w| w.body(bob).unwrap().position().x);
        assert!(times.len() >= 11, "{kind}: {} periods", times.len());
        let period = (times[10] - times[0]) / 10.0;
        let error = (period - expected).abs() / expected;
        assert!(
            error < 0.01,
            "{kind}: period {period:.4} s, expected {expected:.4} s"
        );
        // Still a metre from the pivot.
        let r = (world.body(bob).unwrap().position().coords - pivot).norm();
        assert!((r - length).abs() < 1e-3, "{kind}: length {r}");
    }
}

/// `testbed::joints::chain` (boxes of 0.1 x 0.1 x 0.25 m, density 1000, hanging from a static
/// anchor with its top at y = 20) with a ball of `load` times a link's mass joined at its end.
/// Returns the world, the links and the ball.
fn chain(links: usize, load: Real) -> (World, Vec<BodyHandle>, BodyHandle) {
    let mut world = world();
    let top = Vector3::new(0.0, 20.0, 0.0);
    let (_, handles) = testbed::joints::chain(&mut world, top, links);
    let link_mass = 1000.0 * 0.1 * 0.1 * 0.25;
    let end = top - Vector3::new(0.0, 0.25 * links as Real, 0.0);
    let radius = 0.1;
    let density = load * link_mass / (4.0 / 3.0 * PI * radius * radius * radius);
    let weight = world
        .insert(
            BodyDesc::dynamic()
                .ball(radius)
                .density(density)
                .position(end - Vector3::new(0.0, radius, 0.0)),
        )
        .unwrap();
    let last = *handles.last().expect("a link");
    world
        .insert_joint(JointDesc::spherical(last, weight, end.into()))
        .unwrap();
    (world, handles, weight)
}

#[test]
fn a_chain_holds_a_heavy_ball_without_stretching_and_comes_to_rest() {
    let (mut world, links, weight) = chain(40, 100.0);
    let top = 20.0;
    let length = 40.0 * 0.25;
    for _ in 0..300 {
        world.step();
    }
    let end = world.body(weight).unwrap().position().y + 0.1;
    let stretch = (top - end - length) / length;
    println!("stretch {:.3}%", stretch * 100.0);
    assert!(
        stretch < 0.01,
        "the chain stretched {:.2}%",
        stretch * 100.0
    );
    let fastest = links
        .iter()
        .chain([&weight])
        .map(|&h| world.body(h).unwrap().linvel().norm())
        .fold(0.0, Real::max);
    println!("fastest {fastest} m/s");
    assert!(fastest < 0.01, "a link still moves at {fastest} m/s");
}

/// A plank of `half` extents and `mass` hinged at its left end (at `pivot`) to a static body
/// about z, lying along +x.
fn hinged_plank(
    world: &mut World,
    pivot: Vector3,
    desc: impl Fn(JointDesc) -> JointDesc,
) -> (BodyHandle, JointHandle) {
    let fixed = anchor(world, pivot);
    let half = Vector3::new(0.5, 0.05, 0.1);
    let plank = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(half)
                .mass(10.0)
                .position(pivot + Vector3::new(0.5, 0.0, 0.0)),
        )
        .unwrap();
    let joint = world
        .insert_joint(desc(JointDesc::revolute(
            fixed,
            plank,
            pivot.into(),
            Vector3::z(),
        )))
        .unwrap();
    (plank, joint)
}

#[test]
fn a_hinge_stops_at_its_limit() {
    let mut world = world();
    let lower = -30f32.to_radians();
    let (_, joint) = hinged_plank(&mut world, Vector3::new(0.0, 3.0, 0.0), |d| {
        d.limits(lower, 20f32.to_radians())
    });
    for _ in 0..180 {
        world.step();
    }
    let reading = world.joint_reading(joint).unwrap();
    let off = (reading.angle - lower).abs().to_degrees();
    println!(
        "hinge limit: {off:.4} degrees off, still at {} rad/s",
        reading.angular_speed
    );
    assert!(off < 0.5, "stopped {off} degrees from its limit");
    assert!(reading.angular_speed.abs() < 0.01);
}

#[test]
fn a_motor_reaches_its_speed_and_stalls_under_too_much_load() {
    // Without gravity: the plank turns at the motor's speed.
    let mut world = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    });
    let (_, joint) = hinged_plank(&mut world, Vector3::zeros(), |d| d.motor(2.0, 100.0));
    for _ in 0..60 {
        world.step();
    }
    let speed = world.joint_reading(joint).unwrap().angular_speed;
    println!("motor speed {speed} rad/s");
    assert!((speed - 2.0).abs() < 0.02, "motor at {speed} rad/s");
    // With gravity, holding the plank up takes m g L/2 = 49 N m: a motor of 20 N m cannot, and
    // the plank falls; one of 100 N m lifts it.
    for (max_torque, lifts) in [(20.0, false), (100.0, true)] {
        let mut world = self::world();
        let (_, joint) = hinged_plank(&mut world, Vector3::new(0.0, 3.0, 0.0), |d| {
            d.motor(2.0, max_torque)
        });
        for _ in 0..30 {
            world.step();
        }
        let reading = world.joint_reading(joint).unwrap();
        assert_eq!(
            reading.angle > 0.0,
            lifts,
            "{max_torque} N m: angle {}",
            reading.angle
        );
        if !lifts {
            // The motor pushes with all it has: its torque is its maximum.
            assert!(
                (reading.torque.z - max_torque).abs() < 0.01 * max_torque,
                "{}",
                reading.torque
            );
        }
    }
}

#[test]
fn a_slider_stops_at_its_lower_limit() {
    let mut world = world();
    let top = Vector3::new(0.0, 3.0, 0.0);
    let fixed = anchor(&mut world, top);
    let slider = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.2))
                .position(top),
        )
        .unwrap();
    let joint = world
        .insert_joint(
            JointDesc::prismatic(fixed, slider, top.into(), Vector3::y()).limits(-0.5, 0.5),
        )
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    let reading = world.joint_reading(joint).unwrap();
    println!("slider {} m", reading.translation);
    assert!(
        (reading.translation + 0.5).abs() < 1e-3,
        "slider at {}",
        reading.translation
    );
    // It slid straight: no turn, no drift across the axis.
    let body = world.body(slider).unwrap();
    assert!(body.position().x.abs() < 1e-4 && body.position().z.abs() < 1e-4);
    assert!(body.pose().rotation.angle() < 1e-3);
}

#[test]
fn a_spring_oscillates_at_its_frequency() {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    });
    let fixed = anchor(&mut world, Vector3::zeros());
    let body = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.2))
                .position(Vector3::zeros()),
        )
        .unwrap();
    let hertz = 1.0;
    let joint = world
        .insert_joint(
            JointDesc::prismatic(fixed, body, Point3::origin(), Vector3::x())
                .spring(hertz, 0.0, 0.25),
        )
        .unwrap();
    let times = upward_crossings(&mut world, 6.0, |w| {
        w.joint_reading(joint).unwrap().translation - 0.25
    });
    assert!(times.len() >= 5);
    let period = (times[4] - times[0]) / 4.0;
    let error = (period * f64::from(hertz) - 1.0).abs();
    println!("spring period {period} s");
    assert!(error < 0.02, "period {period} s for {hertz} Hz");
}

/// A weightless world with a cube on a ball and socket at its centre (a spring of `hertz` and
/// `damping_ratio`), the cube turned `turn` away from its joint frame's rest.
fn sprung_cube(
    hertz: Real,
    damping_ratio: Real,
    turn: UnitQuaternion,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    });
    let fixed = anchor(&mut world, Vector3::zeros());
    let body = world
        .insert(BodyDesc::dynamic().cuboid(Vector3::new(0.2, 0.3, 0.4)))
        .unwrap();
    let desc = JointDesc::spherical(fixed, body, Point3::origin());
    let joint = (world.insert_joint(desc.spring(hertz, damping_ratio, 0.0))).unwrap();
    let pose = Isometry3::from_parts(Vector3::zeros().into(), turn);
    world.body_mut(body).unwrap().set_pose(pose).unwrap();
    (world, body, joint)
}

#[test]
fn a_spherical_spring_turns_the_frames_together_at_its_frequency() {
    // Turned 0.25 rad about the twist axis (z) and about a tilt axis (x), each on its own:
    // Box3D's spherical spring with its target the identity, undamped, swings it back and
    // forth through the rest at its frequency, whatever the cube's inertia.
    let hertz = 1.0;
    for axis in [Vector3::z_axis(), Vector3::x_axis()] {
        let (mut world, body, joint) =
            sprung_cube(hertz, 0.0, UnitQuaternion::from_axis_angle(&axis, 0.25));
        let turn = |w: &World| {
            w.body(body)
                .unwrap()
                .pose()
                .rotation
                .scaled_axis()
                .dot(&axis)
        };
        let times = upward_crossings(&mut world, 6.0, turn);
        assert!(times.len() >= 5, "{times:?}");
        let period = (times[4] - times[0]) / 4.0;
        let error = (period * f64::from(hertz) - 1.0).abs();
        println!("spherical spring about {axis:?}: period {period} s");
        assert!(error < 0.02, "period {period} s for {hertz} Hz");
        // Held at the anchor all along, and still swinging after six periods (the soft
        // step's implicit integration loses some of the swing each period).
        let reading = world.joint_reading(joint).unwrap();
        assert!((reading.anchors[0] - reading.anchors[1]).norm() < 1e-4);
        let mut largest: Real = 0.0;
        for _ in 0..60 {
            world.step();
            largest = largest.max(turn(&world).abs());
        }
        println!("amplitude after six periods {largest} rad of 0.25");
        assert!(largest > 0.1, "amplitude {largest} rad");
    }
    // Damped at its critical ratio it comes to rest with the frames together.
    let turned = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.5);
    let (mut world, body, _) = sprung_cube(2.0, 1.0, turned);
    for _ in 0..180 {
        world.step();
    }
    let left = world.body(body).unwrap().pose().rotation.angle();
    assert!(left < 1e-3, "{left} rad from rest after 3 s");
}

#[test]
fn a_weld_holds_a_cantilevered_load() {
    let mut world = world();
    let fixed = anchor(&mut world, Vector3::new(0.0, 2.0, 0.0));
    let start = Vector3::new(0.55, 2.0, 0.0);
    let load = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .mass(10.0)
                .position(start),
        )
        .unwrap();
    world
        .insert_joint(JointDesc::weld(fixed, load, Point3::new(0.05, 2.0, 0.0)))
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    let body = world.body(load).unwrap();
    let moved = (body.position().coords - start).norm();
    let turned = body.pose().rotation.angle().to_degrees();
    println!("weld: moved {moved} m, turned {turned} degrees");
    assert!(
        moved < 1e-3 && turned < 0.1,
        "moved {moved} m, turned {turned} degrees"
    );
}

#[test]
fn a_thousand_to_one_mass_ratio_does_not_explode() {
    for weld in [true, false] {
        let mut world = world();
        let top = Vector3::new(0.0, 5.0, 0.0);
        let fixed = anchor(&mut world, top);
        let light = world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(0.1))
                    .mass(1.0)
                    .position(top - Vector3::new(0.0, 0.5, 0.0)),
            )
            .unwrap();
        let heavy = world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.3)
                    .mass(1000.0)
                    .position(top - Vector3::new(0.0, 1.0, 0.0)),
            )
            .unwrap();
        world
            .insert_joint(JointDesc::spherical(fixed, light, top.into()))
            .unwrap();
        let at = top - Vector3::new(0.0, 0.6, 0.0);
        let desc = if weld {
            JointDesc::weld(light, heavy, at.into())
        } else {
            JointDesc::distance(
                light,
                heavy,
                (top - Vector3::new(0.0, 0.5, 0.0)).into(),
                (top - Vector3::new(0.0, 1.0, 0.0)).into(),
            )
        };
        world.insert_joint(desc).unwrap();
        for _ in 0..300 {
            world.step();
        }
        let heavy_body = world.body(heavy).unwrap();
        let drop = (top.y - 1.0) - heavy_body.position().y;
        println!(
            "weld {weld}: the heavy ball sags {drop} m, moves at {}",
            heavy_body.linvel().norm()
        );
        assert!(drop.abs() < 0.01, "weld {weld}: sagged {drop} m");
        assert!(heavy_body.linvel().norm() < 0.01);
    }
}

#[test]
fn a_joint_breaks_on_the_step_its_force_exceeds_its_threshold_and_is_reported_once() {
    let mut world = world();
    let top = Vector3::new(0.0, 5.0, 0.0);
    let fixed = anchor(&mut world, top);
    // 5 kg (49 N) holds on a joint that breaks above 100 N; 20 kg (196 N) does not.
    let mut joints = Vec::new();
    for (x, mass) in [(-1.0, 5.0), (1.0, 20.0)] {
        let pivot = top + Vector3::new(x, 0.0, 0.0);
        let ball = world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.1)
                    .mass(mass)
                    .position(pivot - Vector3::new(0.0, 0.5, 0.0)),
            )
            .unwrap();
        let joint = world
            .insert_joint(JointDesc::spherical(fixed, ball, pivot.into()).break_force(100.0))
            .unwrap();
        joints.push((joint, ball));
    }
    let mut broken = Vec::new();
    for step in 0..60 {
        world.step();
        for event in world.joint_events() {
            broken.push((step, *event));
        }
    }
    let (holds, breaks) = (joints[0], joints[1]);
    assert_eq!(
        broken,
        vec![(
            0,
            JointEvent::Broken {
                joint: breaks.0,
                bodies: [fixed, breaks.1]
            }
        )]
    );
    assert!(world.joint(breaks.0).is_none());
    assert!(world.remove_joint(breaks.0).is_none());
    let force = world.joint(holds.0).unwrap().force().norm();
    assert!(
        (force - 5.0 * 9.81).abs() < 0.5,
        "the holding joint carries {force} N"
    );
    // The freed ball falls.
    assert!(world.body(breaks.1).unwrap().linvel().y < -5.0);
}

/// A world restored from a snapshot, and one whose other joints were removed, still break
/// their joints past the threshold (a step looks for broken joints only while some joint has
/// a threshold: the count must follow inserts, removals and restores).
#[test]
fn a_restored_world_breaks_its_joints_and_a_removal_leaves_the_others_breakable() {
    let build = || {
        let mut world = world();
        let top = Vector3::new(0.0, 5.0, 0.0);
        let fixed = anchor(&mut world, top);
        let ball = world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.1)
                    .mass(20.0)
                    .position(top - Vector3::y()),
            )
            .unwrap();
        let plain = world
            .insert_joint(JointDesc::spherical(fixed, ball, top.into()))
            .unwrap();
        let breaking = world
            .insert_joint(JointDesc::spherical(fixed, ball, top.into()).break_force(50.0))
            .unwrap();
        (world, plain, breaking)
    };
    let broke = |world: &mut World, joint: JointHandle| {
        (0..30).any(|_| {
            world.step();
            world
                .joint_events()
                .iter()
                .any(|e| matches!(e, JointEvent::Broken { joint: j, .. } if *j == joint))
        })
    };
    // Restored before its first step.
    let (world, _, breaking) = build();
    let mut restored = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert!(
        broke(&mut restored, breaking),
        "the restored joint did not break"
    );
    // The other joint removed first: the breaking one alone carries the 196 N.
    let (mut world, plain, breaking) = build();
    world.remove_joint(plain).unwrap();
    assert!(
        broke(&mut world, breaking),
        "the remaining joint did not break"
    );
}

/// Two unit cubes overlapping by 0.1 m along x, without gravity, and where they overlap.
fn overlapping_cubes(config: WorldConfig) -> (World, BodyHandle, BodyHandle, Point3) {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..config
    });
    let a = world
        .insert(BodyDesc::dynamic().cuboid(Vector3::repeat(0.5)))
        .unwrap();
    let b = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.9, 0.0, 0.0)),
        )
        .unwrap();
    (world, a, b, Point3::new(0.45, 0.0, 0.0))
}

#[test]
fn jointed_bodies_do_not_collide_unless_asked() {
    for collide in [false, true] {
        let (mut world, a, b, anchor) = overlapping_cubes(WorldConfig::default());
        world
            .insert_joint(JointDesc::spherical(a, b, anchor).collide_connected(collide))
            .unwrap();
        world.step();
        assert_eq!(!world.contacts().is_empty(), collide);
    }
}

/// The pairs a step skips follow the joints from step to step: two overlapping boxes collide,
/// stop colliding once a joint joins them, and collide again once it is removed, or once
/// their other joint is the only one left and asks for it (the world's bodies, and so the
/// step's dense set, the same throughout: what the collision stage keeps of the skipped pairs
/// is dropped with each change).
#[test]
fn joints_added_and_removed_between_steps_skip_and_restore_their_bodies_contacts() {
    let (mut world, a, b, anchor) = overlapping_cubes(*self::world().config());
    let touching = |world: &mut World| {
        world.step();
        !world.contacts().is_empty()
    };
    assert!(touching(&mut world));
    let held = world
        .insert_joint(JointDesc::spherical(a, b, anchor))
        .unwrap();
    assert!(!touching(&mut world));
    assert!(!touching(&mut world));
    world.remove_joint(held).unwrap();
    assert!(touching(&mut world));
    let held = world
        .insert_joint(JointDesc::spherical(a, b, anchor))
        .unwrap();
    let loose = world
        .insert_joint(JointDesc::spherical(a, b, anchor).collide_connected(true))
        .unwrap();
    assert!(!touching(&mut world), "one joint of the two skips the pair");
    world.remove_joint(held).unwrap();
    assert!(touching(&mut world));
    world.remove_joint(loose).unwrap();
    assert!(touching(&mut world));
}

#[test]
fn a_jointed_island_sleeps_and_wakes_as_a_whole() {
    let mut world = World::new(WorldConfig::default());
    let top = Vector3::new(0.0, 5.0, 0.0);
    let fixed = anchor(&mut world, top);
    let upper = ball(&mut world, top - Vector3::new(0.0, 0.5, 0.0), 0.1);
    let lower = ball(&mut world, top - Vector3::new(0.0, 1.0, 0.0), 0.1);
    world
        .insert_joint(JointDesc::spherical(fixed, upper, top.into()))
        .unwrap();
    world
        .insert_joint(JointDesc::spherical(
            upper,
            lower,
            (top - Vector3::new(0.0, 0.5, 0.0)).into(),
        ))
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    assert_eq!(world.sleeping_count(), 2);
    world
        .body_mut(lower)
        .unwrap()
        .set_linvel(Vector3::new(1.0, 0.0, 0.0))
        .unwrap();
    world.step();
    assert_eq!(world.sleeping_count(), 0);
    assert!(world.body(upper).unwrap().linvel().norm() > 0.0);
}

#[test]
fn removing_a_body_removes_its_joints() {
    let mut world = world();
    let fixed = anchor(&mut world, Vector3::zeros());
    let a = ball(&mut world, Vector3::new(0.0, -1.0, 0.0), 0.1);
    let joint = world
        .insert_joint(JointDesc::spherical(fixed, a, Point3::origin()))
        .unwrap();
    world.remove(a);
    assert!(world.joint(joint).is_none());
    assert_eq!(world.joint_count(), 0);
    world.step();
}

/// A row of five overlapping balls (radius 0.5, 0.9 m apart) from a fixed anchor, each on a
/// spherical joint to the next, and a sixth joint from the anchor to the second ball: jointed
/// balls do not collide, so a pair the world forgets to keep apart would push.
fn jointed_row() -> (World, Vec<BodyHandle>, Vec<JointHandle>) {
    let mut world = world();
    let fixed = anchor(&mut world, Vector3::new(-0.9, 0.0, 0.0));
    let mut bodies = vec![fixed];
    for k in 0..5 {
        bodies.push(ball(
            &mut world,
            Vector3::new(0.9 * k as Real, 0.0, 0.0),
            0.5,
        ));
    }
    let mut joints = Vec::new();
    for (i, j) in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 2)] {
        let at = world.body(bodies[j]).unwrap().position();
        let desc = JointDesc::spherical(bodies[i], bodies[j], Point3::from(at));
        joints.push(world.insert_joint(desc).unwrap());
    }
    (world, bodies, joints)
}

#[test]
fn removing_a_jointed_body_leaves_the_other_joints_as_a_restored_world_has_them() {
    // The second ball of the row has three joints; removing it removes them and leaves the
    // others holding, their balls still kept from colliding: the world steps to the same bits
    // as its restored copy, whose joints' pairs are made afresh from its joints.
    let (mut world, bodies, joints) = jointed_row();
    world.remove(bodies[2]);
    assert_eq!(world.joint_count(), 3);
    for gone in [joints[1], joints[2], joints[5]] {
        assert!(world.joint(gone).is_none());
    }
    let mut restored = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    for _ in 0..120 {
        world.step();
        restored.step();
    }
    assert_eq!(world.state_hash(), restored.state_hash());
    // The balls held on the joints left are still one ball apart, not pushed apart.
    for pair in [(3, 4), (4, 5)] {
        let [a, b] = [pair.0, pair.1].map(|k| world.body(bodies[k]).unwrap().position());
        assert!(
            ((a - b).norm() - 0.9).abs() < 0.01,
            "{pair:?}: {}",
            (a - b).norm()
        );
    }
    // Joints inserted next take the handles they take after the three joints are removed one
    // by one in handle order.
    let (mut other, other_bodies, other_joints) = jointed_row();
    for gone in [1, 2, 5] {
        other.remove_joint(other_joints[gone]).unwrap();
    }
    other.remove(other_bodies[2]);
    let [next, other_next] = [(&mut world, &bodies), (&mut other, &other_bodies)].map(|(w, b)| {
        let desc = JointDesc::spherical(b[3], b[5], Point3::origin());
        [(); 4].map(|_| w.insert_joint(desc).unwrap())
    });
    assert_eq!(next, other_next);
}

/// Inserting `desc` fails naming `field` (by the error's text), and nothing changes.
fn refused(world: &mut World, desc: JointDesc, field: &str) {
    let (count, hash) = (world.joint_count(), world.state_hash());
    match world.insert_joint(desc) {
        Ok(h) => panic!("accepted as {h:?}; expected an error naming {field}"),
        Err(e) => assert!(e.to_string().contains(field), "`{e}` does not name {field}"),
    }
    assert_eq!((world.joint_count(), world.state_hash()), (count, hash));
}

#[test]
fn bad_joints_are_refused_by_name_and_change_nothing() {
    let mut world = world();
    let fixed = anchor(&mut world, Vector3::zeros());
    let a = ball(&mut world, Vector3::new(0.0, -1.0, 0.0), 0.1);
    let gone = ball(&mut world, Vector3::new(0.0, -2.0, 0.0), 0.1);
    world.remove(gone);
    let p = Point3::origin();
    refused(&mut world, JointDesc::spherical(a, a, p), "same body");
    refused(
        &mut world,
        JointDesc::spherical(fixed, gone, p),
        "unknown or removed body",
    );
    refused(
        &mut world,
        JointDesc::spherical(fixed, a, Point3::new(Real::NAN, 0.0, 0.0)),
        "desc.anchor.x",
    );
    refused(
        &mut world,
        JointDesc::revolute(fixed, a, p, Vector3::zeros()),
        "desc.axis",
    );
    refused(
        &mut world,
        JointDesc::revolute(fixed, a, p, Vector3::new(0.0, Real::INFINITY, 0.0)),
        "desc.axis.y",
    );
    refused(
        &mut world,
        JointDesc::revolute(fixed, a, p, Vector3::z()).limits(0.5, -0.5),
        "desc.kind.limits must be in order",
    );
    refused(
        &mut world,
        JointDesc::revolute(fixed, a, p, Vector3::z()).limits(-4.0, 0.5),
        "desc.kind.limits[0]",
    );
    refused(
        &mut world,
        JointDesc::prismatic(fixed, a, p, Vector3::z()).spring(-1.0, 0.5, 0.0),
        "desc.kind.spring.hertz",
    );
    refused(
        &mut world,
        JointDesc::prismatic(fixed, a, p, Vector3::z()).motor(1.0, -5.0),
        "desc.kind.motor.max_force",
    );
    refused(
        &mut world,
        JointDesc::spherical(fixed, a, p).cone(0.0),
        "desc.kind.cone",
    );
    refused(
        &mut world,
        JointDesc::spherical(fixed, a, p).spring(1.0, Real::INFINITY, 0.0),
        "desc.kind.spring.damping_ratio",
    );
    refused(
        &mut world,
        JointDesc::spherical(fixed, a, p).break_force(Real::NAN),
        "desc.break_force",
    );
    refused(
        &mut world,
        JointDesc::spherical(fixed, a, p).softness(Real::NAN, 2.0),
        "desc.softness.hertz",
    );
    refused(
        &mut world,
        JointDesc::rope(fixed, a, p, p, 0.0),
        "desc.kind.length",
    );
    refused(
        &mut world,
        JointDesc::distance(fixed, a, p, Point3::new(0.0, -1.0, 0.0)).limits(2.0, 1.0),
        "desc.kind.min",
    );
    // Setters on unknown or removed joints, and bad settings, are refused too.
    let joint = world
        .insert_joint(JointDesc::revolute(fixed, a, p, Vector3::z()))
        .unwrap();
    let hash = world.state_hash();
    assert!(world.set_joint_limits(joint, Some([1.0, -1.0])).is_err());
    assert!(
        world
            .set_joint_motor(
                joint,
                Some(Motor {
                    speed: Real::NAN,
                    max_force: 1.0
                })
            )
            .is_err()
    );
    assert_eq!(world.state_hash(), hash);
    let soft = Spring {
        hertz: -1.0,
        damping_ratio: 1.0,
    };
    let error = world
        .set_joint_softness(joint, soft)
        .unwrap_err()
        .to_string();
    assert!(error.contains("softness.hertz"), "{error}");
    assert_eq!(world.state_hash(), hash);
    // The joint iteration count is a checked setting.
    let mut config = *world.config();
    config.solver.joint_iterations = 0;
    let error = world.set_config(config).unwrap_err().to_string();
    assert!(error.contains("config.solver.joint_iterations"), "{error}");
    assert_eq!(world.state_hash(), hash);
    world.remove_joint(joint).unwrap();
    assert_eq!(
        world.set_joint_limits(joint, None),
        Err(WorldError::UnknownJoint)
    );
    assert_eq!(
        world.set_joint_softness(joint, JOINT_SOFTNESS),
        Err(WorldError::UnknownJoint)
    );
    assert_eq!(world.joint_reading(joint), Err(WorldError::UnknownJoint));
}

#[test]
fn a_ragdoll_lands_in_one_piece_and_sleeps() {
    // The ragdoll of the joints example (boxes and a ball; cone, twist and hinge limits)
    // dropped from 2 m with a push at its head, sixteen times with pushes 0.1 mm/s apart: its
    // landing is chaotic (sixty-four such pushes, session 64: the largest gap between a
    // joint's anchors 4.9 mm at the tenth percentile, 7.3 mm at the median, 10.9 mm at the
    // ninetieth and 12.9 mm at most; asleep after 153 steps at the median, 190 at the
    // ninetieth percentile and 678 at most, its ball head rolling on while the body settles).
    // Through every fall and landing no joint's anchors come 1.5 cm apart and at the median
    // not 1 cm, and every ragdoll comes to rest and falls asleep as one island within 25 s,
    // at the median within 5 s (its ball head once circled its neck's cone limit for good;
    // its joints have friction, as Box3D's ragdolls do).
    let (mut gaps, mut rests) = (Vec::new(), Vec::new());
    for k in 0..16 {
        let (mut world, bodies, joints) = testbed::joints::falling_ragdoll();
        let push = Vector3::new(2.0 + k as Real * 1e-4, 0.0, 1.0);
        world.body_mut(bodies[2]).unwrap().set_linvel(push).unwrap();
        let mut worst: Real = 0.0;
        let mut rest = None;
        for step in 1..=1500 {
            world.step();
            for &joint in &joints {
                let r = world.joint_reading(joint).unwrap();
                worst = worst.max((r.anchors[1] - r.anchors[0]).norm());
            }
            if bodies.iter().all(|&b| world.body(b).unwrap().is_sleeping()) {
                rest = Some(step);
                break;
            }
        }
        let rest = rest.unwrap_or_else(|| panic!("push {k}: not asleep after 25 s"));
        gaps.push(worst);
        rests.push(rest);
    }
    gaps.sort_by(Real::total_cmp);
    rests.sort_unstable();
    println!(
        "ragdolls: joints at most {:.2} mm apart at the median, {:.2} mm at most; asleep after \
         {} steps at the median, {} at most",
        1000.0 * gaps[8],
        1000.0 * gaps[15],
        rests[8],
        rests[15]
    );
    assert!(
        gaps[8] < 0.01,
        "at the median a joint came {} m apart",
        gaps[8]
    );
    assert!(gaps[15] < 0.015, "a joint came {} m apart", gaps[15]);
    assert!(
        rests[8] <= 300,
        "at the median asleep only after {} steps",
        rests[8]
    );
}

/// A ball of radius 0.1 hanging 1 m below a static anchor at `top` on a spherical joint
/// described by `desc` (given the anchor, the ball and the pivot).
fn hanging_ball(
    world: &mut World,
    top: Vector3,
    desc: impl Fn(BodyHandle, BodyHandle, Point3) -> JointDesc,
) -> (BodyHandle, JointHandle) {
    let fixed = anchor(world, top);
    let bob = ball(world, top - Vector3::new(0.0, 1.0, 0.0), 0.1);
    let joint = world.insert_joint(desc(fixed, bob, top.into())).unwrap();
    (bob, joint)
}

#[test]
fn a_cone_limit_holds_the_swing() {
    // Cone of 0.3 rad about the hanging direction; the ball is kicked sideways at 5 m/s (it
    // would swing out to 1.8 rad).
    let mut world = world();
    let (bob, joint) = hanging_ball(&mut world, Vector3::new(0.0, 5.0, 0.0), |a, b, p| {
        JointDesc::spherical_about(a, b, p, -Vector3::y()).cone(0.3)
    });
    world
        .body_mut(bob)
        .unwrap()
        .set_linvel(Vector3::new(5.0, 0.0, 2.0))
        .unwrap();
    let mut widest: Real = 0.0;
    for _ in 0..240 {
        world.step();
        widest = widest.max(world.joint_reading(joint).unwrap().swing);
    }
    // Hit at 5 rad/s, a soft limit gives a little: 2.3 degrees measured.
    println!("cone: widest swing {widest} rad");
    assert!(
        widest > 0.29 && widest < 0.3 + 3f32.to_radians(),
        "{widest}"
    );
}

#[test]
fn a_twist_limit_holds_the_spin() {
    // A box spun about the joint's axis at 10 rad/s with twist limits of +-0.2 rad.
    let mut world = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    });
    let fixed = anchor(&mut world, Vector3::zeros());
    let spinner = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.3, 0.1, 0.1))
                .position(Vector3::new(0.0, -0.5, 0.0))
                .angvel(Vector3::new(0.0, 10.0, 0.0)),
        )
        .unwrap();
    let joint = world
        .insert_joint(
            JointDesc::spherical_about(fixed, spinner, Point3::origin(), -Vector3::y())
                .limits(-0.2, 0.2),
        )
        .unwrap();
    let mut extreme: Real = 0.0;
    for _ in 0..120 {
        world.step();
        extreme = extreme.max(world.joint_reading(joint).unwrap().angle.abs());
    }
    println!("twist: largest twist {extreme} rad");
    assert!(
        extreme > 0.19 && extreme < 0.2 + 0.5f32.to_radians(),
        "{extreme}"
    );
}

#[test]
fn a_rope_holds_at_its_length_and_goes_slack() {
    let mut world = world();
    let top = Vector3::new(0.0, 5.0, 0.0);
    let fixed = anchor(&mut world, top);
    // The ball starts 0.5 m below the anchor on a rope of 1 m: it falls free, then the rope
    // catches it.
    let bob = ball(&mut world, top - Vector3::new(0.3, 0.4, 0.0), 0.1);
    let joint = world
        .insert_joint(JointDesc::rope(
            fixed,
            bob,
            top.into(),
            (top - Vector3::new(0.3, 0.4, 0.0)).into(),
            1.0,
        ))
        .unwrap();
    let mut longest: Real = 0.0;
    for _ in 0..240 {
        world.step();
        longest = longest.max(world.joint_reading(joint).unwrap().length);
    }
    println!("rope: longest {longest} m");
    assert!(longest < 1.0 + 1e-3, "the rope stretched to {longest} m");
    let hanging = world.joint_reading(joint).unwrap().length;
    assert!((hanging - 1.0).abs() < 1e-3, "hangs at {hanging} m");
    // Thrown up, the rope goes slack: nothing pulls the ball down faster than gravity.
    world
        .body_mut(bob)
        .unwrap()
        .set_linvel(Vector3::new(0.0, 3.0, 0.0))
        .unwrap();
    world.step();
    let length = world.joint_reading(joint).unwrap().length;
    assert!(length < 0.99, "still taut at {length} m");
    assert!(world.joint(joint).unwrap().force().norm() < 1e-3);
}

#[test]
fn joint_friction_stops_a_swing() {
    // A 1 kg pendulum of 1 m released at 30 degrees: gravity's torque about the pivot is at
    // most 4.9 N m, so 10 N m of joint friction holds it where it is; without friction it
    // swings (it passes the bottom at 1.6 m/s).
    for (friction, stops) in [(0.0, false), (10.0, true)] {
        let mut world = world();
        let top = Vector3::new(0.0, 5.0, 0.0);
        let fixed = anchor(&mut world, top);
        let theta: Real = 30f32.to_radians();
        let at = top + Vector3::new(theta.sin(), -theta.cos(), 0.0);
        let bob = world
            .insert(BodyDesc::dynamic().ball(0.1).mass(1.0).position(at))
            .unwrap();
        world
            .insert_joint(JointDesc::spherical(fixed, bob, top.into()).friction(friction))
            .unwrap();
        // The fastest it moves in its third second.
        let mut speed: Real = 0.0;
        for step in 0..180 {
            world.step();
            if step >= 120 {
                speed = speed.max(world.body(bob).unwrap().linvel().norm());
            }
        }
        assert_eq!(speed < 0.01, stops, "friction {friction}: {speed} m/s");
    }
}

/// A joint inserted or removed between two steps acts from the next step on, also when the
/// step's set of bodies stays the same (the joints' list is kept while nothing changes).
#[test]
fn a_joint_inserted_or_removed_between_steps_acts_from_the_next() {
    let mut w = World::new(WorldConfig {
        gravity: Vector3::zeros(),
        sleep: SleepConfig {
            enabled: false,
            ..SleepConfig::default()
        },
        ..WorldConfig::default()
    });
    let a = ball(&mut w, Vector3::new(-1.0, 0.0, 0.0), 0.1);
    let b = ball(&mut w, Vector3::new(1.0, 0.0, 0.0), 0.1);
    // Drifting apart at 1 m/s each.
    w.body_mut(a).unwrap().set_linvel(-Vector3::x()).unwrap();
    w.body_mut(b).unwrap().set_linvel(Vector3::x()).unwrap();
    let gap = |w: &World| {
        w.body(b).unwrap().pose().translation.x - w.body(a).unwrap().pose().translation.x
    };
    w.step();
    let before = gap(&w);
    assert!(before > 2.0);
    let rod = w
        .insert_joint(JointDesc::distance(
            a,
            b,
            Point3::new(-1.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
        ))
        .unwrap();
    for _ in 0..60 {
        w.step();
    }
    // Held at (about) the length it had when made: 2 m, not 2 + 2 m/s x 1 s.
    assert!(
        (gap(&w) - 2.0).abs() < 0.05,
        "the new joint did not hold: {}",
        gap(&w)
    );
    w.remove_joint(rod).unwrap();
    w.body_mut(a).unwrap().set_linvel(-Vector3::x()).unwrap();
    w.body_mut(b).unwrap().set_linvel(Vector3::x()).unwrap();
    let held = gap(&w);
    for _ in 0..60 {
        w.step();
    }
    assert!(
        gap(&w) > held + 1.5,
        "the removed joint still held: {}",
        gap(&w)
    );
}
