//! Triangle meshes and heightfields as level geometry (`geom::mesh`, `collide`'s surface
//! contacts): no ghost bumps where triangles meet, the same rest as on a box, nothing through
//! at 100 m/s, ray casts equal to a scan of every triangle, meshes saved once and restored
//! shared, and bad surfaces refused by name.

mod common;

use minirigid::collide::{RayHit, ray_triangle};
use minirigid::prelude::*;
use minirigid::world::SNAPSHOT_VERSION;
use std::sync::Arc;
use testbed::SplitMix;
use testbed::surfaces::{grid_shape, heightfield, sliders};

/// A flat floor at `y = 0`: a mesh of 100 x 50 unit cells (10,000 triangles), or a
/// heightfield of the same size, frictionless.
fn floor(field: bool) -> World {
    let mut world = World::new(WorldConfig::default());
    let shape = if field {
        heightfield(51, 101, 100.0, |_, _| 0.0)
    } else {
        grid_shape(100, 50, 1.0, |_, _| 0.0)
    };
    world
        .insert(BodyDesc::fixed().shape(shape).friction(0.0))
        .expect("a floor");
    world
}

#[test]
fn a_box_and_a_ball_cross_a_flat_mesh_and_a_heightfield_without_a_bump() {
    for field in [false, true] {
        let mut world = floor(field);
        let (cube, ball) = sliders(&mut world);
        let (mut cube_vy, mut cube_spin, mut ball_vy) = (0.0 as Real, 0.0 as Real, 0.0 as Real);
        let mut restored = None;
        for step in 0..540 {
            world.step();
            let (c, b) = (world.body(cube).unwrap(), world.body(ball).unwrap());
            if step >= 10 {
                cube_vy = cube_vy.max(c.linvel().y.abs());
                cube_spin = cube_spin.max(c.angvel().norm());
                ball_vy = ball_vy.max(b.linvel().y.abs());
            }
            if step == 200 {
                restored = Some(World::from_bytes(&world.to_bytes().unwrap()).unwrap());
            }
            if let Some(r) = restored.as_mut().filter(|_| step > 200) {
                r.step();
                assert_eq!(r.state_hash(), world.state_hash(), "lockstep at {step}");
            }
        }
        let c = world.body(cube).unwrap();
        // 45 m in 9 s: it crossed 45 cells and 90 diagonals at full speed.
        assert!((c.position().x - 0.0).abs() < 0.05, "{}", c.position().x);
        assert!((c.linvel().x - 5.0).abs() < 1e-3);
        assert!(
            cube_vy < 0.01,
            "field {field}: the cube bumped: {cube_vy} m/s"
        );
        assert!(
            cube_spin < 0.01,
            "field {field}: the cube spun: {cube_spin} rad/s"
        );
        assert!(
            ball_vy < 0.01,
            "field {field}: the ball bumped: {ball_vy} m/s"
        );
    }
}

/// Where a unit cube dropped from 0.6 m rests after 2 s on `floor`'s top at `y = 0`.
fn rest_height(floor: BodyDesc) -> Real {
    let mut world = World::new(WorldConfig::default());
    world.insert(floor).unwrap();
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.5))
                .position(Vector3::new(0.3, 0.6, -0.2)),
        )
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    world.body(cube).unwrap().position().y
}

#[test]
fn a_box_rests_on_a_mesh_and_a_heightfield_where_it_rests_on_a_box() {
    let on_box = rest_height(
        BodyDesc::fixed()
            .cuboid(Vector3::new(5.0, 0.5, 5.0))
            .position(Vector3::new(0.0, -0.5, 0.0)),
    );
    let on_mesh = rest_height(BodyDesc::fixed().shape(grid_shape(10, 10, 1.0, |_, _| 0.0)));
    let on_field = rest_height(BodyDesc::fixed().shape(heightfield(11, 11, 10.0, |_, _| 0.0)));
    assert!((on_box - 0.5).abs() < 0.01, "{on_box}");
    assert!(
        (on_mesh - on_box).abs() < 1e-3,
        "{on_mesh} against {on_box}"
    );
    assert!(
        (on_field - on_box).abs() < 1e-3,
        "{on_field} against {on_box}"
    );
}

#[test]
fn nothing_passes_through_a_mesh_or_a_heightfield_at_100_m_s() {
    for field in [false, true] {
        let mut world = World::new(WorldConfig::default());
        let ground = if field {
            heightfield(21, 21, 20.0, |_, _| 0.0)
        } else {
            grid_shape(20, 20, 1.0, |_, _| 0.0)
        };
        world.insert(BodyDesc::fixed().shape(ground)).unwrap();
        // A wall at x = 8 facing -x: the grid's +y turned to -x.
        let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_2);
        world
            .insert(
                BodyDesc::fixed()
                    .shape(grid_shape(10, 10, 1.0, |_, _| 0.0))
                    .position(Vector3::new(8.0, 5.0, 0.0))
                    .rotation(turn),
            )
            .unwrap();
        let shot = |world: &mut World, desc: BodyDesc, at: Vector3, v: Vector3| {
            world.insert(desc.position(at).linvel(v)).unwrap()
        };
        let down = Vector3::new(0.0, -100.0, 0.0);
        let across = Vector3::new(100.0, 0.0, 0.0);
        let cube = BodyDesc::dynamic().cuboid(Vector3::repeat(0.25));
        let ball = BodyDesc::dynamic().ball(0.25);
        let falling = [
            shot(&mut world, cube.clone(), Vector3::new(0.0, 5.0, 0.0), down),
            shot(&mut world, ball.clone(), Vector3::new(2.0, 5.0, 0.0), down),
        ];
        let flying = [
            shot(&mut world, cube, Vector3::new(-5.0, 2.0, 0.0), across),
            shot(&mut world, ball, Vector3::new(-5.0, 3.0, 2.0), across),
        ];
        for _ in 0..120 {
            world.step();
            for h in falling {
                let y = world.body(h).unwrap().position().y;
                assert!(y > 0.2, "field {field}: fell to {y}");
            }
            for h in flying {
                let x = world.body(h).unwrap().position().x;
                assert!(x < 7.8, "field {field}: went to {x}");
            }
        }
    }
}

/// The closest hit of `ray` on the triangles `each` visits: the scan the hierarchy replaces.
fn scan(ray: &Ray, limit: Real, each: impl Iterator<Item = [Point3; 3]>) -> Option<RayHit> {
    let mut best: Option<RayHit> = None;
    for tri in each {
        if let Some(hit) = ray_triangle(ray, &tri, limit)
            && best.is_none_or(|b| hit.toi < b.toi)
        {
            best = Some(hit);
        }
    }
    best
}

#[test]
fn ray_casts_equal_a_scan_of_every_triangle() {
    let bumps = |x: Real, z: Real| 0.6 * (0.7 * x).sin() * (0.5 * z).cos();
    let shapes = [
        grid_shape(20, 20, 1.0, bumps),
        heightfield(21, 17, 20.0, bumps),
    ];
    let pose = Isometry3::new(Vector3::new(1.0, -0.5, 2.0), Vector3::new(0.1, 0.4, -0.05));
    let mut rng = SplitMix(11);
    let mut hits = 0;
    for shape in shapes {
        let mut world = World::new(WorldConfig::default());
        let body = world
            .insert(BodyDesc::fixed().shape(shape.clone()).pose(pose))
            .unwrap();
        // The pose as the world keeps it (its rotation renormalised).
        let pose = world.collider_pose(body).unwrap();
        // In the surface's frame, where the cast tests them.
        let triangles: Vec<[Point3; 3]> = match &shape {
            Shape::TriMesh { mesh } => (0..mesh.triangles().len() as u32)
                .map(|t| mesh.triangle(t).vertices)
                .collect(),
            Shape::HeightField { field } => (0..2 * 20 * 16)
                .map(|t| field.triangle(t).vertices)
                .collect(),
            _ => unreachable!(),
        };
        for _ in 0..5_000 {
            let origin = Point3::new(
                rng.unit() * 30.0 - 15.0,
                rng.unit() * 6.0 - 1.0,
                rng.unit() * 30.0 - 15.0,
            );
            let dir = rng.unit_vector() * (0.5 + rng.unit());
            let ray = Ray::new(origin, dir);
            let limit = rng.unit() * 40.0;
            let expected = scan(
                &ray.inverse_transformed(&pose),
                limit,
                triangles.iter().copied(),
            );
            let found = world.cast_ray(&ray, limit);
            match (expected, found) {
                (None, None) => {}
                (Some(e), Some((h, f))) => {
                    hits += 1;
                    assert_eq!(h, body);
                    assert_eq!(e.toi, f.toi, "{ray:?}");
                    assert!((pose.rotation * e.normal - f.normal).norm() < 1e-5);
                }
                (e, f) => panic!("{ray:?} within {limit}: scan {e:?}, cast {f:?}"),
            }
        }
    }
    assert!(hits > 1_000, "only {hits} rays hit");
}

#[test]
fn a_mesh_on_many_bodies_is_saved_once_and_restored_shared() {
    let mesh = grid_shape(50, 50, 0.5, |x, z| 0.1 * (x + z).sin());
    let mut world = World::new(WorldConfig::default());
    let tile = |world: &mut World, i: u32| {
        world
            .insert(BodyDesc::fixed().shape(mesh.clone()).position(Vector3::new(
                30.0 * i as Real,
                0.0,
                0.0,
            )))
            .unwrap()
    };
    tile(&mut world, 0);
    let one = world.to_bytes().unwrap().len();
    for i in 1..40 {
        tile(&mut world, i);
    }
    world
        .insert(BodyDesc::fixed().shape(heightfield(9, 9, 8.0, |x, _| 0.1 * x)))
        .unwrap();
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.3)
                .position(Vector3::new(0.2, 1.0, 0.1)),
        )
        .unwrap();
    for _ in 0..30 {
        world.step();
    }
    let bytes = world.to_bytes().unwrap();
    // Forty bodies on one mesh of 5,000 triangles: the mesh once, then a few hundred bytes a
    // body.
    assert!(
        bytes.len() < one + 40 * 400,
        "{} bytes, one mesh {one}",
        bytes.len()
    );
    for restored in [
        World::from_bytes(&bytes).unwrap(),
        World::from_json(&world.to_json().unwrap()).unwrap(),
    ] {
        assert_eq!(restored.state_hash(), world.state_hash());
        let meshes: Vec<_> = restored
            .bodies()
            .filter_map(|(_, b)| match &b.collider().shape {
                Shape::TriMesh { mesh } => Some(Arc::clone(mesh)),
                _ => None,
            })
            .collect();
        assert_eq!(meshes.len(), 40);
        assert!(meshes.iter().all(|m| Arc::ptr_eq(m, &meshes[0])));
        let mut restored = restored;
        let mut original = World::from_bytes(&bytes).unwrap();
        for _ in 0..30 {
            restored.step();
            original.step();
        }
        assert_eq!(restored.state_hash(), original.state_hash());
        assert!(restored.body(ball).unwrap().position().y > 0.2);
    }
}

#[test]
fn bad_surfaces_are_refused_by_name() {
    let ok = || grid_shape(2, 2, 1.0, |_, _| 0.0);
    let tri = |v: Vec<Point3>, t: Vec<[u32; 3]>| Shape::trimesh(v, t).unwrap_err().to_string();
    let (a, b, c) = (
        Point3::origin(),
        Point3::new(1.0, 0.0, 0.0),
        Point3::new(0.0, 0.0, 1.0),
    );
    assert_eq!(
        tri(
            vec![a, Point3::new(1.0, Real::NAN, 0.0), c],
            vec![[0, 2, 1]]
        ),
        "vertices[1].y must be finite, got NaN"
    );
    assert_eq!(
        tri(vec![a, b, c], vec![[0, 2, 1], [0, 7, 1]]),
        "triangles[1][1] = 7 is out of range: there are 3 entries"
    );
    assert_eq!(
        tri(vec![a, b, c], vec![[0, 2, 2]]),
        "triangles[0] are degenerate: its corners are repeated or on one line"
    );
    assert_eq!(
        tri(vec![a, b, Point3::new(2.0, 0.0, 0.0)], vec![[0, 1, 2]]),
        "triangles[0] are degenerate: its corners are repeated or on one line"
    );
    assert_eq!(
        tri(vec![a, b, c], vec![]),
        "triangles needs at least 1 entries, got 0"
    );
    let field = |rows, cols, h: Vec<Real>, s| {
        Shape::heightfield(rows, cols, h, s)
            .unwrap_err()
            .to_string()
    };
    let unit = Vector3::new(1.0, 1.0, 1.0);
    assert_eq!(
        field(1, 2, vec![0.0; 2], unit),
        "rows needs at least 2 entries, got 1"
    );
    assert_eq!(
        field(2, 2, vec![0.0; 3], unit),
        "heights are degenerate: there must be rows * columns of them"
    );
    assert_eq!(
        field(2, 2, vec![0.0, 0.0, Real::INFINITY, 0.0], unit),
        "heights[2] must be finite, got inf"
    );
    assert_eq!(
        field(2, 2, vec![0.0; 4], Vector3::new(0.0, 1.0, 1.0)),
        "scale.x must be positive, got 0"
    );
    // A surface cannot be pushed: a dynamic body with one is refused, the world unchanged.
    let mut world = World::new(WorldConfig::default());
    let before = world.state_hash();
    let error = world
        .insert(BodyDesc::dynamic().shape(ok()).mass(1.0))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "desc.shape: a triangle mesh or heightfield needs a static or kinematic body"
    );
    assert_eq!(world.len(), 0);
    assert_eq!(world.state_hash(), before);
    world.insert(BodyDesc::kinematic().shape(ok())).unwrap();
}

#[test]
fn hostile_surface_snapshots_are_refused() {
    let mut world = World::new(WorldConfig::default());
    world
        .insert(BodyDesc::fixed().shape(grid_shape(2, 2, 1.0, |_, _| 0.0)))
        .unwrap();
    let json = world.to_json().unwrap();
    // A shape naming a mesh the table lacks.
    let bad = json.replace("\"Index\": 0", "\"Index\": 5");
    assert_ne!(bad, json);
    let error = World::from_json(&bad).unwrap_err().to_string();
    assert!(error.contains("mesh index 5 names no entry"), "{error}");
    // A mesh in the table with a triangle out of range.
    let bad = json.replacen("        8\n", "        80\n", 1);
    assert_ne!(bad, json);
    let error = World::from_json(&bad).unwrap_err().to_string();
    assert!(
        error.contains("is out of range: there are 9 entries"),
        "{error}"
    );
    // Every truncation of the binary form fails cleanly.
    common::every_truncation_fails(&world.to_bytes().unwrap());
}

/// The hash of the level (a heightfield, a ramp, stairs, 24 boxes and balls) after 200 steps,
/// and after the same steps on two threads and at one lane. It changes only when the
/// simulation's results change on purpose or on a platform whose floating point differs. To
/// update: run this test, read the hash it prints, and set `PINNED` in the change that
/// explains why.
const PINNED: u64 = 0x1bef_7fa6_5c28_9bcf;

#[test]
fn the_level_is_pinned_and_the_same_on_any_thread_count_and_lane_width() {
    let hash = common::hash_on_any_thread_count(200, || testbed::surfaces::level(24).0);
    assert_eq!(
        hash, PINNED,
        "the level's state after 200 steps changed (hash {hash:#018x}). If the change is \
         intended, set PINNED in tests/surfaces.rs to {hash:#018x}."
    );
}

/// Writes the fuzz target's surface seeds (`fuzz/seeds/level.bin` and `.json`: a small
/// heightfield, a ramp and stairs, a few bodies mid-contact): run with `--ignored` after a
/// format change.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let mut world = World::new(WorldConfig::default());
    world
        .insert(BodyDesc::fixed().shape(heightfield(5, 4, 6.0, |x, z| 0.1 * x * z)))
        .unwrap();
    let ramp = testbed::surfaces::ramp(-2.0, 0.0, -1.0, 1.0, 0.5);
    for x in [-3.0, 3.0] {
        world
            .insert(
                BodyDesc::fixed()
                    .shape(ramp.clone())
                    .position(Vector3::new(x, 0.0, 0.0)),
            )
            .unwrap();
    }
    for i in 0..4 {
        let desc = if i % 2 == 0 {
            BodyDesc::dynamic().cuboid(Vector3::repeat(0.2))
        } else {
            BodyDesc::dynamic().ball(0.2)
        };
        world
            .insert(desc.position(Vector3::new(i as Real - 1.5, 1.0, 0.3)))
            .unwrap();
    }
    for _ in 0..40 {
        world.step();
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    std::fs::write(dir.join("level.bin"), world.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("level.json"), world.to_json().unwrap()).unwrap();
}

#[test]
fn a_mesh_claiming_a_billion_triangles_fails_fast() {
    let mut world = World::new(WorldConfig::default());
    world
        .insert(BodyDesc::fixed().shape(grid_shape(2, 2, 1.0, |_, _| 0.0)))
        .unwrap();
    let bytes = world.to_bytes().unwrap();
    // The table: one mesh of 9 vertices (108 bytes of floats), then its 8 triangles.
    let at = (0..bytes.len() - 111)
        .find(|&i| bytes[i] == 1 && bytes[i + 1] == 9 && bytes[i + 110] == 8)
        .expect("the mesh table");
    let mut hostile = bytes[..at + 110].to_vec();
    hostile.extend_from_slice(&[0x80, 0x94, 0xeb, 0xdc, 0x03]);
    hostile.extend_from_slice(&[0, 1, 2].repeat(1_000));
    assert!(World::from_bytes(&hostile).is_err());
    // Within the limit of triangles but past the data: refused as truncated.
    let mut hostile = bytes[..at + 110].to_vec();
    hostile.extend_from_slice(&[0x80, 0x80, 0x80, 0x01]);
    assert!(World::from_bytes(&hostile).is_err());
}

#[test]
fn a_box_rides_a_kinematic_mesh_and_a_ball_rolls_down_a_heightfield_slope() {
    // Without rolling resistance, so that the ball rolls as a textbook sphere.
    let mut config = WorldConfig::default();
    config.solver.rolling_resistance = 0.0;
    let mut world = World::new(config);
    let platform = world
        .insert(
            BodyDesc::kinematic()
                .shape(grid_shape(4, 4, 1.0, |_, _| 0.0))
                .linvel(Vector3::new(1.0, 0.0, 0.0)),
        )
        .unwrap();
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.25))
                .position(Vector3::new(0.0, 0.3, 0.0)),
        )
        .unwrap();
    // A 10-degree slope facing +x as a heightfield, away from the platform.
    let slope = (10.0 as Real).to_radians().tan();
    world
        .insert(
            BodyDesc::fixed()
                .shape(heightfield(9, 9, 8.0, move |x, _| -slope * x))
                .position(Vector3::new(0.0, -20.0, 30.0)),
        )
        .unwrap();
    let ball = world
        .insert(BodyDesc::dynamic().ball(0.25).position(Vector3::new(
            -3.0,
            -20.0 + 3.0 * slope + 0.26,
            30.0,
        )))
        .unwrap();
    let gap = |world: &World| {
        world.body(cube).unwrap().position().x - world.body(platform).unwrap().position().x
    };
    for _ in 0..60 {
        world.step();
    }
    // Caught up by friction within the first second (slipping back about 12 cm meanwhile),
    // then carried: the gap holds and the cube moves with the platform, resting on it.
    let caught = gap(&world);
    for _ in 0..60 {
        world.step();
    }
    let c = world.body(cube).unwrap();
    assert!(
        (gap(&world) - caught).abs() < 1e-3,
        "{caught} then {}",
        gap(&world)
    );
    assert!((c.linvel().x - 1.0).abs() < 1e-3, "{:?}", c.linvel());
    assert!((c.position().y - 0.25).abs() < 1e-3, "{:?}", c.position());
    // A rolling ball on an incline accelerates at 5/7 g sin(theta) along it (within 1%).
    let b = world.body(ball).unwrap();
    let along = b.linvel().x / (10.0 as Real).to_radians().cos();
    let expected = 5.0 / 7.0 * 9.81 * (10.0 as Real).to_radians().sin() * 2.0;
    assert!(
        (along - expected).abs() < 0.01 * expected,
        "{along} against {expected}"
    );
}

#[test]
fn a_ball_and_a_box_come_to_rest_in_a_crease_between_two_slopes() {
    // A valley along z, its sides 31 degrees (`y = 0.6 |x|`): each shape meets both sides,
    // a manifold each. With one manifold a pair they took turns and never slept.
    let mut world = World::new(WorldConfig::default());
    let valley = grid_shape(8, 8, 1.0, |x, _| 0.6 * x.abs());
    world.insert(BodyDesc::fixed().shape(valley)).unwrap();
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.6, 0.2, 0.3))
                .position(Vector3::new(0.1, 1.5, 0.0)),
        )
        .unwrap();
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.3)
                .position(Vector3::new(0.3, 1.5, 2.0)),
        )
        .unwrap();
    for _ in 0..600 {
        world.step();
    }
    let (c, b) = (world.body(cube).unwrap(), world.body(ball).unwrap());
    assert!(
        c.is_sleeping() && b.is_sleeping(),
        "{:?} {:?}",
        c.linvel(),
        b.linvel()
    );
    // Lying across the V, its bottom's edges on the two sides: 0.6 * 0.6 + 0.2 up.
    assert!((c.position().y - 0.56).abs() < 0.01, "{:?}", c.position());
    // Touching both sides: 0.3 / cos(31 degrees) up.
    let rest = 0.3 * (1.0 + 0.6 * 0.6 as Real).sqrt();
    assert!(
        (b.position().y - rest).abs() < 0.005,
        "{:?} against {rest}",
        b.position()
    );
}

#[test]
fn a_heightfield_is_solid_ground_and_pushes_up_what_sinks_under_it() {
    // A ball and a box put half a metre under a flat heightfield come back up to rest on it;
    // under a mesh they would stay (a mesh is a one-sided sheet).
    let mut world = World::new(WorldConfig::default());
    world
        .insert(BodyDesc::fixed().shape(heightfield(11, 11, 10.0, |_, _| 0.0)))
        .unwrap();
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.25)
                .position(Vector3::new(1.0, -0.5, 0.0)),
        )
        .unwrap();
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::repeat(0.25))
                .position(Vector3::new(-1.0, -0.5, 0.0)),
        )
        .unwrap();
    for _ in 0..180 {
        world.step();
    }
    for h in [ball, cube] {
        let y = world.body(h).unwrap().position().y;
        assert!((y - 0.25).abs() < 0.01, "{y}");
    }
}

#[test]
fn version_7_snapshots_load_as_they_are_and_step_as_they_did() {
    // The level of 32 bodies (a heightfield and two meshes in the surface table), stepped 40
    // steps by the build before capsules and saved in format 7. That build reached
    // 0x54f076d5a6c09785 60 steps later; this one does too, and saves it in the current version.
    let bytes = include_bytes!("data/v7-level.bin");
    let mut world = World::from_bytes(bytes).unwrap();
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.state_hash(), 0x54f0_76d5_a6c0_9785);
    common::every_truncation_fails(&bytes[..]);
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.snapshot().version, SNAPSHOT_VERSION);
    assert_eq!(again.state_hash(), world.state_hash());
    // And through JSON.
    let json = World::from_bytes(bytes).unwrap().to_json().unwrap();
    assert!(json.contains(&format!("\"version\": {SNAPSHOT_VERSION}")));
}
