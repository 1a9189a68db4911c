//! Ready-made scenes, shared by the examples, the tests and the benches, so that the picture and
//! the measurement are of the same thing.

use geom::{Real, Vector3};
use world::{BodyDesc, BodyHandle, Response, World, WorldConfig};

/// Seed 003's demo: cubes of side 2, static at x = -13 and x = 13, and a dynamic cube at the
/// origin moving 0.1 per 20 ms step (5 m/s) along x, no gravity, `Response::Reflect`. Returns the
/// world and the moving cube's handle.
pub fn seed_003_bouncing() -> (World, BodyHandle) {
    let config = WorldConfig {
        dt: 0.02,
        gravity: Vector3::zeros(),
        response: Response::Reflect,
        ..WorldConfig::default()
    };
    let mut world = World::new(config);
    let half = Vector3::repeat(1.0);
    for x in [-13.0, 13.0] {
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(half)
                    .position(Vector3::new(x, 0.0, 0.0))
                    .color([0.3, 0.3, 0.8]),
            )
            .expect("a valid wall");
    }
    let moving = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(half)
                .linvel(Vector3::new(5.0, 0.0, 0.0))
                .color([0.9, 0.5, 0.1]),
        )
        .expect("a valid cube");
    (world, moving)
}

/// A closed room of six static walls (inner half size `half_side`, walls 2 m thick) holding
/// `count` boxes and balls (half sizes 0.2 to 0.5 m) on a grid, with random velocities of up to
/// `max_speed` m/s, no gravity, `Response::Reflect`. Seeded: the same `seed` gives the same room.
///
/// Keep `max_speed * dt` under 0.4 m (the smallest sum of two bodies' half sizes) so that no body
/// outruns another in one step (the speed limit documented on [`World`]).
pub fn room(count: usize, seed: u64, max_speed: Real) -> World {
    let config = WorldConfig {
        gravity: Vector3::zeros(),
        response: Response::Reflect,
        ..WorldConfig::default()
    };
    let mut world = World::new(config);
    let per_side = (count as f64).cbrt().ceil().max(1.0) as usize;
    let spacing = 1.5;
    let half_side = 0.5 * spacing * per_side as Real + 1.0;
    let thickness = 1.0;
    for axis in 0..3 {
        for side in [-1.0, 1.0] {
            let mut half = Vector3::repeat(half_side + 2.0 * thickness);
            half[axis] = thickness;
            let mut center = Vector3::zeros();
            center[axis] = side * (half_side + thickness);
            world
                .insert(
                    BodyDesc::fixed()
                        .cuboid(half)
                        .position(center)
                        .color([0.4, 0.4, 0.45]),
                )
                .expect("a valid wall");
        }
    }
    let mut rng = SplitMix(seed);
    let origin = -0.5 * spacing * (per_side as Real - 1.0);
    for i in 0..count {
        let cell = Vector3::new(
            (i % per_side) as Real,
            ((i / per_side) % per_side) as Real,
            (i / (per_side * per_side)) as Real,
        );
        let position = Vector3::repeat(origin) + cell * spacing;
        let velocity = loop {
            let v = Vector3::new(rng.signed(), rng.signed(), rng.signed());
            if v.norm() <= 1.0 {
                break v * max_speed;
            }
        };
        let desc = if i % 3 == 2 {
            BodyDesc::dynamic()
                .ball(0.2 + 0.3 * rng.unit())
                .color([0.2, 0.7, 0.3])
        } else {
            let half = Vector3::new(
                0.2 + 0.3 * rng.unit(),
                0.2 + 0.3 * rng.unit(),
                0.2 + 0.3 * rng.unit(),
            );
            let turn = geom::UnitQuaternion::from_euler_angles(
                rng.signed() * 3.0,
                rng.signed() * 3.0,
                rng.signed() * 3.0,
            );
            BodyDesc::dynamic()
                .cuboid(half)
                .rotation(turn)
                .color([0.8, 0.4, 0.2])
        };
        world
            .insert(desc.position(position).linvel(velocity))
            .expect("a valid body");
    }
    world
}

/// The inner half size of the room made by [`room`] for `count` bodies.
pub fn room_half_side(count: usize) -> Real {
    let per_side = (count as f64).cbrt().ceil().max(1.0) as usize;
    0.5 * 1.5 * per_side as Real + 1.0
}

/// SplitMix64: small, seeded, the same everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn unit(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
    }
    fn signed(&mut self) -> Real {
        2.0 * self.unit() - 1.0
    }
}
