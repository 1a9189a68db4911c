//! Shared by the collide tests: a seeded random stream, random volumes, and an independent
//! f64 separating axis test used as the reference for depths.

#![allow(dead_code)]

use geom::na;
use geom::{Obb, Point3, Real, Vector3};

pub use testbed::SplitMix as Rng;

/// A box as in the benches: half extents 0.5 to 2, centre in a cube of side 4.
pub fn random_obb(rng: &mut Rng) -> Obb {
    let half = Vector3::new(
        rng.range(0.5, 2.0),
        rng.range(0.5, 2.0),
        rng.range(0.5, 2.0),
    );
    Obb::new(rng.point(2.0), rng.rotation(), half)
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
