//! Scenes of the shapes beyond boxes and balls: a bin of capsules, boxes and balls poured in
//! (the shapes example, its render test), and Box3D's convex pile.

use crate::SplitMix;
use crate::scenes::ground;
use geom::{Isometry3, Point3, Real, Shape, UnitQuaternion, Vector3};
use world::{BodyDesc, BodyHandle, BodyKind, World, WorldConfig};

/// A rock: the hull of 14 points scattered about an ellipsoid of half axes (0.35, 0.25, 0.3).
fn rock(rng: &mut SplitMix) -> Shape {
    let points: Vec<Point3> = (0..14)
        .map(|_| {
            let d = rng.point(1.0).coords.normalize() * rng.range(0.8, 1.0);
            Point3::new(0.35 * d.x, 0.25 * d.y, 0.3 * d.z)
        })
        .collect();
    Shape::convex_hull(&points).expect("a rock")
}

/// A die of side 0.4 m with bevelled corners: 24 points, 14 faces.
fn die() -> Shape {
    let mut points = Vec::new();
    for i in 0..8 {
        let s = |bit: usize| if i & bit == 0 { -0.2 } else { 0.2 };
        for k in 0..3 {
            let mut p = Vector3::new(s(1), s(2), s(4));
            p[k] *= 0.8;
            points.push(Point3::from(p));
        }
    }
    Shape::convex_hull(&points).expect("a die")
}

/// A small table: a top (0.8 x 0.06 x 0.5 m) on four legs (0.06 x 0.4 x 0.06 m).
fn table() -> BodyDesc {
    let mut desc = BodyDesc::dynamic().part(
        Shape::cuboid(Vector3::new(0.4, 0.03, 0.25)).expect("a top"),
        Isometry3::translation(0.0, 0.2, 0.0),
        1.0,
    );
    for (x, z) in [(-0.35, -0.2), (0.35, -0.2), (-0.35, 0.2), (0.35, 0.2)] {
        desc = desc.part(
            Shape::cuboid(Vector3::new(0.03, 0.2, 0.03)).expect("a leg"),
            Isometry3::translation(x, 0.0, z),
            1.0,
        );
    }
    desc
}

/// A dumbbell: two balls on a capsule bar along x, the balls four times as dense.
fn dumbbell() -> BodyDesc {
    let across = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_2);
    BodyDesc::dynamic()
        .part(
            Shape::capsule(0.3, 0.05).expect("a bar"),
            Isometry3::from_parts(Vector3::zeros().into(), across),
            1.0,
        )
        .part(
            Shape::ball(0.15).expect("a weight"),
            Isometry3::translation(-0.35, 0.0, 0.0),
            4.0,
        )
        .part(
            Shape::ball(0.15).expect("a weight"),
            Isometry3::translation(0.35, 0.0, 0.0),
            4.0,
        )
}

/// An open bin (floor 8 x 8 m, walls 2 m high) and `count` bodies poured over it in layers:
/// capsules of three sizes, boxes, balls, rocks and dice (hulls), tables of five boxes and
/// dumbbells (compounds), turned at random (seeded). The bodies' handles in the order made.
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
            let desc = match i % 9 {
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
                4 => BodyDesc::dynamic().ball(0.25).color([0.4, 0.75, 0.45]),
                5 => BodyDesc::dynamic()
                    .shape(rock(&mut rng))
                    .color([0.55, 0.5, 0.45]),
                6 => BodyDesc::dynamic().shape(die()).color([0.95, 0.95, 0.9]),
                7 => table().color([0.6, 0.4, 0.25]),
                _ => dumbbell().color([0.35, 0.35, 0.4]),
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

/// PEEL's `BasicRandom` (Box3D's convex pile keeps it verbatim so that the hull is the same).
struct PeelRandom(u32);

impl PeelRandom {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(2_147_001_325).wrapping_add(715_136_305);
        self.0
    }

    /// In `[-0.5, 0.5]`.
    fn float(&mut self) -> Real {
        (self.next() & 0xffff) as Real / 65535.0 - 0.5
    }

    /// A direction: a point in the ball of radius 0.5 (rejection), normalised.
    fn direction(&mut self) -> Vector3 {
        loop {
            let p = Vector3::new(self.float(), self.float(), self.float());
            if p.norm_squared() <= 0.25 {
                return p.normalize();
            }
        }
    }
}

/// The convex pile's 32 points on a sphere of radius 2 (PEEL's generator, seed 42).
pub fn pile_hull_points() -> Vec<Point3> {
    let mut rng = PeelRandom(42);
    (0..32)
        .map(|_| Point3::from(rng.direction() * 2.0))
        .collect()
}

/// Box3D's convex pile (`shared/benchmarks.c`, `CreateConvexPile`, from PEEL): a ground of half
/// extents (250, 1, 250) at `y = -1`; `layers` layers (Box3D: 80) of 8 x 8 copies of one hull,
/// the hull of 32 points on a sphere of radius 2 (PEEL's generator, seed 42), 4 m apart, the
/// layers 4 m apart from `y = 2`. Returns the world and the hulls.
pub fn convex_pile(layers: usize) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 250.0);
    let (count, amplitude) = (8, 2.0);
    let hull = Shape::convex_hull(&pile_hull_points()).expect("the pile's hull");
    let scatter = 2.0 * amplitude;
    let mut hulls = Vec::with_capacity(layers * count * count);
    for layer in 0..layers {
        for z in 0..count {
            for x in 0..count {
                let at = Vector3::new(
                    (x as Real - 0.5 * count as Real) * scatter,
                    amplitude + 2.0 * amplitude * layer as Real,
                    (z as Real - 0.5 * count as Real) * scatter,
                );
                let desc = BodyDesc::dynamic()
                    .shape(hull.clone())
                    .position(at)
                    .density(1000.0)
                    .color([0.6, 0.5, 0.4]);
                hulls.push(world.insert(desc).expect("a hull of the pile"));
            }
        }
    }
    (world, hulls)
}

/// Box3D's washer (`shared/benchmarks.c`, `CreateWasher`): a ground of half extents
/// (60, 1, 60) at `y = -1`; a kinematic drum at (0, 21, 0) turning 25 degrees a second about z
/// (and drifting at (0.001, -0.002, 0) m/s, as Box3D's), one body of 40 eight-point hulls
/// (36 segments of the rim between radii 16 and 18, 20 m long, and 4 paddles between radii 14
/// and 16); `grid`^3 cubes of half size 0.2 inside it (Box3D: 20^3 = 8,000, each a box hull
/// there, a box here). Returns the world, the drum and the cubes.
pub fn washer(grid: usize) -> (World, BodyHandle, Vec<BodyHandle>) {
    use geom::Part;
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 60.0);
    let (r0, r1, r2) = (14.0, 16.0, 18.0);
    let (nd, pd) = (Vector3::new(0.0, 0.0, -10.0), Vector3::new(0.0, 0.0, 10.0));
    let angle = std::f32::consts::PI / 18.0;
    let q = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle);
    let qo = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.1 * angle);
    let hull = |points: [Vector3; 8]| {
        let points = points.map(Point3::from);
        Shape::convex_hull(&points).expect("a segment of the drum")
    };
    let mut parts = Vec::new();
    let mut u1 = Vector3::x();
    for i in 0..36 {
        let u2 = if i == 35 { Vector3::x() } else { q * u1 };
        let (a1, a2) = (qo.inverse() * u1, qo * u2);
        parts.push(Part::new(
            hull([
                nd + a1 * r1,
                nd + a1 * r2,
                nd + a2 * r1,
                nd + a2 * r2,
                pd + a1 * r1,
                pd + a1 * r2,
                pd + a2 * r1,
                pd + a2 * r2,
            ]),
            geom::Isometry3::identity(),
        ));
        if i % 9 == 0 {
            parts.push(Part::new(
                hull([
                    nd + u1 * r0,
                    nd + u1 * r1,
                    nd + u2 * r0,
                    nd + u2 * r1,
                    pd + u1 * r0,
                    pd + u1 * r1,
                    pd + u2 * r0,
                    pd + u2 * r1,
                ]),
                geom::Isometry3::identity(),
            ));
        }
        u1 = u2;
    }
    let mut drum = BodyDesc::kinematic()
        .position(Vector3::new(0.0, 21.0, 0.0))
        .angvel(Vector3::new(0.0, 0.0, 25.0_f32.to_radians()))
        .linvel(Vector3::new(0.001, -0.002, 0.0))
        .color([0.5, 0.55, 0.6]);
    for part in parts {
        drum = drum.part(part.shape, part.offset, part.density);
    }
    let drum = world.insert(drum).expect("the drum");
    let a = 0.2;
    let start = -2.0 * a * grid as Real;
    let mut cubes = Vec::with_capacity(grid * grid * grid);
    for i in 0..grid {
        for j in 0..grid {
            for k in 0..grid {
                let at = Vector3::new(
                    start + 4.0 * a * i as Real,
                    start + 21.0 + 4.0 * a * j as Real,
                    start + 4.0 * a * k as Real,
                );
                let cube = BodyDesc::dynamic()
                    .cuboid(Vector3::repeat(a))
                    .position(at)
                    .density(1000.0)
                    .color([0.9, 0.6, 0.2]);
                cubes.push(world.insert(cube).expect("a cube of the washer"));
            }
        }
    }
    (world, drum, cubes)
}

/// Box3D's junkyard (`shared/benchmarks.c`, `CreateJunkyard`, gravity -10, density 1000): a
/// ground of half extents (120, 1, 120) at `y = -1` and four walls of half extents (1, 8, 50)
/// and (50, 8, 1) at `x = +-50` and `z = +-50` (one static body of five box hulls in Box3D,
/// five static boxes here); `layers` layers (24 in Box3D) of 21 x 21 rocks at
/// `(-40 + 4 X, 4 Y + 25, -40 + 4 Z)`, each the hull of 10 points of a Fibonacci lattice on a
/// sphere of radius 1.5 (`b3CreateRock`); and a kinematic pusher, the hull of a 16-sided
/// cylinder of radius 4 and height 24 standing on the ground, at (35, 0, 0), which
/// [`junkyard_push`] drives round a circle before each step. Returns the world and the pusher.
pub fn junkyard(layers: usize) -> (World, BodyHandle) {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::new(0.0, -10.0, 0.0),
        ..WorldConfig::default()
    });
    let walls = [
        (
            Vector3::new(120.0, 1.0, 120.0),
            Vector3::new(0.0, -1.0, 0.0),
        ),
        (Vector3::new(1.0, 8.0, 50.0), Vector3::new(-50.0, 7.0, 0.0)),
        (Vector3::new(1.0, 8.0, 50.0), Vector3::new(50.0, 7.0, 0.0)),
        (Vector3::new(50.0, 8.0, 1.0), Vector3::new(0.0, 7.0, -50.0)),
        (Vector3::new(50.0, 8.0, 1.0), Vector3::new(0.0, 7.0, 50.0)),
    ];
    for (half_extents, at) in walls {
        let wall = BodyDesc::fixed()
            .cuboid(half_extents)
            .position(at)
            .color([0.45, 0.45, 0.5]);
        world.insert(wall).expect("a wall of the junkyard");
    }
    let rock = Shape::convex_hull(&rock_points(1.5)).expect("the junkyard's rock");
    for y in 0..layers {
        for x in 0..=20 {
            for z in 0..=20 {
                let at = Vector3::new(
                    -40.0 + 4.0 * x as Real,
                    4.0 * y as Real + 25.0,
                    -40.0 + 4.0 * z as Real,
                );
                let desc = BodyDesc::dynamic()
                    .shape(rock.clone())
                    .position(at)
                    .density(1000.0)
                    .color([0.55, 0.5, 0.45]);
                world.insert(desc).expect("a rock of the junkyard");
            }
        }
    }
    let sides = 16;
    let cylinder: Vec<Point3> = (0..sides)
        .flat_map(|k| {
            let alpha = 2.0 * std::f32::consts::PI * k as Real / sides as Real;
            let (s, c) = alpha.sin_cos();
            [
                Point3::new(4.0 * c, 0.0, 4.0 * s),
                Point3::new(4.0 * c, 24.0, 4.0 * s),
            ]
        })
        .collect();
    let pusher = BodyDesc::kinematic()
        .shape(Shape::convex_hull(&cylinder).expect("the pusher's cylinder"))
        .position(Vector3::new(JUNKYARD_RADIUS, 0.0, 0.0))
        .color([0.5, 0.55, 0.6]);
    let pusher = world.insert(pusher).expect("the pusher");
    (world, pusher)
}

/// The radius of the junkyard pusher's circle.
const JUNKYARD_RADIUS: Real = 35.0;

/// Box3D's `StepJunkyard`: before step `step` (from 0), the pusher's target is `-6 (step + 1)`
/// degrees round its circle (6 degrees a second back, at 60 steps a second), unturned.
pub fn junkyard_push(world: &mut World, pusher: BodyHandle, step: usize) {
    let degrees = -6.0 * (step + 1) as Real / 60.0;
    let (s, c) = degrees.to_radians().sin_cos();
    let target = Isometry3::translation(JUNKYARD_RADIUS * c, 0.0, JUNKYARD_RADIUS * s);
    world
        .body_mut(pusher)
        .expect("the pusher")
        .set_target_pose(target)
        .expect("a valid target");
}

/// `b3CreateRock`: 10 points of a Fibonacci lattice on a sphere of `radius`.
pub fn rock_points(radius: Real) -> Vec<Point3> {
    let count = 10;
    let phi = (1.0 + Real::sqrt(5.0)) / 2.0;
    let theta = 2.0 * std::f32::consts::PI / phi;
    (0..count)
        .map(|i| {
            let z = 1.0 - (2.0 * i as Real + 1.0) / count as Real;
            let xy = (1.0 - z * z).sqrt();
            let (s, c) = (theta * i as Real).sin_cos();
            Point3::new(radius * xy * c, radius * xy * s, radius * z)
        })
        .collect()
}

/// The ground of rapier's stress tests: half extents (200.1, 0.1, 200.1), its top at `y = 0`,
/// rapier's friction (0.5).
fn rapier_stress_ground() -> World {
    let mut world = World::new(WorldConfig::default());
    world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(200.1, 0.1, 200.1))
                .position(Vector3::new(0.0, -0.1, 0.0))
                .friction(0.5),
        )
        .expect("a valid ground");
    world
}

/// rapier's `capsules3` stress test (`examples3d/stress_tests/capsules3.rs`): a ground of half
/// extents (200.1, 0.1, 200.1) whose top is `y = 0`, and 47 layers of 8 x 8 capsules (radius 1,
/// half height 1) on its grid, each layer shifted by 0.35 m: 3,008 capsules. rapier's density
/// (1) and friction (0.5).
pub fn capsules3() -> World {
    let mut world = rapier_stress_ground();
    let rad = 1.0;
    for at in rapier_grid(8, 47, rad * 2.0 + rad, rad * 4.0, rad) {
        let capsule = BodyDesc::dynamic()
            .capsule(rad, rad)
            .position(at)
            .friction(0.5)
            .color([0.9, 0.55, 0.2]);
        world.insert(capsule).expect("a capsule");
    }
    world
}

/// The places rapier's stress tests drop their bodies at, in its order: `layers` layers of
/// `num` x `num`, `shift` apart across and `rise` apart up, the first half a shift and 3 m
/// over the ground, each layer moved by `-0.05 rad (num - 1)` along x and z.
fn rapier_grid(num: usize, layers: usize, shift: Real, rise: Real, rad: Real) -> Vec<Vector3> {
    let centerx = shift * (num / 2) as Real;
    let centery = shift / 2.0;
    let centerz = shift * (num / 2) as Real;
    let mut offset = -(num as Real) * shift * 0.5;
    let mut places = Vec::with_capacity(layers * num * num);
    for j in 0..layers {
        for i in 0..num {
            for k in 0..num {
                places.push(Vector3::new(
                    i as Real * shift - centerx + offset,
                    j as Real * rise + centery + 3.0,
                    k as Real * shift - centerz + offset,
                ));
            }
        }
        offset -= 0.05 * rad * (num as Real - 1.0);
    }
    places
}

/// rapier's `convex_polyhedron3` stress test (`examples3d/stress_tests/convex_polyhedron3.rs`):
/// the ground of [`capsules3`] and 47 layers of 8 x 8 hulls, each of 10 points uniform in the
/// cube [0, 2)^3 of its body's frame, 2.2 m apart (rapier's spacing): 3,008 hulls. rapier
/// rounds its hulls by 0.1 m (`round_convex_hull`); these are not rounded (minirigid has no
/// rounded hulls), and its points are drawn by [`SplitMix`] (seed 0), not rapier's `StdRng`.
/// rapier's density (1) and friction (0.5).
pub fn convex_polyhedron3() -> World {
    let mut world = rapier_stress_ground();
    let (scale, border_rad) = (2.0, 0.1);
    let shift = border_rad * 2.0 + scale;
    let mut rng = SplitMix(0);
    for at in rapier_grid(8, 47, shift, shift, 1.0) {
        // (Ten random points are in one plane with probability zero; drawn again if so.)
        let hull = loop {
            let points: Vec<Point3> = (0..10)
                .map(|_| Point3::new(rng.unit(), rng.unit(), rng.unit()) * scale)
                .collect();
            if let Ok(hull) = Shape::convex_hull(&points) {
                break hull;
            }
        };
        let body = BodyDesc::dynamic()
            .shape(hull)
            .position(at)
            .friction(0.5)
            .color([0.55, 0.6, 0.85]);
        world.insert(body).expect("a hull");
    }
    world
}

/// rapier's `compound3` stress test (`examples3d/stress_tests/compound3.rs`): the ground of
/// [`capsules3`] and 25 layers of 8 x 8 U shapes, each one body of three boxes (a bar of half
/// extents (2, 0.2, 0.2) and two uprights (0.2, 2, 0.2) at (+-2, 2, 0)): 1,600 bodies, 4,800
/// boxes. rapier's density (1) and friction (0.5).
pub fn compound3() -> World {
    let mut world = rapier_stress_ground();
    let (num, rad) = (8, 0.2);
    let shift = rad * 4.0 + rad;
    let centerx = shift * (num / 2) as Real;
    let centery = shift / 2.0;
    let centerz = shift * (num / 2) as Real;
    let mut offset = -(num as Real) * (rad * 2.0 + rad) * 0.5;
    let bar = Shape::cuboid(Vector3::new(rad * 10.0, rad, rad)).expect("a bar");
    let upright = Shape::cuboid(Vector3::new(rad, rad * 10.0, rad)).expect("an upright");
    for j in 0..25 {
        for i in 0..num {
            for k in 0..num {
                let at = Vector3::new(
                    i as Real * shift * 5.0 - centerx + offset,
                    j as Real * (shift * 5.0) + centery + 3.0,
                    k as Real * shift * 2.0 - centerz + offset,
                );
                let u = BodyDesc::dynamic()
                    .part(bar.clone(), Isometry3::identity(), 1.0)
                    .part(
                        upright.clone(),
                        Isometry3::translation(rad * 10.0, rad * 10.0, 0.0),
                        1.0,
                    )
                    .part(
                        upright.clone(),
                        Isometry3::translation(-rad * 10.0, rad * 10.0, 0.0),
                        1.0,
                    )
                    .position(at)
                    .friction(0.5)
                    .color([0.3, 0.55, 0.85]);
                world.insert(u).expect("a U");
            }
        }
        offset -= 0.05 * rad * (num as Real - 1.0);
    }
    world
}
