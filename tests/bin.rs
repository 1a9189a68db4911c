//! Boxes and balls dropped into a closed bin with the default settings: no NaN, none escapes,
//! the kinetic energy stays below what the fall can give, and the boxes come to rest without
//! jitter. Balls on the floor may keep rolling: their speed is reported. A short run by
//! default; the 1,000-body, 50,000-step soaks, with sleeping on and off, are `#[ignore]`d (run
//! them in release: `cargo test --release --test bin -- --ignored --nocapture`, about two
//! minutes).

use minirigid::prelude::*;
use testbed::scenes::bin;

struct Figures {
    /// The largest total kinetic energy seen, over the potential energy the fall can release.
    energy_ratio: f64,
    /// The fastest box in the last second.
    resting_speed: Real,
    /// The farthest any box moved over the last `window` steps, among the boxes that touch no
    /// ball at the end (balls roll on without rolling resistance, and push what they meet).
    resting_drift: Real,
    /// The same over every box.
    any_box_drift: Real,
    /// The fastest ball in the last second.
    rolling_speed: Real,
}

fn drop_into_the_bin(count: usize, steps: usize, window: usize, sleeping: bool) -> Figures {
    let (mut world, inside) = bin(count, 7, true);
    let mut config = *world.config();
    config.sleep.enabled = sleeping;
    world.set_config(config).expect("valid settings");
    let handles: Vec<BodyHandle> = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(h, _)| h)
        .collect();
    assert_eq!(handles.len(), count);
    let g = f64::from(world.config().gravity.norm());
    let releasable: f64 = handles
        .iter()
        .map(|h| {
            let b = world.body(*h).unwrap();
            f64::from(b.mass()) * g * f64::from(b.position().y)
        })
        .sum();
    let slack = 1e-3;
    let mut figures = Figures {
        energy_ratio: 0.0,
        resting_speed: 0.0,
        resting_drift: 0.0,
        any_box_drift: 0.0,
        rolling_speed: 0.0,
    };
    let is_box = |world: &World, h: &BodyHandle| {
        matches!(
            world.body(*h).unwrap().collider().shape,
            Shape::Cuboid { .. }
        )
    };
    let mut window_start: Vec<Point3> = Vec::new();
    let last_second = (1.0 / world.config().dt) as usize;
    for step in 0..steps {
        world.step();
        let mut energy = 0.0;
        for h in &handles {
            let body = world.body(*h).unwrap();
            let p = body.position();
            assert!(
                p.coords.iter().all(|c| c.is_finite()),
                "step {step}: a position is not finite"
            );
            assert!(
                inside.loosened(slack).contains_point(&p),
                "step {step}: a body left the bin: {p:?}"
            );
            energy += f64::from(body.kinetic_energy());
            if step + last_second >= steps {
                let speed = body.linvel().norm();
                if is_box(&world, h) {
                    figures.resting_speed = figures.resting_speed.max(speed);
                } else {
                    figures.rolling_speed = figures.rolling_speed.max(speed);
                }
            }
        }
        figures.energy_ratio = figures.energy_ratio.max(energy / releasable);
        if step + window == steps {
            window_start = handles
                .iter()
                .map(|h| world.body(*h).unwrap().position())
                .collect();
        }
    }
    let is_ball =
        |h: &BodyHandle| matches!(world.body(*h).unwrap().collider().shape, Shape::Ball { .. });
    let near_a_ball: Vec<BodyHandle> = world
        .contacts()
        .iter()
        .flat_map(|c| {
            let pair = [(c.a, c.b), (c.b, c.a)];
            pair.into_iter()
                .filter(|(_, other)| is_ball(other))
                .map(|(body, _)| body)
        })
        .collect();
    for (h, p) in handles.iter().zip(&window_start) {
        if !is_box(&world, h) {
            continue;
        }
        let moved = (world.body(*h).unwrap().position() - p).norm();
        figures.any_box_drift = figures.any_box_drift.max(moved);
        if !near_a_ball.contains(h) {
            figures.resting_drift = figures.resting_drift.max(moved);
        }
    }
    figures
}

#[test]
fn a_hundred_bodies_fall_into_the_bin_and_rest() {
    let figures = drop_into_the_bin(100, 600, 60, true);
    assert!(
        figures.energy_ratio < 1.0,
        "energy ratio {}",
        figures.energy_ratio
    );
    assert!(
        figures.rolling_speed < 0.5,
        "rolling speed {}",
        figures.rolling_speed
    );
    assert!(
        figures.resting_speed < 0.05,
        "resting speed {}",
        figures.resting_speed
    );
    assert!(
        figures.resting_drift < 0.01,
        "drift {}",
        figures.resting_drift
    );
}

#[test]
#[ignore = "a soak of about a minute in release; run by hand"]
fn a_thousand_bodies_in_the_bin_for_50000_steps() {
    // Drift is measured over the last second: over minutes, balls rolling through the pile
    // (no rolling resistance) push resting boxes by decimetres (measured: 19.6 cm over the
    // last 10,000 steps, while every box moved under 1.1 mm/s at the end).
    let figures = drop_into_the_bin(1_000, 50_000, 60, true);
    println!(
        "largest kinetic energy {:.3} of the releasable potential energy; fastest box in the \
         last second {:.5} m/s; farthest a box touching no ball moved in the last second \
         {:.5} m (any box: {:.5} m); fastest ball in the last second {:.5} m/s",
        figures.energy_ratio,
        figures.resting_speed,
        figures.resting_drift,
        figures.any_box_drift,
        figures.rolling_speed
    );
    assert!(figures.energy_ratio < 1.0);
    assert!(figures.resting_speed < 0.05);
    assert!(figures.resting_drift < 0.01);
}

/// The soak with sleeping off (issue 38): with sleeping on, the pile falls asleep within about a
/// thousand steps and the soak no longer tests resting contacts. Awake for all 50,000 steps: no
/// NaN, none escapes (both checked every step), no box faster than 5 mm/s in the last second,
/// and none moved more than 1 cm over it. Measured: at most 0.41 mm/s and 0.45 mm; the fastest
/// ball 0.19 mm/s; the kinetic energy at most 0.233 of what the fall can release.
#[test]
#[ignore = "a soak of minutes in release; run by hand"]
fn a_thousand_bodies_in_the_bin_for_50000_steps_awake() {
    let figures = drop_into_the_bin(1_000, 50_000, 60, false);
    println!(
        "sleeping off: largest kinetic energy {:.3} of the releasable potential energy; fastest \
         box in the last second {:.5} m/s; farthest any box moved in the last second {:.5} m \
         ({:.5} m among those touching no ball); fastest ball in the last second {:.5} m/s",
        figures.energy_ratio,
        figures.resting_speed,
        figures.any_box_drift,
        figures.resting_drift,
        figures.rolling_speed
    );
    assert!(figures.energy_ratio < 1.0);
    assert!(figures.resting_speed < 0.005);
    assert!(figures.any_box_drift < 0.01);
}
