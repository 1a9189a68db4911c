//! Convex hulls in the world: a pyramid of hulls made from cubes' corners stands as the box
//! pyramid does, a die thrown on the floor comes to rest on a face, a wedge (its centre of mass
//! off its origin) rests on its broad face, hulls rest on a mesh, a pile restores bit for bit,
//! and bad hulls are refused by name, from code and from snapshots.

mod common;

use minirigid::collide::{AxisCache, AxisFeature, ray_volume};
use minirigid::prelude::*;
use minirigid::world::CachedAxis;
use testbed::scenes::ground;
use testbed::surfaces::grid_shape;

/// The corners of a box of half extents `h`.
fn corners(h: Vector3) -> Vec<Point3> {
    (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            Point3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
        })
        .collect()
}

/// Box3D's pyramid of base 20 (210 cubes), of boxes or of hulls of their corners: after 300
/// steps, the farthest any block moved from where it started.
fn pyramid_drift(hulls: bool) -> Real {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 50.0);
    let h = 0.5;
    let cube = Shape::convex_hull(&corners(Vector3::repeat(h))).unwrap();
    let mut blocks = Vec::new();
    let base = 20;
    for i in 0..base {
        for j in i..base {
            let at = Vector3::new(
                -0.5 * base as Real + (i + 1) as Real * h + 2.0 * (j - i) as Real * h,
                (2 * i + 1) as Real * h,
                0.0,
            );
            let desc = if hulls {
                BodyDesc::dynamic().shape(cube.clone())
            } else {
                BodyDesc::dynamic().cuboid(Vector3::repeat(h))
            };
            blocks.push((world.insert(desc.position(at)).unwrap(), at));
        }
    }
    for _ in 0..300 {
        world.step();
    }
    blocks
        .iter()
        .map(|(b, at)| (world.body(*b).unwrap().position().coords - at).norm())
        .fold(0.0, Real::max)
}

#[test]
fn a_pyramid_of_hulls_stands_as_the_box_pyramid_does() {
    let (boxes, hulls) = (pyramid_drift(false), pyramid_drift(true));
    assert!(boxes < 0.01, "boxes moved {boxes} m");
    assert!(hulls < 0.01, "hulls moved {hulls} m (boxes {boxes} m)");
}

#[test]
fn a_die_thrown_on_the_floor_rests_on_a_face() {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 20.0);
    // A die with bevelled corners: 24 points, 14 faces.
    let mut points = Vec::new();
    for c in corners(Vector3::repeat(1.0)) {
        for k in 0..3 {
            let mut p = c.coords * 0.25;
            p[k] *= 0.8;
            points.push(Point3::from(p));
        }
    }
    let die = Shape::convex_hull(&points).unwrap();
    let Shape::ConvexHull { hull } = &die else {
        unreachable!()
    };
    assert_eq!((hull.vertices().len(), hull.faces().len()), (24, 14));
    let handle = world
        .insert(
            BodyDesc::dynamic()
                .shape(die)
                .position(Vector3::new(0.0, 1.0, 0.0))
                .rotation(UnitQuaternion::from_euler_angles(0.4, 0.9, 0.2))
                .linvel(Vector3::new(3.0, 1.0, 0.5))
                .angvel(Vector3::new(4.0, -6.0, 9.0)),
        )
        .unwrap();
    for _ in 0..600 {
        world.step();
    }
    let body = world.body(handle).unwrap();
    assert!(body.is_sleeping(), "awake after 10 s: {:?}", body.linvel());
    // On a face: one of its axes straight up, its centre a half side above the floor.
    let up = (0..3)
        .map(|k| (body.pose().rotation * Vector3::ith(k, 1.0)).y.abs())
        .fold(0.0, Real::max);
    assert!(up > 1.0 - 1e-4, "tilted: {up}");
    assert!(
        (body.position().y - 0.25).abs() < 0.01,
        "{:?}",
        body.position()
    );
}

#[test]
fn a_wedge_rests_on_its_broad_face_about_its_centre_of_mass() {
    // A wedge: a right triangle (legs 2 m along x and 1 m along y) extruded 1 m along z; its
    // origin at the right angle, its centroid at (2/3, 1/3).
    let mut points = Vec::new();
    for z in [-0.5, 0.5] {
        points.extend([
            Point3::new(0.0, 0.0, z),
            Point3::new(2.0, 0.0, z),
            Point3::new(0.0, 1.0, z),
        ]);
    }
    let wedge = Shape::convex_hull(&points).unwrap();
    let props = wedge.mass_properties(1.0);
    assert!((props.mass - 1.0).abs() < 1e-5);
    assert!((props.center - Point3::new(2.0 / 3.0, 1.0 / 3.0, 0.0)).norm() < 1e-5);
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 20.0);
    let handle = world
        .insert(
            BodyDesc::dynamic()
                .shape(wedge)
                .position(Vector3::new(0.0, 0.05, 0.0))
                .density(500.0),
        )
        .unwrap();
    assert!((world.body(handle).unwrap().mass() - 500.0).abs() < 1e-2);
    let centre = world.body(handle).unwrap().center_of_mass();
    assert!((centre - Point3::new(2.0 / 3.0, 0.05 + 1.0 / 3.0, 0.0)).norm() < 1e-5);
    for _ in 0..300 {
        world.step();
    }
    let body = world.body(handle).unwrap();
    assert!(body.is_sleeping());
    assert!(body.position().y.abs() < 0.01, "{:?}", body.position());
    assert!(body.pose().rotation.angle() < 1e-3);
}

/// Hulls (wedges, dice, long rocks) poured on a mesh floor inside four walls.
fn pile(steps: usize) -> World {
    let mut world = World::new(WorldConfig::default());
    world
        .insert(BodyDesc::fixed().shape(grid_shape(8, 8, 1.0, |_, _| 0.0)))
        .unwrap();
    for (half, at) in [
        (Vector3::new(0.25, 1.0, 4.0), Vector3::new(-3.25, 1.0, 0.0)),
        (Vector3::new(0.25, 1.0, 4.0), Vector3::new(3.25, 1.0, 0.0)),
        (Vector3::new(4.0, 1.0, 0.25), Vector3::new(0.0, 1.0, -3.25)),
        (Vector3::new(4.0, 1.0, 0.25), Vector3::new(0.0, 1.0, 3.25)),
    ] {
        world
            .insert(BodyDesc::fixed().cuboid(half).position(at))
            .unwrap();
    }
    let mut rng = testbed::SplitMix(5);
    for i in 0..30 {
        let points: Vec<Point3> = (0..12)
            .map(|_| {
                let p = rng.point(1.0).coords;
                Point3::new(0.4 * p.x, 0.25 * p.y, (0.2 + 0.1 * (i % 3) as Real) * p.z)
            })
            .collect();
        let at = Vector3::new(
            (i % 5) as Real - 2.0,
            0.6 + 0.7 * (i / 5) as Real,
            ((i / 5) % 2) as Real - 0.5,
        );
        world
            .insert(
                BodyDesc::dynamic()
                    .shape(Shape::convex_hull(&points).unwrap())
                    .position(at)
                    .rotation(rng.rotation()),
            )
            .unwrap();
    }
    for _ in 0..steps {
        world.step();
    }
    world
}

#[test]
fn a_pile_of_hulls_on_a_mesh_comes_to_rest_and_restores_bit_for_bit() {
    let mut world = pile(60);
    let mut from_bytes = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    let mut from_json = World::from_json(&world.to_json().unwrap()).unwrap();
    common::step_in_lockstep(&mut world, &mut from_json, &mut from_bytes, 120);
    for _ in 0..600 {
        world.step();
    }
    let down = |p: Point3| Ray::new(Point3::new(p.x, 10.0, p.z), -Vector3::y());
    for (_, body) in world.bodies() {
        if body.kind() != BodyKind::Dynamic {
            continue;
        }
        assert!(body.is_sleeping(), "awake after 13 s: {:?}", body.linvel());
        // Nothing under the floor: a ray down onto the body meets it above y = 0.
        let volume = body
            .collider()
            .shape
            .world(&body.collider().world_pose(body.pose()));
        let hit = ray_volume(&down(body.center_of_mass()), &volume, 20.0);
        assert!(
            hit.is_some_and(|h| h.point.y > 0.0),
            "{:?}",
            body.position()
        );
    }
}

#[test]
fn bad_hulls_are_refused_by_name_from_code_and_from_files() {
    let flat = [
        Point3::origin(),
        Point3::new(1.0, 0.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
        Point3::new(1.0, 1.0, 0.0),
    ];
    let e = Shape::convex_hull(&flat).unwrap_err().to_string();
    assert!(
        e.contains("points are degenerate: they lie in one plane"),
        "{e}"
    );
    let e = Shape::convex_hull(&flat[..2]).unwrap_err().to_string();
    assert!(e.contains("points needs at least 4 entries"), "{e}");
    // A snapshot whose hull has a NaN vertex, or whose vertices lie in a plane, is refused by
    // name; the good one loads and hashes as saved.
    // (A world without meshes: re-encoding through serde_json's map sorts the keys, and a
    // mesh table must come before the bodies.)
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 5.0);
    world
        .insert(
            BodyDesc::dynamic().shape(Shape::convex_hull(&corners(Vector3::repeat(0.5))).unwrap()),
        )
        .unwrap();
    let json = world.to_json().unwrap();
    assert_eq!(
        World::from_json(&json).unwrap().state_hash(),
        world.state_hash()
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let with_first_hull = |change: &dyn Fn(&mut Vec<serde_json::Value>)| {
        fn visit(v: &mut serde_json::Value, change: &dyn Fn(&mut Vec<serde_json::Value>)) -> bool {
            match v {
                serde_json::Value::Object(map) => {
                    if let Some(serde_json::Value::Array(vertices)) = map
                        .get_mut("ConvexHull")
                        .and_then(|hull| hull.get_mut("hull"))
                    {
                        change(vertices);
                        return true;
                    }
                    map.values_mut().any(|x| visit(x, change))
                }
                serde_json::Value::Array(items) => items.iter_mut().any(|x| visit(x, change)),
                _ => false,
            }
        }
        let mut v = value.clone();
        assert!(visit(&mut v, change), "no hull in the snapshot");
        serde_json::to_string(&v).unwrap()
    };
    // JSON has no NaN: a vertex of strings, a vertex of two numbers.
    let nan = with_first_hull(&|vertices| vertices[1] = serde_json::json!(["NaN", 0.0, 0.0]));
    assert!(World::from_json(&nan).is_err());
    let short = with_first_hull(&|vertices| vertices[1] = serde_json::json!([0.5, 0.0]));
    assert!(World::from_json(&short).is_err());
    let coplanar = with_first_hull(&|vertices| {
        for v in vertices.iter_mut() {
            v[1] = serde_json::json!(0.0);
        }
    });
    let e = World::from_json(&coplanar).unwrap_err().to_string();
    assert!(e.contains("hull: points are degenerate"), "{e}");
}

#[test]
#[ignore = "writes the fuzz target's seeds with capsules, hulls and compounds: run by hand"]
fn write_fuzz_seeds() {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 5.0);
    let die = Shape::convex_hull(&corners(Vector3::repeat(0.2))).unwrap();
    let bodies = [
        BodyDesc::dynamic().capsule(0.3, 0.1),
        BodyDesc::dynamic().shape(die),
        BodyDesc::dynamic()
            .part(
                Shape::ball(0.1).unwrap(),
                Isometry3::translation(-0.2, 0.0, 0.0),
                2.0,
            )
            .part(
                Shape::ball(0.1).unwrap(),
                Isometry3::translation(0.2, 0.0, 0.0),
                2.0,
            ),
    ];
    for (i, desc) in bodies.into_iter().enumerate() {
        world
            .insert(desc.position(Vector3::new(i as Real - 1.0, 0.5, 0.0)))
            .unwrap();
    }
    for _ in 0..30 {
        world.step();
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    std::fs::write(dir.join("shapes.bin"), world.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("shapes.json"), world.to_json().unwrap()).unwrap();
}

#[test]
fn the_hull_pairs_axes_are_state_kept_in_order_and_the_same_on_any_thread_count() {
    // A convex pile (Box3D's, six layers of 8 x 8): after it lands, the narrow phase has left
    // an axis for its pairs of hulls (and of a hull and the ground box), sorted by pair.
    let build = || testbed::shapes::convex_pile(6).0;
    let hash = common::hash_on_any_thread_count(150, build);
    let mut world = build();
    for _ in 0..150 {
        world.step();
    }
    assert_eq!(world.state_hash(), hash);
    let axes = world.snapshot().axes;
    assert!(axes.len() > 600, "{} axes", axes.len());
    assert!(axes.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
    for entry in &axes {
        let shape = |h| &world.body(h).unwrap().collider().shape;
        assert!(matches!(shape(entry.b), Shape::ConvexHull { .. }));
        assert!(matches!(
            shape(entry.a),
            Shape::ConvexHull { .. } | Shape::Cuboid { .. }
        ));
    }
    // They are state: a world restored without them steps otherwise (its first step tests
    // every pair in full), a world restored with them as the original.
    let mut restored = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    let mut without = world.snapshot();
    without.axes.clear();
    let mut without = World::from_snapshot(without).unwrap();
    assert_ne!(without.state_hash(), world.state_hash());
    for _ in 0..30 {
        world.step();
        restored.step();
        without.step();
    }
    assert_eq!(restored.state_hash(), world.state_hash());
    let moved = |w: &World| {
        w.bodies()
            .map(|(_, b)| b.position().coords)
            .collect::<Vec<_>>()
    };
    assert_ne!(moved(&without), moved(&world));
}

#[test]
fn hostile_cached_axes_are_refused_by_name() {
    let (mut world, hulls) = testbed::shapes::convex_pile(2);
    for _ in 0..120 {
        world.step();
    }
    let good = world.snapshot();
    assert!(good.axes.len() > 2, "{}", good.axes.len());
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .position(Vector3::new(50.0, 1.0, 0.0)),
        )
        .unwrap();
    let other = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .position(Vector3::new(60.0, 1.0, 0.0)),
        )
        .unwrap();
    let with_balls = world.snapshot();
    let gone = {
        let mut w = World::from_snapshot(good.clone()).unwrap();
        let h = w.insert(BodyDesc::dynamic()).unwrap();
        w.remove(h).unwrap();
        h
    };
    type Spoil = Box<dyn Fn(&mut minirigid::world::Snapshot)>;
    let cases: Vec<(Spoil, &str)> = vec![
        (
            Box::new(|s| s.axes[0].axis.separation = Real::NAN),
            "axes[0].axis.separation",
        ),
        (
            Box::new(|s| s.axes[1].axis.separation = 1e30),
            "axes[1].axis.separation",
        ),
        (
            Box::new(|s| s.axes[0].axis.feature = AxisFeature::FaceA(400)),
            "axes[0].axis.feature",
        ),
        (
            Box::new(|s| s.axes[0].axis.feature = AxisFeature::FaceB(u16::MAX)),
            "axes[0].axis.feature",
        ),
        (
            Box::new(|s| s.axes[0].axis.feature = AxisFeature::Edges(0, 5000)),
            "axes[0].axis.feature",
        ),
        (Box::new(|s| s.axes.swap(0, 1)), "axes[1]"),
        (
            Box::new(|s| {
                let first = s.axes[0];
                s.axes.insert(0, first);
            }),
            "axes[1]",
        ),
        (
            Box::new(|s| {
                let e = &mut s.axes[0];
                (e.a, e.b) = (e.b, e.a);
            }),
            "axes[0]",
        ),
        (Box::new(move |s| s.axes[0].b = gone), "axes[0]"),
    ];
    common::spoiled_snapshots_are_refused_by_name(&good, cases);
    // A pair that is no pair of polyhedra: two balls, or a ball and a hull.
    for (a, b) in [(ball, other), (hulls[0].min(ball), hulls[0].max(ball))] {
        let mut snapshot = with_balls.clone();
        let axis = AxisCache::new(AxisFeature::FaceA(0), 0.0);
        snapshot.axes.push(CachedAxis {
            a,
            b,
            parts: [0, 0],
            axis,
        });
        snapshot.axes.sort_by_key(|e| (e.a, e.b));
        let index = snapshot
            .axes
            .iter()
            .position(|e| (e.a, e.b) == (a, b))
            .unwrap();
        let error = World::from_snapshot(snapshot).unwrap_err().to_string();
        assert!(error.contains(&format!("axes[{index}]")), "{error}");
    }
    assert!(World::from_snapshot(good).is_ok());
}
