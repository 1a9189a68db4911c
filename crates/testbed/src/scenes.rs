//! Ready-made scenes, shared by the examples, the tests and the benches, so that the picture and
//! the measurement are of the same thing.

use crate::SplitMix;
use geom::{Real, Vector3};

use world::{BodyDesc, BodyHandle, Response, World, WorldConfig};

/// Seed 003's settings, which the room shares: 20 ms steps, no gravity, `Response::Reflect`.
fn seed_003_config() -> WorldConfig {
    WorldConfig {
        dt: 0.02,
        gravity: Vector3::zeros(),
        response: Response::Reflect,
        ..WorldConfig::default()
    }
}

/// Seed 003's demo: cubes of side 2, static at x = -13 and x = 13, and a dynamic cube at the
/// origin moving 0.1 per 20 ms step (5 m/s) along x, no gravity, `Response::Reflect`. Returns the
/// world and the moving cube's handle.
pub fn seed_003_bouncing() -> (World, BodyHandle) {
    let mut world = World::new(seed_003_config());
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
    let mut world = World::new(seed_003_config());
    let per_side = room_per_side(count);
    let half_side = room_half_side(count);
    let thickness = 1.0;
    for axis in 0..3 {
        for side in [-1.0, 1.0] {
            let mut half = Vector3::repeat(half_side + 2.0 * thickness);
            half[axis] = thickness;
            let mut center = Vector3::zeros();
            center[axis] = side * (half_side + thickness);
            wall(&mut world, half, center);
        }
    }
    let mut rng = SplitMix(seed);
    let origin = -0.5 * ROOM_SPACING * (per_side as Real - 1.0);
    for i in 0..count {
        let cell = Vector3::new(
            (i % per_side) as Real,
            ((i / per_side) % per_side) as Real,
            (i / (per_side * per_side)) as Real,
        );
        let position = Vector3::repeat(origin) + cell * ROOM_SPACING;
        let velocity = loop {
            let v = Vector3::new(rng.signed(), rng.signed(), rng.signed());
            if v.norm() <= 1.0 {
                break v * max_speed;
            }
        };
        let desc = mixed_body(&mut rng, i, |rng| {
            geom::UnitQuaternion::from_euler_angles(
                rng.signed() * 3.0,
                rng.signed() * 3.0,
                rng.signed() * 3.0,
            )
        });
        world
            .insert(desc.position(position).linvel(velocity))
            .expect("a valid body");
    }
    world
}

/// A static ground slab whose top face is the plane `y = 0`: half extents
/// `(half_size, 1, half_size)`, centred at `y = -1` (as in Box3D's benchmarks).
pub fn ground(world: &mut World, half_size: Real) -> BodyHandle {
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(half_size, 1.0, half_size))
                .position(Vector3::new(0.0, -1.0, 0.0))
                .color([0.45, 0.45, 0.5]),
        )
        .expect("a valid ground")
}

/// Box3D's pyramid (`shared/benchmarks.c`) on a ground, with the default settings: cubes of
/// half size `h = 0.5`, `base` in the bottom row and one fewer in each row above, exactly
/// touching; row `i` at `y = (2i + 1) h`, its cube `j` (for `j` in `i..base`) at
/// `x = (i + 1) h + 2 (j - i) h - base h`. Returns the world and the cubes, bottom row first.
/// Base 20 is 210 cubes, base 100 (the large pyramid) 5,050.
pub fn pyramid(base: usize) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 400.0);
    let cubes = pyramid_cubes(&mut world, base, 0.0);
    (world, cubes)
}

/// The cubes of [`pyramid`] added to `world`, shifted by `z` along the z axis.
pub fn pyramid_cubes(world: &mut World, base: usize, z: Real) -> Vec<BodyHandle> {
    pyramid_at(world, base, -0.5 * base as Real, z)
}

/// Box3D's many pyramids (`shared/benchmarks.c`, `CreateManyPyramids`): `rows` by `columns`
/// pyramids of base `base` (cubes of half size 0.5) on one ground, Box3D's spacing. 14 x 14 of
/// base 10 is 10,780 cubes. Returns the world and the cubes.
pub fn many_pyramids(rows: usize, columns: usize, base: usize) -> (World, Vec<BodyHandle>) {
    let h = 0.5;
    let ground_extent = h * columns as Real * (base as Real + 1.0);
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, ground_extent);
    let base_width = 2.0 * h * base as Real;
    let delta_z = 2.0 * (ground_extent - 2.0 * h) / (rows.max(2) as Real - 1.0);
    let mut cubes = Vec::with_capacity(rows * columns * base * (base + 1) / 2);
    for i in 0..rows {
        let z = -ground_extent + 2.0 * h + i as Real * delta_z;
        for j in 0..columns {
            let center_x = -ground_extent + j as Real * (base_width + 2.0 * h) + 2.0 * h;
            cubes.extend(pyramid_at(&mut world, base, center_x - 0.5, z));
        }
    }
    (world, cubes)
}

/// A pyramid of base `base`: row `i` at `y = (2i + 1) h`, its cube `j` (for `j` in `i..base`)
/// at `x = x0 + (i + 1) h + 2 (j - i) h`, all at `z`.
fn pyramid_at(world: &mut World, base: usize, x0: Real, z: Real) -> Vec<BodyHandle> {
    let h = 0.5;
    let mut cubes = Vec::with_capacity(base * (base + 1) / 2);
    for i in 0..base {
        let y = (2 * i + 1) as Real * h;
        for j in i..base {
            let x = x0 + (i + 1) as Real * h + 2.0 * (j - i) as Real * h;
            let shade = 0.5 + 0.4 * (i as Real / base.max(1) as Real);
            let cube = world
                .insert(
                    BodyDesc::dynamic()
                        .cuboid(Vector3::repeat(h))
                        .position(Vector3::new(x, y, z))
                        .color([0.9, shade, 0.2]),
                )
                .expect("a valid cube");
            cubes.push(cube);
        }
    }
    cubes
}

/// `count` unit cubes (half size 0.5) stacked on a ground, exactly touching, bottom first.
pub fn stack(count: usize) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 50.0);
    let cubes = (0..count)
        .map(|i| {
            world
                .insert(
                    BodyDesc::dynamic()
                        .cuboid(Vector3::repeat(0.5))
                        .position(Vector3::new(0.0, 0.5 + i as Real, 0.0))
                        .color([0.3, 0.6, 0.9]),
                )
                .expect("a valid cube")
        })
        .collect();
    (world, cubes)
}

/// An open-topped bin (a floor and four walls) holding `count` boxes and balls (half sizes 0.2
/// to 0.5 m, random rotations) on a grid inside it, at rest, to be dropped under gravity with
/// the default settings. Seeded. With `lid`, a sixth wall closes it at the top of the walls.
/// Returns the world and the bin's inside (every body starts in it).
pub fn bin(count: usize, seed: u64, lid: bool) -> (World, geom::Aabb) {
    let mut world = World::new(WorldConfig::default());
    let per_row = ((count as f64).sqrt().ceil() as usize).clamp(1, 20);
    let spacing = 1.2;
    let half_side = 0.5 * spacing * per_row as Real + 0.5;
    let layers = count.div_ceil(per_row * per_row);
    let height = 2.0 + spacing * layers as Real;
    ground(&mut world, half_side + 1.0);
    for (axis, side) in [(0, -1.0), (0, 1.0), (2, -1.0), (2, 1.0)] {
        let mut half = Vector3::new(half_side + 1.0, 0.5 * height, half_side + 1.0);
        half[axis] = 0.5;
        let mut center = Vector3::new(0.0, 0.5 * height, 0.0);
        center[axis] = side * (half_side + 0.5);
        wall(&mut world, half, center);
    }
    if lid {
        wall(
            &mut world,
            Vector3::new(half_side + 1.0, 0.5, half_side + 1.0),
            Vector3::new(0.0, height + 0.5, 0.0),
        );
    }
    let mut rng = SplitMix(seed);
    let origin = -0.5 * spacing * (per_row as Real - 1.0);
    for i in 0..count {
        let (column, row, layer) = (
            i % per_row,
            (i / per_row) % per_row,
            i / (per_row * per_row),
        );
        let position = Vector3::new(
            origin + spacing * column as Real,
            1.0 + spacing * layer as Real,
            origin + spacing * row as Real,
        );
        let desc = mixed_body(&mut rng, i, |rng| {
            geom::uniform_rotation(rng.unit(), rng.unit(), rng.unit())
        });
        world.insert(desc.position(position)).expect("a valid body");
    }
    let inside = geom::Aabb::new(
        geom::Point3::new(-half_side, 0.0, -half_side),
        geom::Point3::new(half_side, height, half_side),
    );
    (world, inside)
}

/// A static grey wall of `half` extents centred at `center`.
fn wall(world: &mut World, half: Vector3, center: Vector3) {
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(half)
                .position(center)
                .color([0.4, 0.4, 0.45]),
        )
        .expect("a valid wall");
}

/// Body `i` of a seeded mix: every third a green ball (radius 0.2 to 0.5 m), the others orange
/// boxes (half extents 0.2 to 0.5 m) turned by `turn`.
fn mixed_body(
    rng: &mut SplitMix,
    i: usize,
    turn: impl FnOnce(&mut SplitMix) -> geom::UnitQuaternion,
) -> BodyDesc {
    if i % 3 == 2 {
        return BodyDesc::dynamic()
            .ball(0.2 + 0.3 * rng.unit())
            .color([0.2, 0.7, 0.3]);
    }
    let half = Vector3::new(
        0.2 + 0.3 * rng.unit(),
        0.2 + 0.3 * rng.unit(),
        0.2 + 0.3 * rng.unit(),
    );
    let rotation = turn(rng);
    BodyDesc::dynamic()
        .cuboid(half)
        .rotation(rotation)
        .color([0.8, 0.4, 0.2])
}

/// The inner half size of the room made by [`room`] for `count` bodies.
pub fn room_half_side(count: usize) -> Real {
    0.5 * ROOM_SPACING * room_per_side(count) as Real + 1.0
}

/// The distance between neighbouring bodies' centres on [`room`]'s starting grid.
const ROOM_SPACING: Real = 1.5;

/// How many bodies [`room`] puts along each side of its grid.
fn room_per_side(count: usize) -> usize {
    (count as f64).cbrt().ceil().max(1.0) as usize
}

/// rapier's plank tower (`examples3d/stress_tests/keva3.rs`), its top `blocks` blocks (1 to 5;
/// rapier builds 5), with the default settings: planks of half extents (0.1, 0.5, 2.0) standing
/// on their narrow edges in crossed layers, each block closed by a layer of planks laid flat,
/// on a ground slab of half extents (50, 0.1, 50) whose top is `y = 0`. The blocks, bottom
/// first, are rapier's blocks `blocks` down to 1: block `i` is `i * 2` planks across and
/// `[13, 17, 21, 41, 83][i - 1]` layers high. Three blocks are 3,684 planks. Returns the world
/// and the planks, bottom first.
pub fn keva_tower(blocks: usize) -> (World, Vec<BodyHandle>) {
    assert!((1..=5).contains(&blocks), "keva_tower: 1 to 5 blocks");
    let mut world = World::new(WorldConfig::default());
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(50.0, 0.1, 50.0))
                .position(Vector3::new(0.0, -0.1, 0.0))
                .color([0.45, 0.45, 0.5]),
        )
        .expect("a valid ground");
    let half = Vector3::new(0.1, 0.5, 2.0);
    let layers = [0, 13, 17, 21, 41, 83];
    let mut planks = Vec::new();
    let mut block_height = 0.0;
    for i in (1..=blocks).rev() {
        let across = i * 2;
        let width = across as Real * half.z * 2.0;
        let shift = Vector3::new(-width / 2.0, block_height, -width / 2.0);
        keva_block(
            &mut world,
            &mut planks,
            half,
            shift,
            (across, layers[i], across * 3 + 1),
        );
        block_height += layers[i] as Real * half.y * 2.0 + half.x * 2.0;
    }
    (world, planks)
}

/// One block of [`keva_tower`] (rapier's `build_block`): `numy` layers of planks on edge, the
/// layers turned a quarter turn from each other (a layer along x has `numz` planks spread over
/// the block's width, a layer along z `numx` side by side), then a closing layer laid flat.
fn keva_block(
    world: &mut World,
    planks: &mut Vec<BodyHandle>,
    half: Vector3,
    shift: Vector3,
    (mut numx, numy, mut numz): (usize, usize, usize),
) {
    let dimensions = [half, Vector3::new(half.z, half.y, half.x)];
    let block_width = 2.0 * half.z * numx as Real;
    let block_height = 2.0 * half.y * numy as Real;
    let spacing = (half.z * numx as Real - half.x) / (numz as Real - 1.0);
    let mut plank = |dim: Vector3, at: Vector3, shade: Real| {
        let handle = world
            .insert(BodyDesc::dynamic().cuboid(dim).position(at + shift).color([
                0.85,
                0.65 + 0.2 * shade,
                0.4,
            ]))
            .expect("a valid plank");
        planks.push(handle);
    };
    for i in 0..numy {
        std::mem::swap(&mut numx, &mut numz);
        let dim = dimensions[i % 2];
        let y = dim.y * i as Real * 2.0;
        for j in 0..numx {
            let x = if i % 2 == 0 {
                spacing * j as Real * 2.0
            } else {
                dim.x * j as Real * 2.0
            };
            for k in 0..numz {
                let z = if i % 2 == 0 {
                    dim.z * k as Real * 2.0
                } else {
                    spacing * k as Real * 2.0
                };
                plank(dim, Vector3::new(x, y, z) + dim, (i % 2) as Real);
            }
        }
    }
    // The closing layer, laid flat.
    let dim = Vector3::new(half.z, half.x, half.y);
    for i in 0..(block_width / (dim.x * 2.0)) as usize {
        for j in 0..(block_width / (dim.z * 2.0)) as usize {
            let at = Vector3::new(
                i as Real * dim.x * 2.0 + dim.x,
                dim.y + block_height,
                j as Real * dim.z * 2.0 + dim.z,
            );
            plank(dim, at, 0.5);
        }
    }
}

/// Box3D's `BoxStack` sample (`samples/sample_stacking.cpp`) with the default settings: 40
/// cubes of half size 0.5 created apart, cube `i` at `y = 0.75 + 1.25 i` (a quarter of a metre
/// between neighbours), to fall onto each other and onto a ground whose top is `y = 0`.
/// Returns the world and the cubes, bottom first.
pub fn dropped_column(count: usize) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 40.0);
    let a = 0.5;
    let cubes = (0..count)
        .map(|i| {
            world
                .insert(
                    BodyDesc::dynamic()
                        .cuboid(Vector3::repeat(a))
                        .position(Vector3::new(0.0, 1.5 * a + 2.5 * a * i as Real, 0.0))
                        .color([0.3, 0.6, 0.9]),
                )
                .expect("a valid cube")
        })
        .collect();
    (world, cubes)
}

/// Box3D's large world (`shared/benchmarks.c`, `CreateLargeWorld`): `grid` by `grid` static
/// boxes of half extents `(5, 0.25, 5)` on a 10 m grid centred on the origin (1,000 by 1,000
/// in Box3D's benchmark). Balls are dropped onto it by [`large_world_drop`].
pub fn large_world(grid: usize) -> World {
    let mut world = World::new(WorldConfig::default());
    let cell = LARGE_WORLD_CELL;
    let half_span = 0.5 * cell * grid as Real;
    for i in 0..grid {
        let x = -half_span + (i as Real + 0.5) * cell;
        for j in 0..grid {
            let z = -half_span + (j as Real + 0.5) * cell;
            world
                .insert(
                    BodyDesc::fixed()
                        .cuboid(Vector3::new(0.5 * cell, 0.25, 0.5 * cell))
                        .position(Vector3::new(x, 0.0, z))
                        .color([0.45, 0.45, 0.5]),
                )
                .expect("a valid floor box");
        }
    }
    world
}

/// The large world's cell side (metres).
const LARGE_WORLD_CELL: Real = 10.0;

/// Box3D's `StepLargeWorld` before step `step` of a [`large_world`] of side `grid`: every
/// `interval` steps (5 in Box3D's benchmark) from step `interval` on, until `balls` are in
/// (100), a ball of radius 0.5 is dropped at `y = 1.5`, on a coarse grid over the inner 80% of
/// the floor. Returns the ball it dropped, if any.
pub fn large_world_drop(
    world: &mut World,
    grid: usize,
    step: usize,
    balls: usize,
    interval: usize,
) -> Option<BodyHandle> {
    let index = step / interval.max(1);
    if step == 0 || !step.is_multiple_of(interval.max(1)) || index > balls {
        return None;
    }
    let index = index - 1;
    let side = (1..).find(|s| s * s >= balls).unwrap_or(1);
    let (gi, gj) = (index % side, index / side);
    let half_span = 0.5 * LARGE_WORLD_CELL * grid as Real;
    let inset = 0.2 * half_span;
    let usable = 2.0 * (half_span - inset);
    let at = |g: usize| -half_span + inset + (g as Real + 0.5) * (usable / side as Real);
    world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .position(Vector3::new(at(gi), 1.5, at(gj)))
                .color([0.9, 0.5, 0.2]),
        )
        .ok()
}
