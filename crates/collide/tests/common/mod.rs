//! Shared by the collide tests: a seeded random stream, random volumes, and an independent
//! f64 separating axis test used as the reference for depths.

#![allow(dead_code)]

use geom::na;
use geom::{Obb, Point3, Real, UnitQuaternion, Vector3};

/// SplitMix64: a small, seeded generator so that every run draws the same cases.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> Real {
        (self.next_u64() >> 40) as Real / (1u64 << 24) as Real
    }

    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }

    pub fn point(&mut self, half_side: Real) -> Point3 {
        Point3::new(
            self.range(-half_side, half_side),
            self.range(-half_side, half_side),
            self.range(-half_side, half_side),
        )
    }

    /// A uniformly random rotation (Shoemake, Graphics Gems III).
    pub fn rotation(&mut self) -> UnitQuaternion {
        geom::uniform_rotation(self.unit(), self.unit(), self.unit())
    }

    pub fn unit_vector(&mut self) -> Vector3 {
        self.rotation() * Vector3::x()
    }

    /// A box as in the benches: half extents 0.5 to 2, centre in a cube of side 4.
    pub fn obb(&mut self) -> Obb {
        let half = Vector3::new(
            self.range(0.5, 2.0),
            self.range(0.5, 2.0),
            self.range(0.5, 2.0),
        );
        Obb::new(self.point(2.0), self.rotation(), half)
    }
}

/// The exact SAT in f64 with explicit axes: the largest gap over the 15 axes (positive:
/// separated; otherwise minus the exact penetration depth) and its unit axis from A toward B.
pub fn sat64(a: &Obb, b: &Obb) -> (f64, na::Vector3<f64>) {
    let axes_of = |o: &Obb| {
        let m = o.rotation.to_rotation_matrix().matrix().cast::<f64>();
        [0, 1, 2].map(|i| m.column(i).into_owned())
    };
    let (aa, ba) = (axes_of(a), axes_of(b));
    let (ha, hb) = (a.half_extents.cast::<f64>(), b.half_extents.cast::<f64>());
    let d = (b.center - a.center).cast::<f64>();
    let mut candidates: Vec<na::Vector3<f64>> = aa.iter().chain(ba.iter()).copied().collect();
    for x in &aa {
        for y in &ba {
            let l = x.cross(y);
            if l.norm() > 1e-9 {
                candidates.push(l.normalize());
            }
        }
    }
    let mut best = (f64::NEG_INFINITY, na::Vector3::zeros());
    for l in candidates {
        let ra: f64 = (0..3).map(|i| ha[i] * l.dot(&aa[i]).abs()).sum();
        let rb: f64 = (0..3).map(|i| hb[i] * l.dot(&ba[i]).abs()).sum();
        let s = d.dot(&l);
        let gap = s.abs() - ra - rb;
        if gap > best.0 {
            best = (gap, if s < 0.0 { -l } else { l });
        }
    }
    best
}

/// `b` moved by `offset`.
pub fn moved(b: &Obb, offset: &Vector3) -> Obb {
    Obb::new(b.center + offset, b.rotation, b.half_extents)
}

/// How far `p` lies outside `o` (negative inside), in the box's own frame.
pub fn outside(o: &Obb, p: &Point3) -> Real {
    (o.to_local(p).coords.abs() - o.half_extents).max()
}
