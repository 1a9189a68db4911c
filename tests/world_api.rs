//! The world's API as a user meets it: bad input, handles, meshes, advance, queries, and the
//! speed limit of discrete steps.

use minirigid::prelude::*;

fn world() -> World {
    World::new(WorldConfig {
        gravity: Vector3::zeros(),
        ..WorldConfig::default()
    })
}

/// Seed 003's kind of world: `Response::Reflect`, 20 ms steps, no gravity.
fn reflect_world() -> World {
    World::new(WorldConfig {
        dt: 0.02,
        gravity: Vector3::zeros(),
        response: Response::Reflect,
        ..WorldConfig::default()
    })
}

/// Inserting `desc` fails with a message naming `field`, and the world is unchanged.
fn rejected(world: &mut World, desc: BodyDesc, field: &str) {
    let (len, hash) = (world.len(), world.state_hash());
    match world.insert(desc) {
        Ok(h) => panic!("accepted as {h:?}; expected an error naming {field}"),
        Err(e) => assert!(e.to_string().contains(field), "`{e}` does not name {field}"),
    }
    assert_eq!(
        (world.len(), world.state_hash()),
        (len, hash),
        "the world changed"
    );
}

#[test]
fn every_body_field_is_checked_and_named() {
    let mut w = world();
    w.insert(BodyDesc::dynamic()).unwrap();
    let bad_numbers = [Real::NAN, Real::INFINITY, Real::NEG_INFINITY];
    for bad in bad_numbers {
        let d = BodyDesc::dynamic;
        rejected(
            &mut w,
            d().position(Vector3::new(bad, 0.0, 0.0)),
            "desc.pose.translation.x",
        );
        rejected(
            &mut w,
            d().linvel(Vector3::new(0.0, bad, 0.0)),
            "desc.linvel.y",
        );
        rejected(
            &mut w,
            d().angvel(Vector3::new(0.0, 0.0, bad)),
            "desc.angvel.z",
        );
        rejected(
            &mut w,
            d().cuboid(Vector3::new(1.0, bad, 1.0)),
            "desc.shape.half_extents.y",
        );
        rejected(&mut w, d().ball(bad), "desc.shape.radius");
        rejected(&mut w, d().mass(bad), "desc.mass");
        rejected(&mut w, d().density(bad), "desc.density");
        rejected(&mut w, d().restitution(bad), "desc.restitution");
        rejected(&mut w, d().friction(bad), "desc.friction");
        rejected(&mut w, d().color([0.5, bad, 0.5]), "color[1]");
        let mut offset = BodyDesc::dynamic();
        offset.collider_offset.translation.vector.z = bad;
        rejected(&mut w, offset, "desc.collider_offset.translation.z");
    }
    for bad in [0.0, -1.0] {
        let d = BodyDesc::dynamic;
        rejected(
            &mut w,
            d().cuboid(Vector3::new(bad, 1.0, 1.0)),
            "desc.shape.half_extents.x",
        );
        rejected(&mut w, d().ball(bad), "desc.shape.radius");
        rejected(&mut w, d().mass(bad), "desc.mass");
        rejected(&mut w, d().density(bad), "desc.density");
    }
    rejected(
        &mut w,
        BodyDesc::dynamic().restitution(1.5),
        "desc.restitution",
    );
    rejected(&mut w, BodyDesc::dynamic().friction(-0.1), "desc.friction");
    let zero = UnitQuaternion::new_unchecked(minirigid::geom::Quaternion::new(0.0, 0.0, 0.0, 0.0));
    rejected(
        &mut w,
        BodyDesc::dynamic().rotation(zero),
        "desc.pose.rotation",
    );
    let long = UnitQuaternion::new_unchecked(minirigid::geom::Quaternion::new(2.0, 0.0, 0.0, 0.0));
    rejected(
        &mut w,
        BodyDesc::dynamic().rotation(long),
        "desc.pose.rotation",
    );
    // A static body ignores density and mass: it is never pushed.
    assert!(w.insert(BodyDesc::fixed().density(-1.0)).is_ok());
}

#[test]
fn setters_check_and_leave_the_body_unchanged_on_error() {
    let mut w = world();
    let h = w.insert(BodyDesc::dynamic()).unwrap();
    let before = w.body(h).unwrap().clone();
    let body = w.body_mut(h).unwrap();
    assert!(
        body.set_linvel(Vector3::new(Real::NAN, 0.0, 0.0))
            .unwrap_err()
            .to_string()
            .contains("linvel.x")
    );
    let mut pose = Isometry3::identity();
    pose.translation.vector.y = Real::INFINITY;
    assert!(
        body.set_pose(pose)
            .unwrap_err()
            .to_string()
            .contains("pose.translation.y")
    );
    assert!(body.set_color([2.0, 0.0, 0.0]).is_err());
    assert_eq!(w.body(h).unwrap(), &before);
    // And the config.
    let bad = WorldConfig {
        dt: 0.0,
        ..WorldConfig::default()
    };
    assert!(
        World::try_new(bad)
            .unwrap_err()
            .to_string()
            .contains("config.dt")
    );
    // And every solver setting, by name.
    type Corruption = fn(&mut SolverConfig);
    let cases: [(Corruption, &str); 10] = [
        (|s| s.substeps = 0, "config.solver.substeps"),
        (|s| s.substeps = 1_000, "config.solver.substeps"),
        (|s| s.soft_iterations = 0, "config.solver.soft_iterations"),
        (|s| s.soft_iterations = 17, "config.solver.soft_iterations"),
        (
            |s| s.contact_hertz = Real::NAN,
            "config.solver.contact_hertz",
        ),
        (|s| s.contact_hertz = -1.0, "config.solver.contact_hertz"),
        (
            |s| s.contact_damping_ratio = Real::INFINITY,
            "config.solver.contact_damping_ratio",
        ),
        (
            |s| s.max_push_out_speed = -3.0,
            "config.solver.max_push_out_speed",
        ),
        (
            |s| s.restitution_threshold = Real::NAN,
            "config.solver.restitution_threshold",
        ),
        (
            |s| s.speculative_margin = -0.02,
            "config.solver.speculative_margin",
        ),
    ];
    for (corrupt, field) in cases {
        let mut config = WorldConfig::default();
        corrupt(&mut config.solver);
        let error = World::try_new(config).unwrap_err().to_string();
        assert!(error.contains(field), "`{error}` does not name {field}");
    }
}

#[test]
fn removed_handles_find_nothing() {
    let mut w = world();
    let a = w.insert(BodyDesc::dynamic()).unwrap();
    let b = w
        .insert(BodyDesc::dynamic().position(Vector3::new(0.5, 0.0, 0.0)))
        .unwrap();
    w.step();
    assert_eq!(w.events(), &[ContactEvent::Started(a.min(b), a.max(b))]);
    assert!(w.remove(a).is_some());
    assert!(w.remove(a).is_none());
    assert!(w.body(a).is_none() && w.body_mut(a).is_none());
    assert_eq!(
        w.events().last(),
        Some(&ContactEvent::Stopped(a.min(b), a.max(b)))
    );
    // The slot is reused, but the old handle still finds nothing.
    let c = w.insert(BodyDesc::dynamic()).unwrap();
    assert_ne!(a, c);
    assert!(w.body(a).is_none());
    assert!(w.body(c).is_some());
    w.step();
    assert_eq!(w.len(), 2);
}

#[test]
fn mesh_bodies_get_fitted_colliders() {
    // Seed 003: the collider is built from the render object's vertices.
    let vertices: Vec<Point3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit != 0 { 1.0 } else { -1.0 };
            Point3::new(3.0 + s(1), s(2) * 0.5, s(4) * 2.0)
        })
        .collect();
    for fit in [ColliderFit::Aabb, ColliderFit::Obb, ColliderFit::Sphere] {
        let mut w = world();
        let h = w
            .insert(BodyDesc::from_mesh(&vertices, fit).unwrap().into_static())
            .unwrap();
        let aabb = w.body(h).unwrap().world_aabb();
        for v in &vertices {
            assert!(
                aabb.loosened(1e-4).contains_point(v),
                "{fit:?}: {v:?} outside {aabb:?}"
            );
        }
        assert!(matches!(
            w.body(h).unwrap().visual().shape,
            VisualShape::Mesh { .. }
        ));
    }
    let err = BodyDesc::from_mesh(&[], ColliderFit::Aabb).unwrap_err();
    assert!(err.to_string().contains("vertices"), "{err}");
    let err =
        BodyDesc::from_mesh(&[Point3::new(0.0, Real::NAN, 0.0)], ColliderFit::Obb).unwrap_err();
    assert!(err.to_string().contains("vertices[0].y"), "{err}");
}

#[test]
fn advance_runs_whole_steps_and_keeps_the_remainder() {
    let mut w = reflect_world();
    assert_eq!(w.advance(0.05), 2);
    assert!((w.interpolation_alpha() - 0.5).abs() < 1e-4);
    assert_eq!(w.advance(0.01), 1);
    assert_eq!(w.step_count(), 3);
    // Capped: a 10 s hitch runs 8 steps, and the excess is dropped.
    assert_eq!(w.advance(10.0), 8);
    assert!(w.interpolation_alpha() < 1.0);
    for bad in [Real::NAN, -1.0, Real::INFINITY] {
        assert_eq!(w.advance(bad), 0);
    }
    assert_eq!(w.step_count(), 11);
}

#[test]
fn ray_and_aabb_queries() {
    let mut w = world();
    let near = w
        .insert(BodyDesc::fixed().position(Vector3::new(5.0, 0.0, 0.0)))
        .unwrap();
    let _far = w
        .insert(BodyDesc::fixed().position(Vector3::new(9.0, 0.0, 0.0)))
        .unwrap();
    let ball = w
        .insert(
            BodyDesc::fixed()
                .ball(1.0)
                .position(Vector3::new(0.0, 5.0, 0.0)),
        )
        .unwrap();
    let (h, hit) = w
        .cast_ray(&Ray::new(Point3::origin(), Vector3::x()), 100.0)
        .unwrap();
    assert_eq!(h, near);
    assert!((hit.toi - 4.5).abs() < 1e-5 && hit.normal == -Vector3::x());
    let (h, hit) = w
        .cast_ray(&Ray::new(Point3::origin(), Vector3::y()), 100.0)
        .unwrap();
    assert_eq!(h, ball);
    assert!((hit.toi - 4.0).abs() < 1e-5);
    assert!(
        w.cast_ray(&Ray::new(Point3::origin(), -Vector3::x()), 100.0)
            .is_none()
    );
    assert!(
        w.cast_ray(&Ray::new(Point3::origin(), Vector3::x()), 4.0)
            .is_none()
    );
    let found = w.query_aabb(&Aabb::new(
        Point3::new(-1.0, -1.0, -1.0),
        Point3::new(6.0, 6.0, 1.0),
    ));
    assert_eq!(found, vec![near, ball]);
}

/// A cube (half size 0.5) flying at a static cube (half size 0.5): `r_a + r_b = 1`, so at
/// `dt = 0.02` the limit of `Response::Reflect` is 50 m/s. The worst case starts just short of
/// touching, so that the first overlapping step is as deep as the speed allows.
fn fly_at_the_wall(mut w: World, speed: Real) -> Real {
    let dt = w.config().dt;
    w.insert(BodyDesc::fixed().position(Vector3::new(10.0, 0.0, 0.0)))
        .unwrap();
    let start = 9.0 - 1e-3;
    let h = w
        .insert(
            BodyDesc::dynamic()
                .position(Vector3::new(start, 0.0, 0.0))
                .linvel(Vector3::new(speed, 0.0, 0.0)),
        )
        .unwrap();
    for _ in 0..(20.0 / (speed * dt)) as usize + 10 {
        w.step();
    }
    w.body(h).unwrap().position().x
}

/// Two unit cubes in free space (no gravity) `gap` apart along x, the first at `speeds.0`, the
/// second at `speeds.1` (along x). Returns the world after one step and the two handles.
fn two_flying_cubes(gap: Real, speeds: (Real, Real)) -> (World, BodyHandle, BodyHandle) {
    let mut w = world();
    let mut cube = |x: Real, speed: Real| {
        w.insert(
            BodyDesc::dynamic()
                .position(Vector3::new(x, 0.0, 0.0))
                .linvel(Vector3::new(speed, 0.0, 0.0)),
        )
        .unwrap()
    };
    let (a, b) = (cube(0.0, speeds.0), cube(1.0 + gap, speeds.1));
    w.step();
    (w, a, b)
}

#[test]
fn the_speculative_margin_grows_with_the_closing_speed() {
    // 100 m/s is 1.67 m a step at 60 Hz; the pairs start 0.5 m apart.
    // Side by side at the same speed: they cannot close, so no speculative contact.
    let (w, ..) = two_flying_cubes(0.5, (100.0, 100.0));
    assert_eq!(w.stage_counts().touching, 0, "a pair that cannot close");
    // One at rest, the other flying at it: a contact before they touch.
    let (w, ..) = two_flying_cubes(0.5, (0.0, -100.0));
    assert_eq!(w.stage_counts().touching, 1, "a pair closing at 100 m/s");
    // The faster one behind: closing at 50 m/s, 0.83 m a step.
    let (w, ..) = two_flying_cubes(0.5, (150.0, 100.0));
    assert_eq!(w.stage_counts().touching, 1, "a pair closing at 50 m/s");
    // Flying apart at 100 m/s: each AABB is swept along its own step, away from the other,
    // so the pair is not even tested.
    let (w, ..) = two_flying_cubes(0.5, (-100.0, 0.0));
    assert_eq!(w.stage_counts().pairs, 0, "a pair flying apart");
}

#[test]
fn cubes_meeting_head_on_stop_at_contact() {
    // 100 m/s each is 1.67 m a step at 60 Hz; they start 0.5 m apart.
    let (mut w, a, b) = two_flying_cubes(0.5, (100.0, -100.0));
    assert_eq!(w.stage_counts().touching, 1, "a pair closing at 200 m/s");
    for _ in 0..30 {
        let (xa, xb) = (
            w.body(a).unwrap().position().x,
            w.body(b).unwrap().position().x,
        );
        assert!(xb - xa > 1.0 - 1e-3, "passed into each other: {xa} {xb}");
        w.step();
    }
}

#[test]
fn speed_limit_of_discrete_steps() {
    // Reflect: just under the limit the cube bounces back; well over it, it passes through.
    assert!(
        fly_at_the_wall(reflect_world(), 0.99 * 50.0) < 9.0,
        "bounced back"
    );
    assert!(
        fly_at_the_wall(reflect_world(), 2.5 * 50.0) > 11.0,
        "tunnelled, as documented"
    );
    // The solver's speculative margin grows with speed: the same cube at 125 m/s (and at
    // 1,000 m/s, 17 m a step) stops at the wall.
    for speed in [2.5 * 50.0, 1_000.0] {
        let x = fly_at_the_wall(world(), speed);
        assert!(x < 9.0 + 1e-3, "{speed} m/s: ended at x = {x}");
    }
}

#[test]
fn the_profile_times_each_stage_of_the_last_step_and_changes_nothing() {
    let build = || {
        let mut w = world();
        for k in 0..20 {
            w.insert(
                BodyDesc::dynamic()
                    .position(Vector3::new(0.0, 0.5 + 1.01 * k as Real, 0.0))
                    .cuboid(Vector3::new(0.5, 0.5, 0.5)),
            )
            .expect("a valid body");
        }
        w
    };
    let (mut timed, mut untimed) = (build(), build());
    assert_eq!(*timed.profile(), StepProfile::default());
    for _ in 0..30 {
        timed.step();
        let profile = *timed.profile();
        let stages: std::time::Duration = profile.stages().iter().map(|(_, t)| *t).sum();
        assert!(profile.total > std::time::Duration::ZERO);
        assert!(stages <= profile.total, "{profile:?}");
        assert!(profile.solver_solve > std::time::Duration::ZERO);
        untimed.step();
    }
    // The clock is read, never used: both worlds are the same bits.
    assert_eq!(timed.state_hash(), untimed.state_hash());
    // Without the solver, its stages take no time.
    let mut reflect = reflect_world();
    reflect.step();
    let profile = *reflect.profile();
    assert!(profile.total > std::time::Duration::ZERO);
    assert_eq!(
        profile.solver_place + profile.solver_solve,
        std::time::Duration::ZERO
    );
}
