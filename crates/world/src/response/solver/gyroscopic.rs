//! The gyroscopic term of the velocity update (`body::integrate_velocities`), `L::WIDTH`
//! bodies at a time ([`Spinning`]).
//!
//! E. Catto, "Numerical Methods", GDC 2015, as Box3D's `b3IntegrateVelocitiesTask`: one
//! implicit Newton step on `I (w2 - w1) + h w2 x (I w2) = 0` in the body frame,
//! `J = I + h (skew(w) I - skew(I w))`, `w2 = w1 - J^-1 h (w1 x I w1)`, then scaled so that
//! `|I w2| = |I w1|` (the implicit step is dissipative; torque-free motion keeps the magnitude
//! of the angular momentum). Explicit integration of this term adds energy and makes spinning
//! bodies blow up; without it a body spinning off a principal axis keeps a constant angular
//! velocity, which does not conserve angular momentum.
//!
//! Every lane computes what the one-body update computed before lanes ([`one`], kept for the
//! tests), nalgebra's operations in nalgebra's order (`algebra`), so that a body's velocity is
//! the same bits at any width and as before (the junkyard's state hash, whose rocks all take
//! the term; `tests/solver_determinism.rs` across widths). On the junkyard (perf, 3,528 rocks)
//! the velocity update fell from 6.2% of the samples, one body at a time, to 3.8%.

use super::algebra::{Quaternions, cross_matrix, inverse, neg, rotate};
use super::body::SolverBody;
use super::lanes::{Lane, M3, V3, mul3, mul33};
use geom::{Matrix3, Real, UnitQuaternion, Vector3};

/// Whether a body turning at `angvel` takes the term in a substep of `h`: below a microradian
/// of turn per substep it is far under rounding.
#[inline]
pub(super) fn turns_enough(angvel: &Vector3, h: Real) -> bool {
    (angvel * h).norm_squared() > 1e-12
}

/// Up to `L::WIDTH` bodies waiting for the term, each with what its update does after it.
pub(super) struct Spinning<T, const N: usize> {
    /// Per body: its slot, its rotation now, its body-frame inertia, and what the caller
    /// keeps for it.
    bodies: arrayvec::ArrayVec<(usize, UnitQuaternion, Matrix3, T), N>,
}

impl<T, const N: usize> Spinning<T, N> {
    pub(super) fn new() -> Self {
        Self {
            bodies: arrayvec::ArrayVec::new(),
        }
    }

    /// Adds the body at `slot` (turned by `rotation`, of body-frame `inertia`); once `L::WIDTH`
    /// wait, applies the term to them all and hands each to `done` with its slot and `cx`.
    #[inline]
    pub(super) fn push<L: Lane, C: ?Sized>(
        &mut self,
        body: (usize, UnitQuaternion, Matrix3, T),
        states: &mut [SolverBody],
        cx: &mut C,
        h: Real,
        done: impl Fn(usize, &mut SolverBody, &mut C, T),
    ) {
        self.bodies.push(body);
        if self.bodies.len() == L::WIDTH.min(N) {
            self.flush::<L, C>(states, cx, h, done);
        }
    }

    /// Applies the term to the bodies waiting and hands each to `done`, in the order they came.
    pub(super) fn flush<L: Lane, C: ?Sized>(
        &mut self,
        states: &mut [SolverBody],
        cx: &mut C,
        h: Real,
        done: impl Fn(usize, &mut SolverBody, &mut C, T),
    ) {
        if self.bodies.is_empty() {
            return;
        }
        for chunk in self.bodies.chunks(L::WIDTH) {
            apply::<L, T>(states, chunk, h);
        }
        for (slot, _, _, kept) in self.bodies.drain(..) {
            done(slot, &mut states[slot], cx, kept);
        }
    }
}

/// The term for `bodies` (at most `L::WIDTH`), in lanes; an empty lane turns nothing.
fn apply<L: Lane, T>(
    states: &mut [SolverBody],
    bodies: &[(usize, UnitQuaternion, Matrix3, T)],
    h: Real,
) {
    debug_assert!(bodies.len() <= L::WIDTH);
    // Each body's sixteen values as four rows of four, turned into lanes four at a time (an
    // empty lane reads zeros: no inertia, which the term leaves alone).
    let mut rows = <[L::Rows; 4]>::default();
    for (lane, (slot, rotation, m, _)) in bodies.iter().enumerate() {
        let (q, w) = (&rotation.coords, &states[*slot].angvel);
        rows[0].as_mut()[lane] = [m.m11, m.m12, m.m13, m.m21];
        rows[1].as_mut()[lane] = [m.m22, m.m23, m.m31, m.m32];
        rows[2].as_mut()[lane] = [m.m33, q.x, q.y, q.z];
        rows[3].as_mut()[lane] = [q.w, w.x, w.y, w.z];
    }
    let [
        [m11, m12, m13, m21],
        [m22, m23, m31, m32],
        [m33, qx, qy, qz],
        [qw, wx, wy, wz],
    ] = rows.map(|r| L::from_rows(&r));
    let inertia = [[m11, m12, m13], [m21, m22, m23], [m31, m32, m33]];
    let q = Quaternions {
        v: V3 {
            x: qx,
            y: qy,
            z: qz,
        },
        w: qw,
    };
    let angvel = V3 {
        x: wx,
        y: wy,
        z: wz,
    };
    let (turned, ok) = term(&angvel, &q, &inertia, h);
    let ok = L::bits(ok);
    let turned = [turned.x, turned.y, turned.z, L::splat(0.0)];
    L::to_rows(turned, |lane, [x, y, z, _]| {
        if let Some((slot, ..)) = bodies.get(lane)
            && ok & (1 << lane) != 0
        {
            states[*slot].angvel = Vector3::new(x, y, z);
        }
    });
}

/// The angular velocity after the term, per lane, and where it stands (else the velocity is
/// kept, as [`one`] keeps it): [`one`]'s operations on lanes.
#[inline]
fn term<L: Lane>(angvel: &V3<L>, q: &Quaternions<L>, inertia: &M3<L>, h: Real) -> (V3<L>, L::Mask) {
    let (zero, h) = (L::splat(0.0), L::splat(h));
    let inverse_turn = Quaternions {
        v: neg(&q.v),
        w: q.w,
    };
    let w = rotate(&inverse_turn, angvel);
    let iw = mul3(inertia, &w);
    let f = w.cross(&iw).scale(h);
    let (skew_w, skew_iw) = (mul33(&cross_matrix(&w), inertia), cross_matrix(&iw));
    let jacobian: M3<L> = std::array::from_fn(|r| {
        std::array::from_fn(|c| inertia[r][c] + (skew_w[r][c] - skew_iw[r][c]) * h)
    });
    let scale = inertia[0][0].max(inertia[1][1]).max(inertia[2][2]);
    let (inverse, singular) = inverse(&jacobian.map(|row| row.map(|x| x / scale)));
    let w2 = w.sub(&mul3(&inverse, &f.unscale(scale)));
    let (before, after) = (iw.dot(&iw).sqrt(), {
        let iw2 = mul3(inertia, &w2);
        iw2.dot(&iw2).sqrt()
    });
    let w2 = V3::select(after.gt(zero), &w2.scale(before / after), &w2);
    let infinity = L::splat(Real::INFINITY);
    let finite = w2.x.abs().lt(infinity) & w2.y.abs().lt(infinity) & w2.z.abs().lt(infinity);
    (rotate(q, &w2), scale.gt(zero) & !singular & finite)
}

/// The term for one body turned by `rotation`, of body-frame `inertia`, in nalgebra: what the
/// velocity update computed before lanes, which every lane of [`term`] reproduces.
#[cfg(test)]
fn one(angvel: &mut Vector3, rotation: &UnitQuaternion, inertia: &Matrix3, h: Real) {
    let w = rotation.inverse_transform_vector(angvel);
    let iw = inertia * w;
    let f = w.cross(&iw) * h;
    let jacobian = inertia + (w.cross_matrix() * inertia - iw.cross_matrix()) * h;
    // Scaled to order one first: a millimetre body's determinant would underflow.
    let scale = inertia.diagonal().max();
    if scale > 0.0
        && let Some(inverse) = (jacobian / scale).try_inverse()
    {
        let mut w2 = w - inverse * (f / scale);
        let (before, after) = (iw.norm(), (inertia * w2).norm());
        if after > 0.0 {
            w2 *= before / after;
        }
        if w2.iter().all(|c| c.is_finite()) {
            *angvel = rotation * w2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::solver::algebra::numbers;
    use wide::{f32x4, f32x8};

    /// Bodies of every kind of inertia the term meets: boxy and rod-like, off-diagonal
    /// (a hull's), tiny, huge, singular, and spins from a crawl to the speed limit.
    fn cases() -> Vec<(Vector3, UnitQuaternion, Matrix3)> {
        let mut next = numbers(3);
        let mut out = Vec::new();
        for k in 0..4000 {
            let rotation =
                UnitQuaternion::from_scaled_axis(Vector3::new(next(), next(), next()) * 3.0);
            let scale = [1e-9, 1e-3, 1.0, 40.0, 1e6][k % 5];
            let a = Matrix3::from_fn(|_, _| next());
            let mut inertia = (a * a.transpose() + Matrix3::identity() * 0.1) * scale;
            if k % 97 == 0 {
                inertia = Matrix3::zeros();
            }
            if k % 89 == 0 {
                inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 0.0));
            }
            let speed = [1e-3, 1.0, 30.0, 500.0][k % 4];
            let angvel = Vector3::new(next(), next(), next()) * speed;
            out.push((angvel, rotation, inertia));
        }
        out
    }

    fn lanes_agree<L: Lane>() {
        let h = 1.0 / 240.0;
        let cases = cases();
        let mut states = vec![SolverBody::FIXED; cases.len()];
        for (state, (angvel, ..)) in states.iter_mut().zip(&cases) {
            state.angvel = *angvel;
        }
        for (first, chunk) in cases.chunks(L::WIDTH).enumerate() {
            let bodies: Vec<_> = (chunk.iter().enumerate())
                .map(|(k, (_, rotation, inertia))| (first * L::WIDTH + k, *rotation, *inertia, ()))
                .collect();
            apply::<L, ()>(&mut states, &bodies, h);
        }
        let mut turned = 0;
        for (k, (state, (angvel, rotation, inertia))) in states.iter().zip(&cases).enumerate() {
            let mut want = *angvel;
            one(&mut want, rotation, inertia, h);
            turned += usize::from(want != *angvel);
            assert_eq!(
                state.angvel.map(Real::to_bits),
                want.map(Real::to_bits),
                "body {k} at width {}",
                L::WIDTH
            );
        }
        // The term acts on most (not the singular inertias, nor the slowest spins it leaves
        // under rounding).
        assert!(turned > cases.len() * 7 / 10, "{turned} of {}", cases.len());
    }

    #[test]
    fn every_lane_is_the_one_body_update_to_the_bit() {
        lanes_agree::<f32>();
        lanes_agree::<f32x4>();
        lanes_agree::<f32x8>();
    }

    #[test]
    fn the_waiting_bodies_come_back_in_order_with_what_was_kept() {
        let h = 1.0 / 240.0;
        let cases = cases();
        let mut states = vec![SolverBody::FIXED; 11];
        let mut spinning = Spinning::<usize, 8>::new();
        let mut back: Vec<usize> = Vec::new();
        let done = |_, _: &mut SolverBody, back: &mut Vec<usize>, kept| back.push(kept);
        for (k, (angvel, rotation, inertia)) in cases.iter().take(11).enumerate() {
            states[k].angvel = *angvel;
            let body = (k, *rotation, *inertia, k * 10);
            spinning.push::<f32x8, _>(body, &mut states, &mut back, h, done);
        }
        spinning.flush::<f32x8, _>(&mut states, &mut back, h, done);
        assert_eq!(back, (0..11).map(|k| k * 10).collect::<Vec<_>>());
        for (k, (angvel, rotation, inertia)) in cases.iter().take(11).enumerate() {
            let mut want = *angvel;
            one(&mut want, rotation, inertia, h);
            assert_eq!(states[k].angvel.map(Real::to_bits), want.map(Real::to_bits));
        }
    }
}
