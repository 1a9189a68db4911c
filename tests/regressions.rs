//! Inputs that once broke something, kept so that they never do again.

use minirigid::prelude::*;

/// Found by `cargo fuzz run snapshot_decode`: a snapshot whose finite but huge angular velocity
/// (about 1e36 rad/s) overflowed to a NaN rotation in the first step. Such speeds are now
/// refused by name, and every step clamps speeds to the world's limits.
#[test]
fn fuzz_huge_angular_velocity_is_refused() {
    let data = include_bytes!("data/fuzz-huge-angular-velocity.bin");
    let error = World::from_bytes(data).unwrap_err().to_string();
    assert!(
        error.contains("angvel") || error.contains("linvel"),
        "{error}"
    );
}

#[test]
fn far_away_ray_origins_give_no_nan() {
    let ray = Ray::new(Point3::new(3e38, 3e38, 3e38), -Vector3::repeat(1.0));
    let sphere = minirigid::geom::Sphere::new(Point3::origin(), 1.0);
    let hit = minirigid::collide::ray_sphere(&ray, &sphere, Real::MAX);
    assert!(hit.is_none_or(|h| h.toi.is_finite() && h.point.coords.iter().all(|c| c.is_finite())));
}

#[test]
fn speeds_at_the_limit_stay_finite() {
    use minirigid::world::limits::{MAX_ANGULAR_SPEED, MAX_SPEED};
    let config = WorldConfig {
        dt: 10.0,
        gravity: Vector3::new(0.0, -1e4, 0.0),
        ..WorldConfig::default()
    };
    let mut world = World::try_new(config).unwrap();
    let h = world
        .insert(
            BodyDesc::dynamic()
                .ball(1e-6)
                .mass(1e-9)
                .linvel(Vector3::repeat(MAX_SPEED))
                .angvel(Vector3::repeat(MAX_ANGULAR_SPEED)),
        )
        .unwrap();
    for _ in 0..1_000 {
        world.step();
    }
    let body = world.body(h).unwrap();
    assert!(body.pose().translation.vector.iter().all(|c| c.is_finite()));
    assert!(body.pose().rotation.coords.iter().all(|c| c.is_finite()));
    assert!(body.linvel().norm() <= MAX_SPEED * (1.0 + 1e-6));
    // And the state it reached restores.
    World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    let error = world
        .insert(BodyDesc::dynamic().linvel(Vector3::new(2e5, 0.0, 0.0)))
        .unwrap_err()
        .to_string();
    assert!(error.contains("desc.linvel.x"), "{error}");
}

/// Found by `cargo fuzz run snapshot_decode` on format 2: a snapshot whose contact set warm
/// starts a 1e-6 kg box with a normal impulse of 1e18 N s. The impulse is within the limits a
/// snapshot accepts, but the velocity it gives was integrated before the speed limit applied,
/// and the box left the coordinate range in one step, so the stepped world no longer restored.
/// Speeds are now held to the limits before every position update.
#[test]
fn fuzz_huge_warm_start_impulse_stays_in_range() {
    let data = include_bytes!("data/fuzz-huge-warm-start-impulse.bin");
    let mut world = World::from_bytes(data).unwrap();
    world.step();
    let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(again.state_hash(), world.state_hash());
    for (_, body) in world.bodies() {
        assert!(body.linvel().norm() <= minirigid::world::limits::MAX_SPEED * (1.0 + 1e-6));
    }
}

/// Found by `cargo fuzz run snapshot_decode` on format 2: a spin clamped to the angular speed
/// limit came out 1e5 (1 + 1e-7) rad/s about one axis after rounding, which a snapshot refuses.
/// The clamp now lands a few ulps inside the limit.
#[test]
fn fuzz_clamped_speeds_stay_inside_the_limit() {
    let data = include_bytes!("data/fuzz-angular-speed-at-the-limit.bin");
    let mut world = World::from_bytes(data).unwrap();
    for _ in 0..3 {
        world.step();
        let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
        assert_eq!(again.state_hash(), world.state_hash());
    }
}

/// Found by `cargo fuzz run snapshot_decode` on format 6: a mutated ragdoll (a joint's anchor
/// 59 m from its body, on a 31 kg torso) whose joint passes left its ball head's velocities
/// finite but near the float range; the next substep's sums overflowed and the speed limit's
/// clamp turned the infinity into NaN, which reached the head's pose. The clamp now keeps
/// every velocity finite.
#[test]
fn fuzz_jointed_ragdoll_stays_finite() {
    let data = include_bytes!("data/fuzz-joint-nan.bin");
    let mut world = World::from_bytes(data).unwrap();
    for _ in 0..3 {
        world.step();
        let again = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
        assert_eq!(again.state_hash(), world.state_hash());
    }
}
