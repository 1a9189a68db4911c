//! The separating axis test of up to eight box pairs at once, one pair in each SIMD lane
//! (`wide`'s `f32x8`: one AVX register where the build targets AVX, else two SSE halves), for
//! the solver's manifold ([`Pair::query_within`](super::sat::Pair::query_within)). Every lane
//! runs the scalar query's arithmetic in the scalar query's order (the rotation matrices as
//! nalgebra makes them from the quaternions, `R` and `t` as its `tr_mul` sums them, each gap as
//! `query_kinds` computes it), and the choices it makes become selects: each lane's answer is
//! the scalar one, bit for bit. The query does not stop at the first separating axis: a pair
//! found apart is `None` either way.

use super::sat::{DEGENERATE_EDGE_SQ, Kept, SatAxis, WithinAxes};
use geom::{Obb, Real};
use wide::f32x8;

/// How many pairs one query takes.
pub(super) const LANES: usize = 8;

type Vec3 = [f32x8; 3];
/// Indexed `[row][column]`.
type Mat3 = [[f32x8; 3]; 3];

/// The pairs of one query, a lane each (lanes past the pairs repeat the first).
type Lanes<'a, 'p> = [&'p (&'a Obb, &'a Obb, Real); LANES];

/// One value of each lane's pair, read into the lanes.
#[inline]
fn gather(lanes: &Lanes<'_, '_>, value: impl Fn(&(&Obb, &Obb, Real)) -> Real) -> f32x8 {
    f32x8::new(lanes.map(value))
}

/// The rotation matrix of unit quaternions `[i, j, k, w]`, as
/// `UnitQuaternion::to_rotation_matrix` computes it.
fn rotation([i, j, k, w]: [f32x8; 4]) -> Mat3 {
    let two = f32x8::splat(2.0);
    let (ww, ii, jj, kk) = (w * w, i * i, j * j, k * k);
    let (ij, wk, wj) = (i * j * two, w * k * two, w * j * two);
    let (ik, jk, wi) = (i * k * two, j * k * two, w * i * two);
    [
        [ww + ii - jj - kk, ij - wk, wj + ik],
        [wk + ij, ww - ii + jj - kk, jk - wi],
        [ik - wj, wi + jk, ww - ii - jj + kk],
    ]
}

/// A three-term dot product summed as nalgebra sums it: `(a0 b0 + a1 b1) + a2 b2`.
#[inline]
fn dot(a: [f32x8; 3], b: [f32x8; 3]) -> f32x8 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The best axis of one kind so far, lane by lane: its gap, its index, the offset of the
/// centres along it, and whether the lane has one yet (all bits set where it has).
#[derive(Clone, Copy)]
struct Best {
    separation: f32x8,
    index: f32x8,
    dist: f32x8,
    some: f32x8,
}

impl Best {
    fn none() -> Self {
        Self {
            separation: f32x8::splat(Real::NEG_INFINITY),
            index: f32x8::ZERO,
            dist: f32x8::ZERO,
            some: f32x8::ZERO,
        }
    }

    /// Takes the candidate where `take` is set.
    fn take(&mut self, take: f32x8, separation: f32x8, index: Real, dist: f32x8) {
        self.separation = take.select(separation, self.separation);
        self.index = take.select(f32x8::splat(index), self.index);
        self.dist = take.select(dist, self.dist);
        self.some |= take;
    }

    /// Each lane's axis, made from its index by `axis` (`None` in a lane without one).
    fn kept(&self, axis: impl Fn(u8) -> SatAxis) -> [Option<Kept>; LANES] {
        let some = self.some.to_bitmask();
        let (separation, index) = (self.separation.to_array(), self.index.to_array());
        let dist = self.dist.to_array();
        std::array::from_fn(|k| {
            (some & (1 << k) != 0)
                .then(|| Kept::new(axis(index[k] as u8), separation[k], Some(dist[k])))
        })
    }
}

/// [`Pair::query_within`](super::sat::Pair::query_within) of each pair `(a, b, margin)`
/// (at most [`LANES`]), in order; entries past the pairs are `None`.
pub(super) fn query_within(pairs: &[(&Obb, &Obb, Real)]) -> [Option<WithinAxes>; LANES] {
    debug_assert!(pairs.len() <= LANES);
    let count = pairs.len();
    let Some(first) = pairs.first() else {
        return [None; LANES];
    };
    let pairs: &Lanes<'_, '_> = &std::array::from_fn(|k| pairs.get(k).unwrap_or(first));
    let quaternion = |of_b: bool| -> [f32x8; 4] {
        std::array::from_fn(|c| {
            gather(pairs, |(a, b, _)| {
                let obb = if of_b { b } else { a };
                obb.rotation.as_ref().coords[c]
            })
        })
    };
    let ma = rotation(quaternion(false));
    let mb = rotation(quaternion(true));
    let ha: Vec3 = std::array::from_fn(|c| gather(pairs, |(a, _, _)| a.half_extents[c]));
    let hb: Vec3 = std::array::from_fn(|c| gather(pairs, |(_, b, _)| b.half_extents[c]));
    let d: Vec3 = std::array::from_fn(|c| gather(pairs, |(a, b, _)| b.center[c] - a.center[c]));
    let margin = gather(pairs, |&(_, _, margin)| margin);

    let column = |m: &Mat3, c: usize| [m[0][c], m[1][c], m[2][c]];
    // `R[i][j] = A_i . B_j` and `t = A^T d`, as `Matrix3::tr_mul` makes them.
    let r: Mat3 =
        std::array::from_fn(|i| std::array::from_fn(|j| dot(column(&ma, i), column(&mb, j))));
    let t: Vec3 = std::array::from_fn(|i| dot(column(&ma, i), d));
    let abs_r: Mat3 = r.map(|row| row.map(f32x8::abs));

    let mut separated = f32x8::ZERO;
    // A's faces.
    let mut face_a = Best::none();
    for i in 0..3 {
        let rb = dot(hb, abs_r[i]);
        let separation = t[i].abs() - (ha[i] + rb);
        face_a.take(
            separation.simd_gt(face_a.separation),
            separation,
            i as Real,
            t[i],
        );
        separated |= separation.simd_gt(margin);
    }
    // B's faces.
    let mut face_b = Best::none();
    #[allow(clippy::needless_range_loop)] // `j` picks a column of `R` as well as `hb[j]`
    for j in 0..3 {
        let ra = dot(ha, column(&abs_r, j));
        let dist = dot(t, column(&r, j));
        let separation = dist.abs() - (ra + hb[j]);
        let take = !face_b.some | separation.simd_gt(face_b.separation);
        face_b.take(take, separation, j as Real, dist);
        separated |= separation.simd_gt(margin);
    }
    // The edges, `A_i x B_j`, in the scalar query's order (`i` outer); a degenerate one is
    // skipped.
    let mut edge = Best::none();
    let degenerate = f32x8::splat(DEGENERATE_EDGE_SQ);
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let length_sq = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
            let valid = !length_sq.simd_lt(degenerate);
            let ra = ha[i1] * abs_r[i2][j] + ha[i2] * abs_r[i1][j];
            let rb = hb[j1] * abs_r[i][j2] + hb[j2] * abs_r[i][j1];
            let dist = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            let separation = (dist.abs() - (ra + rb)) / length_sq.sqrt();
            let take = valid & (!edge.some | separation.simd_gt(edge.separation));
            edge.take(take, separation, (3 * i + j) as Real, dist);
            separated |= valid & separation.simd_gt(margin);
        }
    }

    let separated = separated.to_bitmask();
    let (face_a, face_b) = (face_a.kept(SatAxis::FaceA), face_b.kept(SatAxis::FaceB));
    let edge = edge.kept(|e| SatAxis::Edge(e / 3, e % 3));
    std::array::from_fn(|k| {
        if k >= count || separated & (1 << k) != 0 {
            return None;
        }
        // Without a gap above minus infinity (NaN input), A's best is A0 with no offset.
        let face_a =
            face_a[k].unwrap_or_else(|| Kept::new(SatAxis::FaceA(0), Real::NEG_INFINITY, None));
        // B's first face is always taken.
        let face_b = face_b[k].unwrap_or(face_a);
        Some(WithinAxes {
            face_a,
            face_b,
            edge: edge[k],
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::box_box::sat::Pair;
    use geom::{Point3, UnitQuaternion, Vector3};
    use testbed::SplitMix;

    /// Box pairs of every kind the query meets: random, stacked and turned a little or not at
    /// all (degenerate edge axes), equal cubes on a lattice (exact ties among the axes), one
    /// inside the other, zero-size, and with NaN centres.
    fn cases(rng: &mut SplitMix) -> Vec<(Obb, Obb, Real)> {
        let mut out = Vec::new();
        for n in 0..4_000 {
            let half = |rng: &mut SplitMix| {
                Vector3::new(
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                )
            };
            let a = Obb::new(rng.point(1.0), rng.rotation(), half(rng));
            let margin = if n % 5 == 0 { 0.0 } else { rng.range(0.0, 0.1) };
            let b = match n % 6 {
                0 => Obb::new(rng.point(1.5), rng.rotation(), half(rng)),
                1 | 2 => {
                    let tilt = if n % 2 == 0 {
                        UnitQuaternion::identity()
                    } else {
                        UnitQuaternion::from_scaled_axis(rng.unit_vector() * 1e-3)
                    };
                    let h = half(rng);
                    let up = a.rotation * Vector3::y() * (a.half_extents.y + h.y);
                    let side = a.rotation * Vector3::new(rng.range(-0.5, 0.5), 0.0, 0.0);
                    Obb::new(a.center + up + side, a.rotation * tilt, h)
                }
                3 => {
                    let mut step = || (rng.next_u64() % 5) as Real * 0.25 - 0.5;
                    let offset = Vector3::new(step(), step(), step());
                    let cube = Vector3::repeat(0.5);
                    let a = Obb::new(Point3::origin(), UnitQuaternion::identity(), cube);
                    out.push((a, Obb::new(Point3::from(offset), a.rotation, cube), margin));
                    continue;
                }
                4 => Obb::new(a.center, rng.rotation(), a.half_extents * 0.5),
                _ if n % 60 == 5 => {
                    Obb::new(Point3::new(Real::NAN, 0.0, 0.0), rng.rotation(), half(rng))
                }
                _ => Obb::new(rng.point(1.0), rng.rotation(), Vector3::zeros()),
            };
            out.push((a, b, margin));
        }
        out
    }

    #[test]
    fn every_lane_gives_the_scalar_query_bit_for_bit() {
        let mut rng = SplitMix(77);
        let cases = cases(&mut rng);
        let (mut apart, mut edges) = (0, 0);
        // Runs of 1 to 8 pairs, so that lanes past the pairs are exercised too.
        let mut start = 0;
        while start < cases.len() {
            let len = (1 + rng.next_u64() % 8) as usize;
            let chunk: Vec<(&Obb, &Obb, Real)> = cases[start..(start + len).min(cases.len())]
                .iter()
                .map(|(a, b, m)| (a, b, *m))
                .collect();
            let lanes = query_within(&chunk);
            for (k, lane) in lanes.iter().enumerate() {
                let Some(&(a, b, margin)) = chunk.get(k) else {
                    assert_eq!(*lane, None);
                    continue;
                };
                let scalar = Pair::new(a, b).query_within(margin);
                // Printed, so that -0 and 0 differ and NaN equals NaN.
                assert_eq!(
                    format!("{lane:?}"),
                    format!("{scalar:?}"),
                    "{a:?} {b:?} {margin}"
                );
                apart += usize::from(scalar.is_none());
                edges += usize::from(scalar.is_some_and(|s| s.edge.is_some()));
            }
            start += chunk.len();
        }
        assert!(
            apart > 100 && edges > 100,
            "{apart} apart, {edges} with an edge axis"
        );
    }
}
