//! Hit events: a contact that begins with its bodies approaching faster than a collider of
//! the pair asked for is reported once, with its point, normal and approach speed; slower
//! contacts, contacts already touching and colliders that did not ask give none.

use minirigid::prelude::*;
use testbed::scenes::ground;

/// A ball of radius 0.25 dropped from `height` (its bottom's) onto a ground asking for hits
/// above `threshold`; the hits of the first `steps` steps, with their step.
fn drop_ball(height: Real, threshold: Option<Real>, steps: usize) -> Vec<(u64, HitEvent)> {
    let mut world = World::new(WorldConfig::default());
    let floor = ground(&mut world, 10.0);
    world
        .body_mut(floor)
        .unwrap()
        .set_hit_events(threshold)
        .unwrap();
    world
        .insert(
            BodyDesc::dynamic()
                .ball(0.25)
                .position(Vector3::new(0.3, height + 0.25, -0.2)),
        )
        .unwrap();
    let mut hits = Vec::new();
    for _ in 0..steps {
        world.step();
        hits.extend(world.hit_events().iter().map(|&h| (world.step_count(), h)));
    }
    hits
}

#[test]
fn a_ball_dropped_on_the_ground_hits_once_at_its_falling_speed() {
    let height = 2.0;
    let hits = drop_ball(height, Some(1.0), 240);
    assert_eq!(hits.len(), 1, "{hits:?}");
    let (_, hit) = hits[0];
    // The speed it fell to, sqrt(2 g h), less the last step's fall it had not yet done when
    // the step began (within 2%).
    let expected = (2.0 * 9.81 * height).sqrt();
    assert!(
        (hit.speed - expected).abs() < 0.02 * expected,
        "{} against {expected}",
        hit.speed
    );
    assert!(
        (hit.normal - Vector3::y()).norm() < 1e-5,
        "from the ground up"
    );
    assert!(
        (hit.point - Point3::new(0.3, 0.0, -0.2)).norm() < 0.05,
        "under the ball: {}",
        hit.point
    );
}

#[test]
fn slow_contacts_and_colliders_that_did_not_ask_give_no_hit() {
    // Above the threshold: none. Not asked: none.
    assert!(drop_ball(0.5, Some(5.0), 240).is_empty());
    assert!(drop_ball(2.0, None, 240).is_empty());
    // A box pushed along the ground, already touching it: the push begins no contact.
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 10.0);
    let block = world
        .insert(
            BodyDesc::dynamic()
                .position(Vector3::new(0.0, 0.5, 0.0))
                .hit_events(0.1),
        )
        .unwrap();
    for _ in 0..30 {
        world.step();
    }
    world
        .body_mut(block)
        .unwrap()
        .set_linvel(Vector3::new(5.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..60 {
        world.step();
        assert!(world.hit_events().is_empty());
    }
}

#[test]
fn the_hit_speed_is_checked_and_saved() {
    let mut world = World::new(WorldConfig::default());
    let body = world.insert(BodyDesc::dynamic().hit_events(2.0)).unwrap();
    let error = world
        .body_mut(body)
        .unwrap()
        .set_hit_events(Some(-1.0))
        .unwrap_err();
    assert!(error.to_string().contains("hit_speed"), "{error}");
    let error = world
        .insert(BodyDesc::dynamic().hit_events(Real::NAN))
        .unwrap_err();
    assert!(error.to_string().contains("desc.hit_speed"), "{error}");
    let restored = World::from_bytes(&world.to_bytes().unwrap()).unwrap();
    assert_eq!(restored.state_hash(), world.state_hash());
    let mut other = world.clone();
    other
        .body_mut(body)
        .unwrap()
        .set_hit_events(Some(3.0))
        .unwrap();
    assert_ne!(other.state_hash(), world.state_hash());
}
