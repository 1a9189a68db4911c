//! The algebra of 3x3 matrices and unit quaternions in lanes beyond `lanes`' vectors, each
//! operation nalgebra's in nalgebra's order, so that a lane's result is the same bits as the
//! nalgebra expression it stands for (the tests below): the ball joints' anchors and effective
//! mass (`joint::balls`) and the gyroscopic term (`gyroscopic`) are computed `L::WIDTH` at a
//! time with the bits of the one-at-a-time code they replaced.

use super::lanes::{Lane, M3, V3};

/// A quaternion per lane: its vector part and its scalar.
pub(crate) struct Quaternions<L> {
    pub(crate) v: V3<L>,
    pub(crate) w: L,
}

/// `q r`, as nalgebra turns a vector by a unit quaternion: `t = 2 (v x r)`, then
/// `t w + v x t + r`.
pub(crate) fn rotate<L: Lane>(q: &Quaternions<L>, r: &V3<L>) -> V3<L> {
    let t = q.v.cross(r).scale(L::splat(2.0));
    let cross = q.v.cross(&t);
    t.scale(q.w).add(&cross).add(r)
}

/// nalgebra's `cross_matrix`: `[v] w = v x w`.
pub(crate) fn cross_matrix<L: Lane>(v: &V3<L>) -> M3<L> {
    let zero = L::splat(0.0);
    [[zero, -v.z, v.y], [v.z, zero, -v.x], [-v.y, v.x, zero]]
}

/// nalgebra's inverse of a 3x3 matrix (its cofactors over the determinant, in its order), or
/// zero where the determinant is zero (`try_inverse().unwrap_or_else(Matrix3::zeros)`), and
/// where it is (where `try_inverse` gives `None`).
pub(crate) fn inverse<L: Lane>(m: &M3<L>) -> (M3<L>, L::Mask) {
    let [[m11, m12, m13], [m21, m22, m23], [m31, m32, m33]] = *m;
    let minor_m12_m23 = m22 * m33 - m32 * m23;
    let minor_m11_m23 = m21 * m33 - m31 * m23;
    let minor_m11_m22 = m21 * m32 - m31 * m22;
    let det = m11 * minor_m12_m23 - m12 * minor_m11_m23 + m13 * minor_m11_m22;
    let singular = det.eq(L::splat(0.0));
    let out = [
        [
            minor_m12_m23 / det,
            (m13 * m32 - m33 * m12) / det,
            (m12 * m23 - m22 * m13) / det,
        ],
        [
            -minor_m11_m23 / det,
            (m11 * m33 - m31 * m13) / det,
            (m13 * m21 - m23 * m11) / det,
        ],
        [
            minor_m11_m22 / det,
            (m12 * m31 - m32 * m11) / det,
            (m11 * m22 - m21 * m12) / det,
        ],
    ];
    let zero = L::splat(0.0);
    (
        out.map(|row| row.map(|x| L::select(singular, zero, x))),
        singular,
    )
}

/// `-v`.
pub(crate) fn neg<L: Lane>(v: &V3<L>) -> V3<L> {
    V3 {
        x: -v.x,
        y: -v.y,
        z: -v.z,
    }
}

/// A seeded stream of numbers in `[-1, 1)`, for the tests of lanes against nalgebra.
#[cfg(test)]
pub(super) fn numbers(seed: u64) -> impl FnMut() -> geom::Real {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as geom::Real / (1u64 << 24) as geom::Real) * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::solver::lanes::mul33;
    use geom::{Matrix3, Real, UnitQuaternion, Vector3};
    use wide::f32x8;

    type L8 = f32x8;

    /// Sets `lane` of `m` to `value(row, column)`.
    fn set_matrix<L: Lane>(m: &mut M3<L>, lane: usize, value: impl Fn(usize, usize) -> Real) {
        for (r, row) in m.iter_mut().enumerate() {
            for (c, x) in row.iter_mut().enumerate() {
                x.set_lane(lane, value(r, c));
            }
        }
    }

    fn lanes<const N: usize>(f: impl Fn(usize) -> Matrix3) -> M3<f32x8> {
        let mut m = M3::<f32x8>::default();
        for lane in 0..N {
            let x = f(lane);
            set_matrix(&mut m, lane, |r, c| x[(r, c)]);
        }
        m
    }

    #[test]
    fn matrix_algebra_is_nalgebras_to_the_bit() {
        let mut next = numbers(7);
        let mut matrix = || Matrix3::from_fn(|_, _| next() * 3.0);
        let (a, b): (Vec<Matrix3>, Vec<Matrix3>) = (0..8).map(|_| (matrix(), matrix())).unzip();
        // A singular one in lane 3, a zero in lane 5.
        let mut a = a;
        a[3] = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.5, 0.25, 1.0);
        a[5] = Matrix3::zeros();
        let (la, lb) = (lanes::<8>(|i| a[i]), lanes::<8>(|i| b[i]));
        let product = mul33(&la, &lb);
        let (inverted, singular) = inverse(&la);
        for lane in 0..8 {
            let want = a[lane] * b[lane];
            let inv = a[lane].try_inverse().unwrap_or_else(Matrix3::zeros);
            assert_eq!(
                L8::bits(singular) & (1 << lane) != 0,
                a[lane].try_inverse().is_none()
            );
            for r in 0..3 {
                for c in 0..3 {
                    assert_eq!(product[r][c].lane(lane).to_bits(), want[(r, c)].to_bits());
                    assert_eq!(inverted[r][c].lane(lane).to_bits(), inv[(r, c)].to_bits());
                }
            }
            let v = Vector3::new(b[lane].m11, b[lane].m22, b[lane].m33);
            let cross = lanes::<8>(|i| {
                let w = Vector3::new(b[i].m11, b[i].m22, b[i].m33);
                w.cross_matrix()
            });
            let want = v.cross_matrix();
            for r in 0..3 {
                for c in 0..3 {
                    assert_eq!(cross[r][c].lane(lane).to_bits(), want[(r, c)].to_bits());
                }
            }
        }
    }

    #[test]
    fn turning_is_nalgebras_to_the_bit() {
        let mut next = numbers(11);
        for _ in 0..100 {
            let qs: Vec<UnitQuaternion> = (0..8)
                .map(|_| {
                    UnitQuaternion::from_scaled_axis(Vector3::new(next(), next(), next()) * 3.0)
                })
                .collect();
            let rs: Vec<Vector3> = (0..8)
                .map(|_| Vector3::new(next(), next(), next()))
                .collect();
            let mut q = Quaternions::<f32x8> {
                v: V3::default(),
                w: f32x8::default(),
            };
            let mut r = V3::<f32x8>::default();
            for lane in 0..8 {
                let c = &qs[lane].coords;
                q.v.set_lane(lane, &Vector3::new(c.x, c.y, c.z));
                q.w.set_lane(lane, c.w);
                r.set_lane(lane, &rs[lane]);
            }
            let turned = rotate(&q, &r);
            for lane in 0..8 {
                let want = qs[lane] * rs[lane];
                let got = turned.lane(lane);
                assert_eq!(got.map(Real::to_bits), want.map(Real::to_bits));
            }
        }
    }
}
