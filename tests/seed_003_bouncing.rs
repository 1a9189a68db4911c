//! Seed 003's demo end to end: cubes of side 2, static at x = -13 and x = 13, a dynamic one at the
//! origin moving 0.1 per 20 ms step, bouncing between them through `Response::Reflect`.

use minirigid::prelude::*;

fn scene() -> (World, BodyHandle) {
    testbed::scenes::seed_003_bouncing()
}

#[test]
fn bounces_between_the_walls_for_100000_steps() {
    let (mut world, moving) = scene();
    // Between bounces the cube's centre travels from x = -11 to x = 11 (touching each wall):
    // 22 m at 5 m/s is 4.4 s, 220 steps; a full period is 440 steps.
    let analytic_period = 440.0;
    let mut bounces_right = Vec::new();
    let mut previous_vx = 5.0;
    let mut max_overlap: Real = 0.0;
    for step in 0..100_000u64 {
        world.step();
        let body = world.body(moving).unwrap();
        let (x, v) = (body.position().x, body.linvel());
        max_overlap = max_overlap.max(x.abs() - 11.0);
        assert!(
            (v.norm() - 5.0).abs() <= 5.0 * 1e-6,
            "step {step}: speed changed to {}",
            v.norm()
        );
        assert!(
            v.y == 0.0 && v.z == 0.0,
            "step {step}: velocity left the x axis: {v:?}"
        );
        if previous_vx > 0.0 && v.x < 0.0 {
            bounces_right.push(step);
        }
        previous_vx = v.x;
    }
    // Positions are sampled after the push-out, so the cube never sits inside a wall by more
    // than rounding; during a step it can reach at most one step's travel (0.1) in.
    assert!(max_overlap <= 1e-4, "overlapped a wall by {max_overlap}");
    assert!(
        bounces_right.len() > 200,
        "only {} bounces",
        bounces_right.len()
    );
    for pair in bounces_right.windows(2) {
        let period = (pair[1] - pair[0]) as f64;
        assert!(
            (period - analytic_period).abs() <= 1.0,
            "period {period} steps, analytic {analytic_period}"
        );
    }
}

#[test]
fn contacts_and_events_at_a_bounce() {
    let (mut world, moving) = scene();
    let mut started = 0;
    let mut stopped = 0;
    for _ in 0..1_000 {
        world.step();
        for event in world.events() {
            match event {
                ContactEvent::Started(a, b) => {
                    assert!(*a == moving || *b == moving);
                    started += 1;
                    assert!(!world.contacts().is_empty());
                }
                ContactEvent::Stopped(..) => stopped += 1,
            }
        }
    }
    // 1,000 steps: bounces at about steps 110, 330, 550, 770, 990.
    assert_eq!(started, 5);
    assert!(stopped >= 4);
}
