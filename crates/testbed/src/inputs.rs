//! Seeded inputs for the collision benches (and the tests that check them): pairs of volumes,
//! rays, and boxes moving along fixed paths. No world: the collision layer alone.

use crate::SplitMix;
use geom::{Real, Vector3};

/// `count` seeded pairs of boxes as the pair benches use them: half extents 0.5 to 2 m, centres in
/// a cube of side 4 m, uniformly random rotations (about 70% of the pairs overlap).
pub fn box_pairs(count: usize, seed: u64) -> Vec<(geom::Obb, geom::Obb)> {
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| (random_box(&mut rng), random_box(&mut rng)))
        .collect()
}

/// `count` seeded sphere-box pairs: boxes as in [`box_pairs`], spheres of radius 0.2 to 2 m with
/// centres in a cube of side 6 m.
pub fn sphere_box_pairs(count: usize, seed: u64) -> Vec<(geom::Sphere, geom::Obb)> {
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| {
            let obb = random_box(&mut rng);
            let center =
                geom::Point3::new(3.0 * rng.signed(), 3.0 * rng.signed(), 3.0 * rng.signed());
            (geom::Sphere::new(center, 0.2 + 1.8 * rng.unit()), obb)
        })
        .collect()
}

/// `count` seeded rays against boxes: boxes as in [`box_pairs`], rays from a cube of side 12 m
/// aimed near the box (about half hit), unit directions.
pub fn ray_box_pairs(count: usize, seed: u64) -> Vec<(geom::Ray, geom::Obb)> {
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| {
            let obb = random_box(&mut rng);
            let origin =
                geom::Point3::new(6.0 * rng.signed(), 6.0 * rng.signed(), 6.0 * rng.signed());
            let target = obb.center
                + Vector3::new(2.5 * rng.signed(), 2.5 * rng.signed(), 2.5 * rng.signed());
            let dir = (target - origin)
                .try_normalize(1e-6)
                .unwrap_or(Vector3::x());
            (geom::Ray::new(origin, dir), obb)
        })
        .collect()
}

fn random_box(rng: &mut SplitMix) -> geom::Obb {
    let half = Vector3::new(
        0.5 + 1.5 * rng.unit(),
        0.5 + 1.5 * rng.unit(),
        0.5 + 1.5 * rng.unit(),
    );
    let center = geom::Point3::new(2.0 * rng.signed(), 2.0 * rng.signed(), 2.0 * rng.signed());
    let rotation = geom::uniform_rotation(rng.unit(), rng.unit(), rng.unit());
    geom::Obb::new(center, rotation, half)
}

/// `count` boxes (half extents 0.3 to 0.7 m, random rotations) moving at constant velocities
/// (up to 2 m/s) inside a cube sized for about one neighbour per box, bouncing off its faces:
/// the collision-detection bench's scene. `positions(step)` gives every box's pose at a step.
pub struct MovingBoxes {
    /// Each box's half extents.
    pub half_extents: Vec<Vector3>,
    /// Each box's orientation (constant).
    pub rotations: Vec<geom::UnitQuaternion>,
    starts: Vec<Vector3>,
    velocities: Vec<Vector3>,
    /// Half the side of the region (metres).
    pub half_side: Real,
}

impl MovingBoxes {
    /// The scene for `count` boxes.
    pub fn new(count: usize, seed: u64) -> Self {
        let mut rng = SplitMix(seed);
        let half_side = 1.5 * (count as Real).cbrt();
        let mut scene = Self {
            half_extents: Vec::with_capacity(count),
            rotations: Vec::with_capacity(count),
            starts: Vec::with_capacity(count),
            velocities: Vec::with_capacity(count),
            half_side,
        };
        for _ in 0..count {
            scene.half_extents.push(Vector3::new(
                0.3 + 0.4 * rng.unit(),
                0.3 + 0.4 * rng.unit(),
                0.3 + 0.4 * rng.unit(),
            ));
            scene
                .rotations
                .push(geom::UnitQuaternion::from_euler_angles(
                    3.0 * rng.signed(),
                    3.0 * rng.signed(),
                    3.0 * rng.signed(),
                ));
            scene
                .starts
                .push(Vector3::new(rng.signed(), rng.signed(), rng.signed()) * half_side);
            scene
                .velocities
                .push(Vector3::new(rng.signed(), rng.signed(), rng.signed()) * 2.0);
        }
        scene
    }

    /// The number of boxes.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The centre of box `i` at `time` seconds: straight motion folded back into the region.
    pub fn position(&self, i: usize, time: Real) -> Vector3 {
        let fold = |x: Real| {
            let h = self.half_side;
            let period = 4.0 * h;
            let t = (x + h).rem_euclid(period);
            if t <= 2.0 * h { t - h } else { 3.0 * h - t }
        };
        let p = self.starts[i] + self.velocities[i] * time;
        Vector3::new(fold(p.x), fold(p.y), fold(p.z))
    }
}
