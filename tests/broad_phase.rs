//! The broad phase's persistent parts, end to end: queries through the resting tree equal a
//! scan of every body, in worlds of static, sleeping, awake, kinematic and just-changed bodies;
//! a step's pairs are checked against a sweep of every body in debug builds (every test here
//! steps such worlds).

use minirigid::collide::{RayHit, ray_volume};
use minirigid::prelude::*;
use testbed::SplitMix;

/// A world with a floor of static boxes, piles that fall asleep, bodies that keep moving and
/// a turning kinematic platform; `seed` places them.
fn mixed_world(seed: u64) -> World {
    let mut rng = SplitMix(seed);
    let mut world = World::new(WorldConfig::default());
    for i in 0..30 {
        for j in 0..30 {
            world
                .insert(
                    BodyDesc::fixed()
                        .cuboid(Vector3::new(1.0, 0.25, 1.0))
                        .position(Vector3::new(
                            2.0 * i as Real - 30.0,
                            0.0,
                            2.0 * j as Real - 30.0,
                        )),
                )
                .expect("a floor tile");
        }
    }
    for _ in 0..150 {
        let at = Vector3::new(
            rng.range(-25.0, 25.0),
            rng.range(0.8, 6.0),
            rng.range(-25.0, 25.0),
        );
        let desc = if rng.unit() < 0.5 {
            BodyDesc::dynamic().ball(rng.range(0.2, 0.6))
        } else {
            BodyDesc::dynamic().cuboid(Vector3::new(
                rng.range(0.2, 0.6),
                rng.range(0.2, 0.6),
                rng.range(0.2, 0.6),
            ))
        };
        world.insert(desc.position(at)).expect("a body");
    }
    world
        .insert(
            BodyDesc::kinematic()
                .cuboid(Vector3::new(3.0, 0.2, 3.0))
                .position(Vector3::new(0.0, 3.0, 0.0))
                .angvel(Vector3::new(0.0, 0.5, 0.0)),
        )
        .expect("a platform");
    world
}

/// The first hit of a ray over every body, ties to the lower handle: the scan the world's
/// query replaces.
fn scan_ray(world: &World, ray: &Ray, max_toi: Real) -> Option<(BodyHandle, RayHit)> {
    let mut best: Option<(BodyHandle, RayHit)> = None;
    for (handle, body) in world.bodies() {
        let pose = world.collider_pose(handle).expect("a body");
        let hit = ray_volume(ray, &body.collider().shape.world(&pose), max_toi);
        if let Some(hit) = hit
            && best.is_none_or(|(_, b)| hit.toi < b.toi)
        {
            best = Some((handle, hit));
        }
    }
    best
}

fn scan_aabb(world: &World, aabb: &Aabb) -> Vec<BodyHandle> {
    world
        .bodies()
        .filter(|(_, body)| body.world_aabb().intersects(aabb))
        .map(|(handle, _)| handle)
        .collect()
}

/// Random rays and boxes over the world's extent, compared with the scan.
fn check_queries(world: &World, rng: &mut SplitMix, count: usize) {
    for _ in 0..count {
        let origin = Point3::new(
            rng.range(-35.0, 35.0),
            rng.range(-2.0, 10.0),
            rng.range(-35.0, 35.0),
        );
        let dir = Vector3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        if dir.norm() < 1e-3 {
            continue;
        }
        let ray = Ray::new(origin, dir.normalize());
        let max_toi = rng.range(1.0, 80.0);
        let found = world.cast_ray(&ray, max_toi);
        let expected = scan_ray(world, &ray, max_toi);
        assert_eq!(
            found.map(|(h, _)| h),
            expected.map(|(h, _)| h),
            "ray {ray:?}"
        );
        if let (Some((_, a)), Some((_, b))) = (found, expected) {
            assert_eq!(a.toi, b.toi);
        }
        let half = Vector3::new(
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
        );
        let aabb = Aabb::new(origin - half, origin + half);
        assert_eq!(
            world.query_aabb(&aabb),
            scan_aabb(world, &aabb),
            "box {aabb:?}"
        );
    }
}

#[test]
fn queries_equal_a_scan_of_every_body_while_bodies_rest_wake_move_and_go() {
    let mut world = mixed_world(41);
    let mut rng = SplitMix(7);
    // Before any step (nothing in the tree yet), then as the piles settle and sleep.
    check_queries(&world, &mut rng, 500);
    for round in 0..20 {
        for _ in 0..15 {
            world.step();
        }
        check_queries(&world, &mut rng, 500);
        // Changes between steps: a body moved, one removed, one inserted, one woken.
        let handles: Vec<BodyHandle> = world.bodies().map(|(h, _)| h).collect();
        let pick = |k: u64| handles[(k as usize * 7919 + round * 31) % handles.len()];
        let moved = pick(1);
        if world
            .body(moved)
            .is_some_and(|b| b.kind() != BodyKind::Static)
        {
            let body = world.body_mut(moved).expect("a body");
            body.set_pose(Isometry3::translation(0.0, 8.0, round as Real))
                .expect("a pose");
        }
        check_queries(&world, &mut rng, 100);
        world.remove(pick(2));
        world
            .insert(
                BodyDesc::dynamic()
                    .ball(0.3)
                    .position(Vector3::new(1.0, 9.0, 1.0)),
            )
            .expect("a ball");
        world.wake(pick(3)).ok();
        check_queries(&world, &mut rng, 100);
    }
    assert!(
        world.sleeping_count() > 0,
        "nothing fell asleep: the test tests less"
    );
}

/// A chain swinging high above a floor of 2,500 static tiles (inserted after it, so its
/// handles are the same) moves bit for bit as it does alone: the step finds its joints through
/// its bodies' own (`World::index_joints` when the bodies it visits are few) as it does by
/// looking at every joint.
#[test]
fn a_chain_over_many_resting_tiles_moves_as_it_does_alone() {
    let build = |tiles: bool| {
        let mut world = World::new(WorldConfig::default());
        let (_, links) = testbed::joints::chain(&mut world, Vector3::new(0.0, 30.0, 0.0), 12);
        world
            .body_mut(*links.last().expect("a link"))
            .expect("the last link")
            .set_linvel(Vector3::new(3.0, 0.0, 0.0))
            .expect("a velocity");
        if tiles {
            for i in 0..50 {
                for j in 0..50 {
                    let at = Vector3::new(i as Real * 2.0 - 50.0, -0.5, j as Real * 2.0 - 50.0);
                    world
                        .insert(
                            BodyDesc::fixed()
                                .cuboid(Vector3::new(1.0, 0.5, 1.0))
                                .position(at),
                        )
                        .expect("a tile");
                }
            }
        }
        (world, links)
    };
    let (mut alone, links) = build(false);
    let (mut over_tiles, same) = build(true);
    assert_eq!(links, same);
    for _ in 0..240 {
        alone.step();
        over_tiles.step();
    }
    for &link in &links {
        let (a, b) = (
            alone.body(link).expect("a link"),
            over_tiles.body(link).expect("a link"),
        );
        assert_eq!(a.pose(), b.pose());
        assert_eq!(a.linvel(), b.linvel());
    }
}
