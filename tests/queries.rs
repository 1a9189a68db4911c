//! Scene queries: shape casts against their closed forms (ball, box, capsule and hull against
//! boxes, balls and planes), casts and overlaps through the broad phase against a scan of
//! every body over 10,000 random queries, casts against a fine sampling of the sweep, casts
//! against a mesh plane and a compound, every
//! ray hit, the closest point, and bad input refused by name.

use minirigid::collide::{
    CAST_TOLERANCE, cast_shape, volume_contact, volume_contact_within, volume_intersects,
};
use minirigid::prelude::*;
use testbed::SplitMix;

/// A world with a ground slab (its top at y = 0), a ball of radius 1 at the origin's side and
/// a box: the targets of the analytic casts.
fn targets() -> (World, BodyHandle, BodyHandle, BodyHandle) {
    let mut world = World::new(WorldConfig::default());
    let ground = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(50.0, 1.0, 50.0))
                .position(Vector3::new(0.0, -1.0, 0.0)),
        )
        .unwrap();
    let ball = world
        .insert(
            BodyDesc::fixed()
                .ball(1.0)
                .position(Vector3::new(20.0, 1.0, 0.0)),
        )
        .unwrap();
    let block = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(1.0, 2.0, 1.0))
                .position(Vector3::new(-20.0, 2.0, 0.0)),
        )
        .unwrap();
    world.step();
    (world, ground, ball, block)
}

fn at(x: Real, y: Real, z: Real) -> Isometry3 {
    Isometry3::translation(x, y, z)
}

fn turned(x: Real, y: Real, z: Real, roll: Real) -> Isometry3 {
    Isometry3::from_parts(
        Vector3::new(x, y, z).into(),
        UnitQuaternion::from_euler_angles(0.0, 0.0, roll),
    )
}

#[test]
fn casts_hit_where_the_closed_forms_say() {
    let (world, ground, ball, block) = targets();
    let all = QueryFilter::default();
    let down = Vector3::new(0.0, -10.0, 0.0);
    let unit_box = Shape::cuboid(Vector3::repeat(0.5)).unwrap();
    let cube_hull = Shape::convex_hull(
        &(0..8)
            .map(|i| {
                Point3::new(
                    if i & 1 == 0 { -0.5 } else { 0.5 },
                    if i & 2 == 0 { -0.5 } else { 0.5 },
                    if i & 4 == 0 { -0.5 } else { 0.5 },
                )
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let capsule = Shape::capsule(0.5, 0.25).unwrap();
    let half_pi = std::f32::consts::FRAC_PI_2;
    let quarter_pi = std::f32::consts::FRAC_PI_4;
    let cases = [
        // A ball of radius 0.5 dropped 10 m from 5 m onto the plane: its centre at 0.5.
        (
            "ball on the plane",
            Shape::Ball { radius: 0.5 },
            at(0.0, 5.0, 0.0),
            down,
            ground,
            0.45,
        ),
        // A ball across the x axis past the ball of radius 1 (centre 1 m up): it meets it
        // when the centres are 1.5 apart, 0.8 m up: 20 - sqrt(1.5^2 - 0.2^2) along x.
        (
            "ball by the ball",
            Shape::Ball { radius: 0.5 },
            at(0.0, 0.8, 0.0),
            Vector3::new(40.0, 0.0, 0.0),
            ball,
            (20.0 - (2.25 as Real - 0.04).sqrt()) / 40.0,
        ),
        (
            "box on the plane",
            unit_box.clone(),
            at(0.0, 3.0, 0.0),
            down,
            ground,
            0.25,
        ),
        (
            "box on its edge on the plane",
            unit_box.clone(),
            turned(0.0, 3.0, 0.0, quarter_pi),
            down,
            ground,
            (3.0 - 0.5 * std::f32::consts::SQRT_2) / 10.0,
        ),
        // The box's bottom face on the top of the ball of radius 1 (at y = 2).
        (
            "box on the ball",
            unit_box.clone(),
            at(20.0, 5.0, 0.0),
            down,
            ball,
            0.25,
        ),
        // The box's side against the block's face at x = -19.
        (
            "box on the box",
            unit_box.clone(),
            at(-10.0, 1.0, 0.0),
            Vector3::new(-20.0, 0.0, 0.0),
            block,
            8.5 / 20.0,
        ),
        (
            "hull on the plane",
            cube_hull.clone(),
            at(0.0, 3.0, 0.0),
            down,
            ground,
            0.25,
        ),
        (
            "hull on the ball",
            cube_hull,
            at(20.0, 5.0, 0.0),
            down,
            ball,
            0.25,
        ),
        (
            "upright capsule on the plane",
            capsule.clone(),
            at(0.0, 3.0, 0.0),
            down,
            ground,
            0.225,
        ),
        (
            "lying capsule on the plane",
            capsule.clone(),
            turned(0.0, 3.0, 0.0, half_pi),
            down,
            ground,
            0.275,
        ),
        // The capsule's lower end (0.75 below its centre) on the ball's top (y = 2).
        (
            "capsule on the ball",
            capsule.clone(),
            at(20.0, 5.0, 0.0),
            down,
            ball,
            0.225,
        ),
        (
            "capsule on the box",
            capsule,
            turned(-10.0, 1.0, 0.0, half_pi),
            Vector3::new(-20.0, 0.0, 0.0),
            block,
            (10.0 - 1.0 - 0.75) / 20.0,
        ),
    ];
    for (name, shape, pose, translation, body, expected) in cases {
        let (hit_body, hit) = world
            .cast_shape(&shape, &pose, translation, &all)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: no hit"));
        assert_eq!(hit_body, body, "{name}");
        assert!(
            (hit.fraction - expected).abs() < 1e-4,
            "{name}: {} against {expected}",
            hit.fraction
        );
        assert!(
            (hit.normal.norm() - 1.0).abs() < 1e-5,
            "{name}: a unit normal"
        );
        assert!(
            hit.normal.dot(&translation) < 0.0,
            "{name}: facing the cast"
        );
    }
    // A plane of two triangles (y = 0.5 over x, z in [30, 40]) and a table of five boxes.
    let mut world = world;
    let plane = world
        .insert(
            BodyDesc::fixed().shape(
                Shape::trimesh(
                    vec![
                        Point3::new(30.0, 0.5, 0.0),
                        Point3::new(40.0, 0.5, 0.0),
                        Point3::new(40.0, 0.5, 10.0),
                        Point3::new(30.0, 0.5, 10.0),
                    ],
                    vec![[0, 2, 1], [0, 3, 2]],
                )
                .unwrap(),
            ),
        )
        .unwrap();
    let mut table = BodyDesc::fixed()
        .position(Vector3::new(-30.0, 0.0, 0.0))
        .part(
            Shape::cuboid(Vector3::new(1.0, 0.05, 0.6)).unwrap(),
            Isometry3::translation(0.0, 0.85, 0.0),
            1.0,
        );
    for (x, z) in [(-0.9, -0.5), (0.9, -0.5), (-0.9, 0.5), (0.9, 0.5)] {
        table = table.part(
            Shape::cuboid(Vector3::new(0.05, 0.4, 0.05)).unwrap(),
            Isometry3::translation(x, 0.4, z),
            1.0,
        );
    }
    let table = world.insert(table).unwrap();
    world.step();
    for (name, shape, pose, body, expected) in [
        (
            "ball on the mesh plane",
            Shape::Ball { radius: 0.5 },
            at(35.0, 5.0, 5.0),
            plane,
            0.4,
        ),
        (
            "box on the mesh plane",
            unit_box.clone(),
            at(35.0, 5.0, 5.0),
            plane,
            0.4,
        ),
        // The table top's upper face at 0.9.
        (
            "ball on the table",
            Shape::Ball { radius: 0.5 },
            at(-30.0, 5.0, 0.0),
            table,
            0.36,
        ),
        // Between the legs, under the top: the lower face at 0.8.
        (
            "ball under the table",
            Shape::Ball { radius: 0.2 },
            at(-30.0, 0.3, 0.0),
            table,
            0.0,
        ),
    ] {
        let translation = if name.contains("under") {
            Vector3::new(0.0, 1.0, 0.0)
        } else {
            down
        };
        let (hit_body, hit) = world
            .cast_shape(&shape, &pose, translation, &all)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: no hit"));
        let expected = if name.contains("under") {
            0.3
        } else {
            expected
        };
        assert_eq!(hit_body, body, "{name}");
        assert!(
            (hit.fraction - expected).abs() < 1e-4,
            "{name}: {} against {expected}",
            hit.fraction
        );
    }
    // A cast that stops short, one that passes by, one that moves away.
    let ball_shape = Shape::Ball { radius: 0.5 };
    assert_eq!(
        world
            .cast_shape(
                &ball_shape,
                &at(0.0, 5.0, 0.0),
                Vector3::new(0.0, -4.0, 0.0),
                &all
            )
            .unwrap(),
        None
    );
    assert_eq!(
        world
            .cast_shape(
                &ball_shape,
                &at(0.0, 5.0, 0.0),
                Vector3::new(10.0, 0.0, 0.0),
                &all
            )
            .unwrap(),
        None
    );
    // Starting in contact: fraction 0.
    let (_, hit) = world
        .cast_shape(
            &ball_shape,
            &at(0.0, 0.3, 0.0),
            Vector3::new(0.0, 5.0, 0.0),
            &all,
        )
        .unwrap()
        .unwrap();
    assert_eq!(hit.fraction, 0.0);
}

/// A cluttered world: static and sleeping or moving boxes, balls, capsules and hulls.
fn clutter(seed: u64) -> World {
    let mut rng = SplitMix(seed);
    let mut world = World::new(WorldConfig::default());
    for i in 0..80 {
        let position = Vector3::new(
            rng.range(-15.0, 15.0),
            rng.range(0.0, 8.0),
            rng.range(-15.0, 15.0),
        );
        let rotation = UnitQuaternion::from_euler_angles(
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
        );
        let desc = if i % 3 == 0 {
            BodyDesc::fixed()
        } else {
            BodyDesc::dynamic().gravity_scale(0.0)
        };
        let desc = match i % 4 {
            0 => desc.cuboid(Vector3::new(
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
            )),
            1 => desc.ball(rng.range(0.1, 1.5)),
            2 => desc.capsule(rng.range(0.1, 1.0), rng.range(0.1, 0.6)),
            _ => {
                let points: Vec<Point3> = (0..12)
                    .map(|_| {
                        Point3::new(
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                        )
                    })
                    .collect();
                desc.shape(Shape::convex_hull(&points).unwrap())
            }
        };
        let desc = desc
            .pose(Isometry3::from_parts(position.into(), rotation))
            .linvel(Vector3::new(
                rng.range(-1.0, 1.0),
                0.0,
                rng.range(-1.0, 1.0),
            ));
        world.insert(desc).unwrap();
    }
    for _ in 0..5 {
        world.step();
    }
    world
}

fn random_shape(rng: &mut SplitMix) -> Shape {
    match (rng.unit() * 3.0) as u32 {
        0 => Shape::Ball {
            radius: rng.range(0.05, 1.0),
        },
        1 => Shape::cuboid(Vector3::new(
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
        ))
        .unwrap(),
        _ => Shape::capsule(rng.range(0.05, 1.0), rng.range(0.05, 0.5)).unwrap(),
    }
}

#[test]
fn casts_and_overlaps_through_the_broad_phase_equal_a_scan_of_every_body() {
    let world = clutter(7);
    let mut rng = SplitMix(11);
    let (mut hits, mut overlaps) = (0, 0);
    for query in 0..10_000 {
        let shape = random_shape(&mut rng);
        let pose = Isometry3::from_parts(
            Vector3::new(
                rng.range(-18.0, 18.0),
                rng.range(-1.0, 9.0),
                rng.range(-18.0, 18.0),
            )
            .into(),
            // Renormalised as the world does every pose it is given.
            UnitQuaternion::new_normalize(
                UnitQuaternion::from_euler_angles(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0)
                    .into_inner(),
            ),
        );
        let translation = Vector3::new(
            rng.range(-10.0, 10.0),
            rng.range(-5.0, 5.0),
            rng.range(-10.0, 10.0),
        );
        // Every third query skips the bodies of category 1 behind a filter that sees only
        // them, to exercise the filter on both sides.
        let filter = if query % 3 == 0 {
            QueryFilter::default().without_sensors()
        } else {
            QueryFilter::default()
        };
        let found = world
            .cast_shape(&shape, &pose, translation, &filter)
            .unwrap();
        let mut expected: Option<(BodyHandle, Real)> = None;
        let mut overlapping = Vec::new();
        for (handle, body) in world.bodies() {
            let target = body
                .collider()
                .shape
                .world(&body.collider().world_pose(body.pose()));
            if let Some(hit) = cast_shape(&shape, &pose, &translation, &target)
                && expected.is_none_or(|(_, f)| hit.fraction < f)
            {
                expected = Some((handle, hit.fraction));
            }
            if volume_intersects(&shape.world(&pose), &target) {
                overlapping.push(handle);
            }
        }
        // The same body at the same fraction, up to the rounding of the pose the world
        // renormalises.
        match (found, expected) {
            (None, None) => {}
            (Some((h, hit)), Some((k, fraction))) => {
                assert_eq!(h, k, "query {query}");
                assert!((hit.fraction - fraction).abs() <= 1e-5, "query {query}");
            }
            _ => panic!("query {query}: {found:?} against {expected:?}"),
        }
        hits += usize::from(found.is_some());
        let overlap = world.overlap_shape(&shape, &pose, &filter).unwrap();
        assert_eq!(overlap, overlapping, "query {query}");
        overlaps += usize::from(!overlap.is_empty());
    }
    assert!(
        hits > 2_000 && overlaps > 500,
        "{hits} hits, {overlaps} overlaps"
    );
}

#[test]
fn a_cast_stops_at_the_first_touch_of_a_finely_sampled_sweep() {
    // Against every body: the sweep sampled at 4,000 fractions, the first that touches. A
    // cast's fraction is never past it, and never more than a sample short of it; at the
    // fraction found the shapes are no more than the tolerance apart and do not overlap.
    let world = clutter(3);
    let mut rng = SplitMix(5);
    let samples = 2_000;
    let mut checked = 0;
    for _ in 0..300 {
        let shape = random_shape(&mut rng);
        let pose = Isometry3::from_parts(
            Vector3::new(
                rng.range(-18.0, 18.0),
                rng.range(-1.0, 9.0),
                rng.range(-18.0, 18.0),
            )
            .into(),
            UnitQuaternion::from_euler_angles(rng.range(-3.0, 3.0), 0.0, rng.range(-3.0, 3.0)),
        );
        let translation = Vector3::new(
            rng.range(-8.0, 8.0),
            rng.range(-4.0, 4.0),
            rng.range(-8.0, 8.0),
        );
        for (_, body) in world.bodies() {
            let target = body
                .collider()
                .shape
                .world(&body.collider().world_pose(body.pose()));
            let placed = |f: Real| {
                shape.world(&Isometry3::from_parts(
                    (pose.translation.vector + translation * f).into(),
                    pose.rotation,
                ))
            };
            let sampled = (0..=samples)
                .map(|k| k as Real / samples as Real)
                .find(|&f| volume_intersects(&placed(f), &target));
            let cast = cast_shape(&shape, &pose, &translation, &target);
            match (cast, sampled) {
                (None, None) => {}
                (Some(hit), Some(first)) => {
                    checked += 1;
                    assert!(
                        hit.fraction <= first + 1e-5,
                        "{} past {first}: {shape:?} at {pose:?} by {translation:?} against {:?} at {:?}",
                        hit.fraction,
                        body.collider(),
                        body.pose()
                    );
                    assert!(
                        hit.fraction >= first - 1.0 / samples as Real - 1e-4,
                        "{} well short of {first}",
                        hit.fraction
                    );
                    // Where it stops the shapes do not overlap (the exact test's minimum
                    // translation at most a tenth of a millimetre).
                    if hit.fraction > 0.0 {
                        let depth =
                            volume_contact(&placed(hit.fraction), &target).map_or(0.0, |c| c.depth);
                        assert!(depth <= 1e-4, "overlapping by {depth}");
                    }
                }
                // A graze between two samples that the cast finds: the shapes are within
                // the tolerance there, as the pair's speculative test says.
                (Some(hit), None) => {
                    let contact = volume_contact_within(&placed(hit.fraction), &target, 1.0);
                    assert!(contact.is_some_and(|c| c.depth >= -2.0 * CAST_TOLERANCE));
                }
                (None, Some(first)) => panic!(
                    "missed a touch at {first}: {shape:?} at {pose:?} by {translation:?} against {:?} at {:?}",
                    body.collider(),
                    body.pose()
                ),
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn every_ray_hit_comes_nearest_first_and_queries_take_a_filter() {
    let mut world = World::new(WorldConfig::default());
    let row: Vec<_> = (0..5)
        .map(|i| {
            world
                .insert(
                    BodyDesc::fixed()
                        .ball(0.4)
                        .position(Vector3::new(2.0 * (4 - i) as Real, 0.0, 0.0))
                        .filter(CollisionFilter {
                            category: 1 << (i % 2),
                            ..CollisionFilter::default()
                        }),
                )
                .unwrap()
        })
        .collect();
    let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::x());
    for _ in 0..2 {
        let all = world.cast_ray_all(&ray, 100.0, &QueryFilter::default());
        let order: Vec<_> = all.iter().map(|(h, _)| *h).collect();
        assert_eq!(order, vec![row[4], row[3], row[2], row[1], row[0]]);
        let odd = QueryFilter::new(CollisionFilter {
            category: 1,
            mask: 2,
            group: 0,
        });
        let some: Vec<_> = world
            .cast_ray_all(&ray, 100.0, &odd)
            .iter()
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(some, vec![row[3], row[1]]);
        let ball = Shape::Ball { radius: 0.1 };
        let (hit, _) = world
            .cast_shape(
                &ball,
                &at(-5.0, 0.0, 0.0),
                Vector3::new(20.0, 0.0, 0.0),
                &odd.clone().excluding(row[3]),
            )
            .unwrap()
            .unwrap();
        assert_eq!(hit, row[1]);
        world.step();
    }
}

#[test]
fn the_closest_point_lies_on_the_nearest_body() {
    let (world, ground, ball, _) = targets();
    let all = QueryFilter::default();
    let (body, point, distance) = world
        .closest_point(Point3::new(3.0, 2.5, 1.0), 10.0, &all)
        .unwrap()
        .unwrap();
    assert_eq!(body, ground);
    assert!(
        (point - Point3::new(3.0, 0.0, 1.0)).norm() < 1e-4,
        "{point}"
    );
    assert!((distance - 2.5).abs() < 1e-4);
    // Nearer the ball (centre (20, 1, 0), radius 1) than the plane.
    let (body, point, distance) = world
        .closest_point(Point3::new(20.0, 4.0, 0.0), 10.0, &all)
        .unwrap()
        .unwrap();
    assert_eq!(body, ball);
    assert!(
        (point - Point3::new(20.0, 2.0, 0.0)).norm() < 1e-4,
        "{point}"
    );
    assert!((distance - 2.0).abs() < 1e-4);
    // Inside a solid: the point itself. Out of reach: none.
    let inside = Point3::new(0.0, -0.5, 0.0);
    assert_eq!(
        world.closest_point(inside, 1.0, &all).unwrap(),
        Some((ground, inside, 0.0))
    );
    assert_eq!(
        world
            .closest_point(Point3::new(0.0, 50.0, 0.0), 10.0, &all)
            .unwrap(),
        None
    );
}

#[test]
fn bad_query_input_is_refused_by_name() {
    let (world, ..) = targets();
    let all = QueryFilter::default();
    let ball = Shape::Ball { radius: 0.5 };
    let message = |e: WorldError| e.to_string();
    let nan_pose = at(Real::NAN, 0.0, 0.0);
    assert!(
        message(
            world
                .cast_shape(&ball, &nan_pose, Vector3::x(), &all)
                .unwrap_err()
        )
        .contains("pose")
    );
    assert!(
        message(
            world
                .cast_shape(
                    &ball,
                    &at(0.0, 0.0, 0.0),
                    Vector3::new(0.0, Real::INFINITY, 0.0),
                    &all
                )
                .unwrap_err()
        )
        .contains("translation.y")
    );
    assert!(
        message(
            world
                .overlap_shape(&Shape::Ball { radius: -1.0 }, &at(0.0, 0.0, 0.0), &all)
                .unwrap_err()
        )
        .contains("radius")
    );
    let mesh = Shape::trimesh(
        vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 0.0, 1.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    assert!(
        message(
            world
                .overlap_shape(&mesh, &at(0.0, 0.0, 0.0), &all)
                .unwrap_err()
        )
        .contains("a solid")
    );
    assert!(
        message(
            world
                .closest_point(Point3::new(0.0, Real::NAN, 0.0), 1.0, &all)
                .unwrap_err()
        )
        .contains("point.y")
    );
    assert!(
        message(
            world
                .closest_point(Point3::origin(), -1.0, &all)
                .unwrap_err()
        )
        .contains("max_distance")
    );
}
