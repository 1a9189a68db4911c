//! Scenes of the shapes beyond boxes and balls: a bin of capsules, boxes and balls poured in
//! (the shapes example, its render test).

use crate::SplitMix;
use geom::{Real, UnitQuaternion, Vector3};
use world::{BodyDesc, BodyHandle, BodyKind, World, WorldConfig};

/// An open bin (floor 8 x 8 m, walls 2 m high) and `count` bodies poured over it in layers:
/// capsules of three sizes, boxes and balls, turned at random (seeded). The bodies' handles
/// in the order made.
pub fn shapes_bin(count: u32) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    for (half, at) in [
        (Vector3::new(4.5, 0.5, 4.5), Vector3::new(0.0, -0.5, 0.0)),
        (Vector3::new(0.25, 1.0, 4.0), Vector3::new(-4.25, 1.0, 0.0)),
        (Vector3::new(0.25, 1.0, 4.0), Vector3::new(4.25, 1.0, 0.0)),
        (Vector3::new(4.5, 1.0, 0.25), Vector3::new(0.0, 1.0, -4.25)),
        (Vector3::new(4.5, 1.0, 0.25), Vector3::new(0.0, 1.0, 4.25)),
    ] {
        let wall = BodyDesc::fixed()
            .cuboid(half)
            .position(at)
            .color([0.45, 0.45, 0.5]);
        world.insert(wall).expect("a wall");
    }
    let mut rng = SplitMix(7);
    let per_layer = 36;
    let bodies = (0..count)
        .map(|i| {
            let (layer, k) = (i / per_layer, i % per_layer);
            let at = Vector3::new(
                (k % 6) as Real * 1.2 - 3.0 + rng.range(-0.1, 0.1),
                1.0 + layer as Real * 1.1,
                (k / 6) as Real * 1.2 - 3.0 + rng.range(-0.1, 0.1),
            );
            let desc = match i % 5 {
                0 => BodyDesc::dynamic()
                    .capsule(0.35, 0.2)
                    .color([0.9, 0.55, 0.2]),
                1 => BodyDesc::dynamic()
                    .capsule(0.2, 0.3)
                    .color([0.85, 0.35, 0.3]),
                2 => BodyDesc::dynamic()
                    .capsule(0.5, 0.12)
                    .color([0.95, 0.8, 0.3]),
                3 => BodyDesc::dynamic()
                    .cuboid(Vector3::new(0.3, 0.2, 0.25))
                    .color([0.3, 0.55, 0.85]),
                _ => BodyDesc::dynamic().ball(0.25).color([0.4, 0.75, 0.45]),
            };
            let turn: UnitQuaternion = rng.rotation();
            world
                .insert(desc.position(at).rotation(turn))
                .expect("a body of the bin")
        })
        .collect();
    (world, bodies)
}

/// How the bin's bodies are doing: how many sleep, the fastest one's speed (m/s), and how
/// many left the bin (outside its walls or below its floor).
pub fn bin_reading(world: &World, bodies: &[BodyHandle]) -> (usize, Real, usize) {
    let (mut asleep, mut fastest, mut lost) = (0, 0.0 as Real, 0);
    for &handle in bodies {
        let Some(body) = world.body(handle) else {
            continue;
        };
        debug_assert_eq!(body.kind(), BodyKind::Dynamic);
        asleep += usize::from(body.is_sleeping());
        fastest = fastest.max(body.linvel().norm());
        let p = body.position();
        lost += usize::from(p.x.abs() > 4.0 || p.z.abs() > 4.0 || p.y < 0.0);
    }
    (asleep, fastest, lost)
}
