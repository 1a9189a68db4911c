//! 1,000 boxes and balls in a closed room of static walls, `Response::Reflect`, no gravity,
//! 10,000 steps: no NaN, no body leaves the room, total kinetic energy never rises.

use minirigid::prelude::*;
use testbed::scenes::{room, room_half_side};

fn kinetic_energy(world: &World) -> f64 {
    world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(_, b)| 0.5 * f64::from(b.mass()) * b.linvel().cast::<f64>().norm_squared())
        .sum()
}

#[test]
fn a_thousand_bodies_stay_in_the_room_without_gaining_energy() {
    let count = 1_000;
    // 5 m/s: at dt = 0.02 a body moves at most 0.1 m a step, under the 0.4 m limit.
    let mut world = room(count, 42, 5.0);
    let half_side = room_half_side(count);
    let mut energy = kinetic_energy(&world);
    assert!(energy > 0.0);
    let initial = energy;
    let mut contacts = 0usize;
    let mut deepest: Real = Real::MIN;
    for step in 0..10_000 {
        world.step();
        contacts += world.contacts().len();
        let now = kinetic_energy(&world);
        assert!(now.is_finite(), "step {step}: energy is not finite");
        assert!(
            now <= energy * (1.0 + 1e-12),
            "step {step}: energy rose from {energy} to {now}"
        );
        energy = now;
        if step % 100 == 0 || step == 9_999 {
            for (handle, body) in world
                .bodies()
                .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            {
                let p = body.position();
                assert!(
                    p.coords.iter().all(|c| c.is_finite()),
                    "step {step}: NaN in {handle:?}"
                );
                // Pushes between bodies may press one partly into a wall for a step; it has
                // left only if its centre crossed the wall's middle (walls are 2 m thick).
                deepest = deepest.max(p.coords.amax() - half_side);
                assert!(
                    p.coords.amax() < half_side + 1.0,
                    "step {step}: {handle:?} left the room at {p:?}"
                );
            }
        }
    }
    eprintln!("deepest centre beyond the inner wall faces: {deepest} m");
    // Collisions happened, and elastic collisions kept most of the energy.
    assert!(contacts > 10_000, "only {contacts} contacts");
    assert!(
        energy > 0.5 * initial,
        "energy fell from {initial} to {energy}"
    );
}
