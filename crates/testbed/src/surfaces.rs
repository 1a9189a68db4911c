//! Triangle surfaces for tests, benches and the level example: flat and shaped grids as
//! meshes, heightfields, and a small level (ramps, stairs, a bowl).

use crate::SplitMix;
use collide::ray_volume;
use geom::{Point3, Ray, Real, Shape, Vector3};
use world::{BodyDesc, BodyHandle, World, WorldConfig};

/// The ghost-bump probes on a floor whose top is `y = 0`: a unit cube sliding at 5 m/s along x
/// from `x = -45` (at `z = 0.3`, so that it also rides a seam or an edge along x),
/// frictionless, and a unit ball rolling at 5 m/s beside it (at `z = 5.3`). Returns both.
pub fn sliders(world: &mut World) -> (BodyHandle, BodyHandle) {
    let cube = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 0.5, 0.5))
                .position(Vector3::new(-45.0, 0.5, 0.3))
                .linvel(Vector3::new(5.0, 0.0, 0.0))
                .friction(0.0),
        )
        .expect("a cube");
    let ball = world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .position(Vector3::new(-45.0, 0.5, 5.3))
                .linvel(Vector3::new(5.0, 0.0, 0.0))
                .angvel(Vector3::new(0.0, 0.0, -10.0)),
        )
        .expect("a ball");
    (cube, ball)
}

/// A grid of `nx` by `nz` square cells of side `cell` over x and z, centred on the origin,
/// two triangles a cell facing +y, each vertex at the height `height(x, z)`.
pub fn grid_mesh(
    nx: u32,
    nz: u32,
    cell: Real,
    height: impl Fn(Real, Real) -> Real,
) -> (Vec<Point3>, Vec<[u32; 3]>) {
    let (x0, z0) = (-0.5 * nx as Real * cell, -0.5 * nz as Real * cell);
    let mut vertices = Vec::with_capacity(((nx + 1) * (nz + 1)) as usize);
    for j in 0..=nz {
        for i in 0..=nx {
            let (x, z) = (x0 + i as Real * cell, z0 + j as Real * cell);
            vertices.push(Point3::new(x, height(x, z), z));
        }
    }
    let id = |i: u32, j: u32| j * (nx + 1) + i;
    let mut triangles = Vec::with_capacity((2 * nx * nz) as usize);
    for j in 0..nz {
        for i in 0..nx {
            let (v00, v10, v01, v11) = (id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1));
            triangles.push([v00, v01, v11]);
            triangles.push([v00, v11, v10]);
        }
    }
    (vertices, triangles)
}

/// [`grid_mesh`] as a shape.
pub fn grid_shape(nx: u32, nz: u32, cell: Real, height: impl Fn(Real, Real) -> Real) -> Shape {
    let (vertices, triangles) = grid_mesh(nx, nz, cell, height);
    Shape::trimesh(vertices, triangles).expect("a grid is a valid mesh")
}

/// A heightfield of `rows` by `columns` samples over a `size` by `size` square, its heights
/// `height(x, z)`.
pub fn heightfield(
    rows: u32,
    columns: u32,
    size: Real,
    height: impl Fn(Real, Real) -> Real,
) -> Shape {
    let mut heights = Vec::with_capacity((rows * columns) as usize);
    for r in 0..rows {
        for c in 0..columns {
            let x = -0.5 * size + c as Real * size / (columns - 1) as Real;
            let z = -0.5 * size + r as Real * size / (rows - 1) as Real;
            heights.push(height(x, z));
        }
    }
    Shape::heightfield(rows, columns, heights, Vector3::new(size, 1.0, size))
        .expect("a valid heightfield")
}

/// Triangles of closed solids, their vertices shared by position (so that triangles meeting
/// at an edge share it, and flat edges are found).
#[derive(Debug, Default)]
struct Solid {
    vertices: Vec<Point3>,
    triangles: Vec<[u32; 3]>,
}

impl Solid {
    fn vertex(&mut self, p: Point3) -> u32 {
        match self.vertices.iter().position(|v| *v == p) {
            Some(i) => i as u32,
            None => {
                self.vertices.push(p);
                self.vertices.len() as u32 - 1
            }
        }
    }

    /// A planar convex polygon (3 or 4 corners in order around it) facing `outward`.
    fn face(&mut self, corners: &[Point3], outward: Vector3) {
        let ids: Vec<u32> = corners.iter().map(|&p| self.vertex(p)).collect();
        let normal = (corners[1] - corners[0]).cross(&(corners[2] - corners[0]));
        let flip = normal.dot(&outward) < 0.0;
        for k in 1..ids.len() - 1 {
            let (b, c) = if flip {
                (ids[k + 1], ids[k])
            } else {
                (ids[k], ids[k + 1])
            };
            self.triangles.push([ids[0], b, c]);
        }
    }

    /// An axis-aligned box's faces but its bottom, merged into the solid.
    fn block(&mut self, lo: Point3, hi: Point3) {
        let p = |x: Real, y: Real, z: Real| Point3::new(x, y, z);
        let (x0, y0, z0, x1, y1, z1) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
        self.face(
            &[p(x0, y1, z0), p(x1, y1, z0), p(x1, y1, z1), p(x0, y1, z1)],
            Vector3::y(),
        );
        self.face(
            &[p(x0, y0, z0), p(x0, y1, z0), p(x0, y1, z1), p(x0, y0, z1)],
            -Vector3::x(),
        );
        self.face(
            &[p(x1, y0, z0), p(x1, y1, z0), p(x1, y1, z1), p(x1, y0, z1)],
            Vector3::x(),
        );
        self.face(
            &[p(x0, y0, z0), p(x1, y0, z0), p(x1, y1, z0), p(x0, y1, z0)],
            -Vector3::z(),
        );
        self.face(
            &[p(x0, y0, z1), p(x1, y0, z1), p(x1, y1, z1), p(x0, y1, z1)],
            Vector3::z(),
        );
    }

    fn shape(self) -> Shape {
        Shape::trimesh(self.vertices, self.triangles).expect("a valid solid")
    }
}

/// A ramp: a wedge over `x0..x1`, `z0..z1`, rising from the ground at `x0` to `height` at
/// `x1`, where it drops straight down.
pub fn ramp(x0: Real, x1: Real, z0: Real, z1: Real, height: Real) -> Shape {
    let mut solid = Solid::default();
    let p = Point3::new;
    let slope = Vector3::new(-height, x1 - x0, 0.0);
    solid.face(
        &[
            p(x0, 0.0, z0),
            p(x1, height, z0),
            p(x1, height, z1),
            p(x0, 0.0, z1),
        ],
        slope,
    );
    solid.face(
        &[
            p(x1, 0.0, z0),
            p(x1, height, z0),
            p(x1, height, z1),
            p(x1, 0.0, z1),
        ],
        Vector3::x(),
    );
    solid.face(
        &[p(x0, 0.0, z0), p(x1, 0.0, z0), p(x1, height, z0)],
        -Vector3::z(),
    );
    solid.face(
        &[p(x0, 0.0, z1), p(x1, 0.0, z1), p(x1, height, z1)],
        Vector3::z(),
    );
    solid.shape()
}

/// Stairs: `steps` steps over `z0..z1`, each `run` long along +x from `x0` and `rise` higher
/// than the one before; every step a block from the ground, sharing its sides' edges.
pub fn stairs(x0: Real, z0: Real, z1: Real, steps: u32, run: Real, rise: Real) -> Shape {
    let mut solid = Solid::default();
    for k in 0..steps {
        let x = x0 + k as Real * run;
        solid.block(
            Point3::new(x, 0.0, z0),
            Point3::new(x + run, (k + 1) as Real * rise, z1),
        );
    }
    solid.shape()
}

/// The level example's ground height: flat for `x < 0`, rolling hills beyond, a bowl 3 m deep
/// and 16 m across centred at `(20, 20)`, and a lip rising 4 m over the last 8 m to each edge
/// (so that what rolls stays on the level).
pub fn level_ground(x: Real, z: Real) -> Real {
    let lip = |t: Real| 4.0 * ((t.abs() - 32.0) / 8.0).max(0.0).powi(2);
    let ramp_in = (x / 10.0).clamp(0.0, 1.0);
    let hills = 1.5 * (0.3 * x).sin() * (0.25 * z).cos() * ramp_in * ramp_in;
    let d2 = (x - 20.0).powi(2) + (z - 20.0).powi(2);
    let bowl = if d2 < 64.0 {
        -3.0 * (1.0 - d2 / 64.0).powi(2)
    } else {
        0.0
    };
    hills + bowl + lip(x).max(lip(z))
}

/// The level: a heightfield 80 m across (81 x 81 samples) of [`level_ground`], a ramp and a
/// flight of stairs as meshes on its flat half, and `count` boxes and balls dropped over all
/// of it. Returns the world and the dynamic bodies.
pub fn level(count: u32) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(WorldConfig::default());
    let ground = heightfield(81, 81, 80.0, level_ground);
    world
        .insert(BodyDesc::fixed().shape(ground).color([0.35, 0.55, 0.3]))
        .expect("the ground");
    world
        .insert(
            BodyDesc::fixed()
                .shape(ramp(-32.0, -16.0, -20.0, -10.0, 4.0))
                .color([0.6, 0.6, 0.65]),
        )
        .expect("the ramp");
    world
        .insert(
            BodyDesc::fixed()
                .shape(stairs(-32.0, 6.0, 16.0, 6, 2.0, 0.5))
                .color([0.65, 0.6, 0.55]),
        )
        .expect("the stairs");
    let mut rng = SplitMix(5);
    let mut bodies = Vec::with_capacity(count as usize);
    for i in 0..count {
        // Over the ramp's top, the stairs' top, the hills and the bowl, in turn.
        let (cx, cz, spread) = match i % 4 {
            0 => (-19.0, -15.0, 3.0),
            1 => (-22.0, 11.0, 3.0),
            2 => (15.0, -10.0, 12.0),
            _ => (20.0, 20.0, 5.0),
        };
        let x = cx + (rng.unit() - 0.5) * spread;
        let z = cz + (rng.unit() - 0.5) * spread;
        let y = 6.0 + 1.5 * (i / 4) as Real;
        let rotation = geom::uniform_rotation(rng.unit(), rng.unit(), rng.unit());
        let desc = if i % 2 == 0 {
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.4, 0.3, 0.5))
                .color([0.9, 0.5, 0.1])
        } else {
            BodyDesc::dynamic().ball(0.4).color([0.2, 0.7, 0.3])
        };
        let desc = desc.position(Vector3::new(x, y, z)).rotation(rotation);
        bodies.push(world.insert(desc).expect("a body"));
    }
    (world, bodies)
}

/// How far the lowest of `bodies` sits above the surface under its centre (the top of every
/// static surface there, found by a ray straight down), less its own half height (a box's
/// smallest half extent, a ball's radius): about zero when resting, negative when sunk in;
/// and how many are below `y = -10` (through or off the level).
pub fn clearance(world: &World, bodies: &[BodyHandle]) -> (Real, usize) {
    let surfaces: Vec<_> = world
        .bodies()
        .filter(|(_, b)| b.collider().shape.is_surface())
        .map(|(_, b)| b.collider().shape.world(&b.collider().world_pose(b.pose())))
        .collect();
    let mut lowest = Real::INFINITY;
    let mut lost = 0;
    for &handle in bodies {
        let body = world.body(handle).expect("a body");
        let p = body.position();
        if p.y < -10.0 {
            lost += 1;
            continue;
        }
        let down = Ray::new(Point3::new(p.x, 100.0, p.z), -Vector3::y());
        let top = surfaces
            .iter()
            .filter_map(|s| ray_volume(&down, s, 200.0))
            .map(|hit| hit.point.y)
            .fold(Real::NEG_INFINITY, Real::max);
        let half = match &body.collider().shape {
            Shape::Cuboid { half_extents } => half_extents.min(),
            Shape::Ball { radius } | Shape::Capsule { radius, .. } => *radius,
            Shape::ConvexHull { hull } => hull.local_aabb().half_extents().min(),
            Shape::Compound { compound } => compound.local_aabb().half_extents().min(),
            Shape::TriMesh { .. } | Shape::HeightField { .. } => 0.0,
        };
        lowest = lowest.min(p.y - top - half);
    }
    (lowest, lost)
}
