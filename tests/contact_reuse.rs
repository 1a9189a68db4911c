//! Contact reuse (`SolverConfig::reuse_distance`, rapier's contact recycling): a resting pile
//! reuses nearly every contact and rests as with computed contacts; reused depths stay within
//! the bound the distance gives; a body moved by a setter gets its contacts computed again;
//! the kept contacts are state (a world restored mid-contact steps in lockstep, on any number
//! of threads) and bad ones in a snapshot are refused by name.

mod common;

use minirigid::collide::volume_contact_within;
use minirigid::prelude::*;
use minirigid::world::Snapshot;
use testbed::scenes::pyramid;

/// 5 mm: how far a pair may move before its contact is computed again.
const DISTANCE: Real = 0.005;

/// Box3D's settings (4 substeps, sleeping off), with contact reuse within `distance`.
fn configure(world: &mut World, distance: Real) {
    let mut config = *world.config();
    config.solver.substeps = 4;
    config.sleep.enabled = false;
    config.solver.reuse_distance = distance;
    world.set_config(config).unwrap();
}

fn positions(world: &World, bodies: &[BodyHandle]) -> Vec<Point3> {
    bodies
        .iter()
        .map(|h| world.body(*h).unwrap().position())
        .collect()
}

fn volume(world: &World, handle: BodyHandle) -> Volume {
    let body = world.body(handle).unwrap();
    let collider = body.collider();
    collider.shape.world(&collider.world_pose(body.pose()))
}

/// Restores `original` with and without what `forget` drops from its snapshot, and checks the
/// two part within `steps`: what was dropped is state.
fn assert_forgetting_changes_the_run(
    original: &World,
    forget: impl FnOnce(&mut Snapshot),
    steps: usize,
) {
    let mut snapshot = original.snapshot();
    forget(&mut snapshot);
    let mut forgetful = World::from_snapshot(snapshot).unwrap();
    let mut again = World::from_bytes(&original.to_bytes().unwrap()).unwrap();
    for _ in 0..steps {
        forgetful.step();
        again.step();
    }
    assert_ne!(forgetful.state_hash(), again.state_hash());
}

#[test]
fn a_resting_pyramid_reuses_its_contacts_and_rests_as_with_computed_ones() {
    let run = |distance: Real| {
        let (mut world, cubes) = pyramid(20);
        configure(&mut world, distance);
        let start = positions(&world, &cubes);
        let mut reused = 0;
        let mut tested = 0;
        for step in 0..300 {
            world.step();
            if step >= 100 {
                reused += world.reused_contact_count();
                tested += world.reused_contact_count() + world.stage_counts().pairs as usize;
            }
        }
        let moved: Vec<Real> = positions(&world, &cubes)
            .iter()
            .zip(&start)
            .map(|(now, then)| (now - then).norm())
            .collect();
        (world, moved, reused, tested)
    };
    let (computed, computed_moved, none, _) = run(0.0);
    assert_eq!(none, 0, "reuse off reused contacts");
    assert!(computed.kept_contacts().is_empty());
    let (reusing, reusing_moved, reused, tested) = run(DISTANCE);
    // Once settled, nearly every pair reuses its contact.
    assert!(
        reused as f64 > 0.95 * tested as f64,
        "{reused} of {tested} pairs reused"
    );
    // One kept contact per pair within reach (the touching ones, which `contacts` lists, and
    // the speculative ones).
    assert!(reusing.kept_contacts().len() >= reusing.contacts().len());
    // The pyramid settles as it does with computed contacts: every cube within a millimetre.
    let largest = computed_moved.iter().copied().fold(0.0, Real::max);
    for (k, (a, b)) in computed_moved.iter().zip(&reusing_moved).enumerate() {
        assert!(
            (a - b).abs() < 1e-3,
            "cube {k} moved {b} m with reuse, {a} m without"
        );
    }
    assert!(largest < 0.05, "the pyramid settled by {largest} m");
}

#[test]
fn reused_depths_stay_within_the_distance_of_computed_ones() {
    let (mut world, _) = pyramid(12);
    configure(&mut world, DISTANCE);
    // A ball rolls into the pyramid, so that some pairs move and some rest.
    world
        .insert(
            BodyDesc::dynamic()
                .ball(0.4)
                .position(Vector3::new(-9.0, 0.4, 0.0))
                .linvel(Vector3::new(6.0, 0.0, 0.0)),
        )
        .unwrap();
    let mut checked = 0;
    let mut worst: Real = 0.0;
    for _ in 0..200 {
        let before = world.clone();
        world.step();
        // The step's contacts were found at `before`'s poses: compute each one there.
        for pair in world.contacts() {
            let fresh =
                volume_contact_within(&volume(&before, pair.a), &volume(&before, pair.b), 0.1)
                    .expect("a reused pair is within reach");
            let deepest = |c: &Contact| c.points.iter().map(|p| p.depth).fold(Real::MIN, Real::max);
            let off = (deepest(&fresh) - deepest(&pair.contact)).abs();
            worst = worst.max(off);
            assert!(
                off <= 2.0 * DISTANCE,
                "deepest point {off} m off between {:?} and {:?}",
                pair.a,
                pair.b
            );
            for p in &pair.contact.points {
                if let Some(q) = fresh.points.iter().find(|q| q.id == p.id) {
                    assert!((p.depth - q.depth).abs() <= 2.0 * DISTANCE);
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} points compared, deepest points at most {worst} m apart");
    assert!(checked > 10_000, "{checked} points compared");
    assert!(worst > 0.0, "nothing was reused");
}

#[test]
fn a_body_moved_by_a_setter_gets_its_contact_computed_again() {
    let mut world = World::new(WorldConfig::default());
    configure(&mut world, DISTANCE);
    testbed::scenes::ground(&mut world, 10.0);
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 0.5, 0.5))
                .position(Vector3::new(0.0, 0.5, 0.0)),
        )
        .unwrap();
    for _ in 0..60 {
        world.step();
    }
    assert_eq!(world.reused_contact_count(), 1, "the resting cube reuses");
    // Moved by less than the distance: still reused.
    let pose = *world.body(cube).unwrap().pose();
    let nudged = Isometry3::translation(0.001, 0.0, 0.0) * pose;
    world.body_mut(cube).unwrap().set_pose(nudged).unwrap();
    world.step();
    assert_eq!(world.reused_contact_count(), 1);
    // Turned by ten degrees: computed again, an edge on the ground.
    let turned = Isometry3::rotation(Vector3::new(0.0, 0.0, 0.17)) * nudged;
    world.body_mut(cube).unwrap().set_pose(turned).unwrap();
    world.step();
    assert_eq!(world.reused_contact_count(), 0, "a turned cube reused");
    let contact = &world.contacts()[0].contact;
    assert!(
        contact.normal.x.abs() < 1e-6 && contact.points.len() == 2,
        "{contact:?}"
    );
}

#[test]
fn a_world_reusing_contacts_restored_mid_contact_steps_in_lockstep() {
    let (mut original, _) = pyramid(6);
    configure(&mut original, DISTANCE);
    for _ in 0..50 {
        original.step();
    }
    assert!(!original.kept_contacts().is_empty());
    let json = original.to_json().unwrap();
    let bytes = original.to_bytes().unwrap();
    let mut from_json = World::from_json(&json).unwrap();
    let mut from_bytes = World::from_bytes(&bytes).unwrap();
    assert_eq!(from_json.kept_contacts(), original.kept_contacts());
    assert_eq!(from_bytes.state_hash(), original.state_hash());
    common::step_in_lockstep(&mut original, &mut from_json, &mut from_bytes, 100);
    // Forgetting the kept contacts changes what follows: they are state.
    assert_forgetting_changes_the_run(&original, |s| s.kept.clear(), 20);
    // Removing a body drops its kept contacts, and the world still saves and restores.
    let some = original.kept_contacts()[0].b;
    original.remove(some).unwrap();
    assert!(original.kept_contacts().iter().all(|k| k.b != some));
    World::from_bytes(&original.to_bytes().unwrap()).unwrap();
}

#[test]
fn the_same_bits_reusing_contacts_on_one_or_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut world = common::pyramid_40_and_a_ball(|world| configure(world, DISTANCE));
            for _ in 0..150 {
                world.step();
            }
            assert!(world.reused_contact_count() > 500);
            world.state_hash()
        })
    };
    assert_eq!(run(2), run(1), "two threads differ from one");
}

#[test]
fn bad_kept_contacts_are_refused_by_name() {
    let (mut world, _) = pyramid(3);
    configure(&mut world, DISTANCE);
    for _ in 0..10 {
        world.step();
    }
    assert!(world.kept_contacts().len() > 3);
    let json = world.to_json().unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let case = |edit: &dyn Fn(&mut serde_json::Value), field: &str| {
        let mut v = value.clone();
        edit(&mut v);
        let snapshot: Snapshot = serde_json::from_value(v).unwrap();
        let bytes = snapshot.to_bytes().unwrap();
        let message = match World::from_bytes(&bytes) {
            Ok(_) => panic!("{field}: accepted"),
            Err(e) => e.to_string(),
        };
        assert!(message.contains(field), "`{message}` does not name {field}");
    };
    case(
        &|v| v["config"]["solver"]["reuse_distance"] = (-1.0).into(),
        "config.solver.reuse_distance",
    );
    case(
        &|v| v["config"]["solver"]["reuse_distance"] = 5.0.into(),
        "config.solver.reuse_distance",
    );
    case(
        &|v| v["kept"][1]["normal"] = serde_json::json!([0.0, 0.0, 0.0]),
        "kept[1].normal",
    );
    case(
        &|v| v["kept"][1]["normal"] = serde_json::json!([0.0, 2.0, 0.0]),
        "kept[1].normal",
    );
    case(
        &|v| v["kept"][1]["relative"]["rotation"] = serde_json::json!([0.0, 0.0, 0.0, 0.0]),
        "kept[1].relative",
    );
    case(
        &|v| v["kept"][1]["points"][0]["on_a"] = serde_json::json!([1e6, 0.0, 0.0]),
        "kept[1].points[0].on_a",
    );
    case(
        &|v| v["kept"][1]["points"][0]["on_b"][1] = f64::MAX.into(),
        "kept[1].points[0].on_b",
    );
    // Out of order, and a pair with a handle that names no body.
    case(
        &|v| {
            let first = v["kept"][0].clone();
            v["kept"][0] = v["kept"][1].clone();
            v["kept"][1] = first;
        },
        "kept[1]",
    );
    case(
        &|v| v["kept"][1]["b"] = serde_json::json!({"idx": 900, "version": 1}),
        "kept[1]",
    );
}

#[test]
fn every_kept_contact_restores_even_from_deep_and_fast_overlaps() {
    // Pairs of boxes and balls of any size from 5 cm to 4 m created up to fully inside each
    // other, turned any way, some moving fast (a wide speculative margin), some 100 km to a
    // million km out (where single precision rounds positions to centimetres or more): whatever
    // the step keeps must pass the snapshot's checks, or a valid world could not be restored
    // (far out, a kept point can land beyond them: the step then does not keep it).
    let mut rng = testbed::SplitMix(7);
    let mut kept = 0;
    let mut farthest: Real = 0.0;
    for case in 0..400 {
        let mut world = World::new(WorldConfig::default());
        configure(&mut world, DISTANCE);
        let mut shapes = Vec::new();
        let far = if case % 7 == 0 {
            rng.unit_vector() * (10.0 as Real).powf(rng.range(5.0, 9.0))
        } else {
            Vector3::zeros()
        };
        for k in 0..2 {
            let desc = if k == 1 && case % 5 == 0 {
                BodyDesc::fixed()
            } else {
                BodyDesc::dynamic().linvel(rng.unit_vector() * rng.range(0.0, 60.0))
            };
            let desc = if rng.unit() < 0.6 {
                let half = Vector3::new(
                    rng.range(0.025, 2.0),
                    rng.range(0.025, 2.0),
                    rng.range(0.025, 2.0),
                );
                shapes.push(half.norm());
                desc.cuboid(half)
            } else {
                let radius = rng.range(0.025, 2.0);
                shapes.push(radius);
                desc.ball(radius)
            };
            let offset = rng.unit_vector() * rng.range(0.0, 1.1) * (shapes[0] + shapes[k]) * 0.5;
            let pose = Isometry3::from_parts(
                (far + if k == 0 { Vector3::zeros() } else { offset }).into(),
                rng.rotation(),
            );
            world.insert(desc.pose(pose)).unwrap();
        }
        for step in 0..2 {
            world.step();
            kept += world.kept_contacts().len();
            // How far the kept points lie from their colliders' origins, in the two radii (near
            // the origin, where rounding does not move them).
            let near = far == Vector3::zeros();
            for contact in world.kept_contacts().iter().filter(|_| near) {
                for p in &contact.points {
                    let far = p.on_a.coords.norm().max(p.on_b.coords.norm());
                    farthest = farthest.max(far / (shapes[0] + shapes[1]));
                }
            }
            let back = World::from_bytes(&world.to_bytes().unwrap())
                .unwrap_or_else(|e| panic!("case {case}, step {step}: {e}"));
            assert_eq!(back.state_hash(), world.state_hash());
        }
    }
    eprintln!("{kept} kept contacts, points at most {farthest} radii sums from their origins");
    assert!(kept > 500, "{kept} kept contacts checked");
    // The bound the checks allow is twice the sum (see `KeptContact`): a margin of at least 4/3.
    assert!(farthest < 1.5, "a point {farthest} radii sums out");
}

/// A heap of 27 rocks (Box3D's junkyard rock, 10-point hulls of radius 0.5) dropped a little
/// onto the ground and onto each other, reusing contacts at Box3D's recycle distance (5 cm),
/// after `steps`.
fn rock_heap(steps: usize) -> World {
    let mut world = World::new(WorldConfig::default());
    testbed::scenes::ground(&mut world, 20.0);
    configure(&mut world, 0.05);
    let rock = Shape::convex_hull(&testbed::shapes::rock_points(0.5)).unwrap();
    for k in 0..27 {
        let (x, y, z) = ((k % 3) as Real, (k / 9) as Real, ((k / 3) % 3) as Real);
        let at = Vector3::new(1.05 * x + 0.1 * y, 0.55 + 1.02 * y, 1.05 * z - 0.1 * y);
        world
            .insert(BodyDesc::dynamic().shape(rock.clone()).position(at))
            .unwrap();
    }
    for _ in 0..steps {
        world.step();
    }
    world
}

#[test]
fn hull_pairs_reuse_contacts_and_keep_their_separating_axes_as_state() {
    // Pairs of hulls that are tested try their cached axes, pairs that reuse their contact
    // carry them over: both lists are state, restored and stepped in lockstep.
    let mut original = rock_heap(60);
    assert!(
        original.reused_contact_count() > 10,
        "{}",
        original.reused_contact_count()
    );
    let snapshot = original.snapshot();
    assert!(!snapshot.kept.is_empty() && !snapshot.axes.is_empty());
    let mut from_json = World::from_json(&original.to_json().unwrap()).unwrap();
    let mut from_bytes = World::from_bytes(&original.to_bytes().unwrap()).unwrap();
    common::step_in_lockstep(&mut original, &mut from_json, &mut from_bytes, 60);
    // Forgetting the axes changes what follows.
    assert_forgetting_changes_the_run(&original, |s| s.axes.clear(), 30);
    // The same bits on one thread or two.
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| rock_heap(90).state_hash())
    };
    assert_eq!(run(2), run(1), "two threads differ from one");
}

#[test]
fn a_hull_heap_reusing_contacts_settles_as_with_computed_ones() {
    // The same heap with contacts computed every step. A heap's collapse is chaotic, so its
    // rocks need not end where they would: compared are the heap as a whole (its mean height),
    // how still it comes to be, and that no rock sinks into the ground.
    let figures = |world: &World| {
        let rocks: Vec<&RigidBody> = (world.bodies())
            .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            .map(|(_, b)| b)
            .collect();
        let lowest = (rocks.iter().map(|b| b.world_aabb().mins.y)).fold(Real::INFINITY, Real::min);
        let mean = rocks.iter().map(|b| b.position().y).sum::<Real>() / rocks.len() as Real;
        let fastest = (rocks.iter().map(|b| b.linvel().norm())).fold(0.0, Real::max);
        (lowest, mean, fastest)
    };
    let reusing = rock_heap(300);
    let computed = {
        let mut world = rock_heap(0);
        configure(&mut world, 0.0);
        for _ in 0..300 {
            world.step();
        }
        world
    };
    let (low_r, mean_r, fast_r) = figures(&reusing);
    let (low_c, mean_c, fast_c) = figures(&computed);
    println!("reusing: lowest {low_r}, mean {mean_r}, fastest {fast_r}");
    println!("computed: lowest {low_c}, mean {mean_c}, fastest {fast_c}");
    assert!(reusing.reused_contact_count() > 20);
    assert!(low_r > -0.01 && low_c > -0.01);
    assert!((mean_r - mean_c).abs() < 0.1);
    assert!(fast_r < 0.05 && fast_c < 0.05);
}
