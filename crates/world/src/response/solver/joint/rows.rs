//! A joint's rows: one scalar constraint each, `Cdot = n . (vB - vA) + tB . wB - tA . wA`,
//! solved alone (limits, springs, motors, friction) or up to three at once as a block (the
//! rows holding the anchors or the turn together), on two bodies' velocities copied out of
//! their solver states ([`Motion`]).

use crate::response::solver::body::SolverBody;
use crate::response::solver::soft::Softness;
use geom::{Matrix3, Real, Vector3};

/// One row's Jacobian: `n` the linear direction (on `b`; `a` gets `-n`), `ta` and `tb` the
/// angular parts on `a` (with a minus) and `b`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    pub(super) n: Vector3,
    pub(super) ta: Vector3,
    pub(super) tb: Vector3,
}

impl Row {
    /// A row of no effect (pads a block).
    pub(super) const NONE: Row = Row {
        n: Vector3::new(0.0, 0.0, 0.0),
        ta: Vector3::new(0.0, 0.0, 0.0),
        tb: Vector3::new(0.0, 0.0, 0.0),
    };

    /// A turn about `axis`.
    pub(super) fn angular(axis: Vector3) -> Self {
        Self {
            n: Vector3::zeros(),
            ta: axis,
            tb: axis,
        }
    }

    /// A point of `a` at arm `ra` (from its centre of mass) moving along `n` relative to a
    /// point of `b` at `rb`.
    pub(super) fn linear(n: Vector3, ra: &Vector3, rb: &Vector3) -> Self {
        Self {
            n,
            ta: ra.cross(&n),
            tb: rb.cross(&n),
        }
    }

    /// The three rows holding the turn: about x, y and z.
    pub(super) fn turn() -> [Self; 3] {
        [Vector3::x(), Vector3::y(), Vector3::z()].map(Self::angular)
    }
}

/// Two bodies' velocities and inverse masses while a joint is solved.
#[derive(Debug, Clone, Copy)]
pub(super) struct Motion {
    pub(super) va: Vector3,
    pub(super) wa: Vector3,
    pub(super) vb: Vector3,
    pub(super) wb: Vector3,
    pub(super) ma: Real,
    pub(super) mb: Real,
    pub(super) ia: Matrix3,
    pub(super) ib: Matrix3,
}

impl Motion {
    pub(super) fn of(a: &SolverBody, b: &SolverBody, ia: &Matrix3, ib: &Matrix3) -> Self {
        Self {
            va: a.linvel,
            wa: a.angvel,
            vb: b.linvel,
            wb: b.angvel,
            ma: a.inverse_mass,
            mb: b.inverse_mass,
            ia: *ia,
            ib: *ib,
        }
    }

    /// The row's speed, `J v`. An angular row (`n = 0`) reads only the angular velocities:
    /// its linear part is a zero, whose adding could change only the sign of a zero speed.
    #[inline]
    pub(super) fn speed(&self, row: &Row) -> Real {
        if row.n == Vector3::zeros() {
            return row.tb.dot(&self.wb) - row.ta.dot(&self.wa);
        }
        row.n.dot(&(self.vb - self.va)) + row.tb.dot(&self.wb) - row.ta.dot(&self.wa)
    }

    /// Applies `lambda` along `row`. A change of zero, or an angular row's linear part,
    /// moves nothing (applying it could only turn a velocity's negative zero positive), so
    /// is skipped.
    #[inline]
    pub(super) fn push(&mut self, row: &Row, lambda: Real) {
        if lambda == 0.0 {
            return;
        }
        if row.n != Vector3::zeros() {
            self.va -= row.n * (self.ma * lambda);
            self.vb += row.n * (self.mb * lambda);
        }
        self.wa -= self.ia * (row.ta * lambda);
        self.wb += self.ib * (row.tb * lambda);
    }

    /// The speeds of the three turn rows ([`Row::turn`]), `wB - wA`: what [`Motion::speed`]
    /// gives for each, without the products by the zeros of the unit axes.
    #[inline]
    pub(super) fn turn_speed(&self) -> Vector3 {
        self.wb - self.wa
    }

    /// Applies `delta` along the three turn rows in order, as [`Motion::push`] would row by
    /// row: a unit axis times an inertia is the inertia's column, so each row moves the
    /// angular velocities by one column times its impulse, in the same order of sums.
    #[inline]
    pub(super) fn push_turn(&mut self, delta: &Vector3) {
        for (k, &d) in delta.iter().enumerate() {
            if d != 0.0 {
                self.wa -= self.ia.column(k) * d;
                self.wb += self.ib.column(k) * d;
            }
        }
    }

    /// `J_i M^-1 J_j^T`.
    #[inline]
    fn coupling(&self, i: &Row, j: &Row) -> Real {
        coupling(self.ma + self.mb, &self.ia, &self.ib, i, j)
    }

    /// The row's effective mass, 0 when nothing can move along it.
    #[inline]
    pub(super) fn mass(&self, row: &Row) -> Real {
        let k = self.coupling(row, row);
        if k > 0.0 { 1.0 / k } else { 0.0 }
    }

    /// Solves up to three rows at once (`rows`, padded with [`Row::NONE`]) for a change of
    /// their accumulated impulses `lambda`, with `error` their position errors (used with
    /// `soft`: bias, mass and impulse scaling; rigid without), and applies it. `inverse` is
    /// the rows' [`block_inverse`] for these bodies (`None`: singular, no change).
    pub(super) fn block(
        &mut self,
        rows: &[Row; 3],
        error: Vector3,
        soft: Option<&Softness>,
        lambda: &mut Vector3,
        inverse: Option<&Matrix3>,
    ) {
        let speed = Vector3::new(
            self.speed(&rows[0]),
            self.speed(&rows[1]),
            self.speed(&rows[2]),
        );
        let delta = block_delta(inverse, speed, error, soft, lambda);
        *lambda += delta;
        for (row, &d) in rows.iter().zip(delta.iter()) {
            self.push(row, d);
        }
    }

    /// [`Motion::block`] for the three turn rows ([`Row::turn`]), whose inverse effective
    /// mass is made once per step (`Coefficients::turn_mass`).
    pub(super) fn turn(
        &mut self,
        inverse: Option<&Matrix3>,
        error: Vector3,
        soft: Option<&Softness>,
        lambda: &mut Vector3,
    ) {
        let delta = block_delta(inverse, self.turn_speed(), error, soft, lambda);
        *lambda += delta;
        self.push_turn(&delta);
    }

    /// A spring along `row` (of effective mass `mass`, [`Motion::mass`]) pulling its
    /// position `error` to zero (`soft` its coefficients; both passes run it).
    pub(super) fn spring(
        &mut self,
        (row, mass): (&Row, Real),
        error: Real,
        soft: &Softness,
        lambda: &mut Real,
    ) {
        let speed = self.speed(row);
        let delta = -soft.mass_scale * mass * (speed + soft.bias_rate * error)
            - soft.impulse_scale * *lambda;
        *lambda += delta;
        self.push(row, delta);
    }

    /// A motor along `row` (of effective mass `mass`) toward `target` speed, its accumulated
    /// impulse held within `[-max, max]` (friction is a motor toward 0).
    pub(super) fn motor(
        &mut self,
        (row, mass): (&Row, Real),
        target: Real,
        max: Real,
        lambda: &mut Real,
    ) {
        let old = *lambda;
        *lambda = (old - mass * (self.speed(row) - target)).clamp(-max, max);
        self.push(row, *lambda - old);
    }

    /// A one-sided limit along `row` (of effective mass `mass`; `sign` -1 for an upper limit,
    /// whose row points the other way): `c >= 0` the distance to it. Beyond it (`c < 0`) it
    /// pushes back softly in the soft pass; short of it, speculatively, it lets the row close
    /// only the gap in a substep.
    pub(super) fn limit(
        &mut self,
        (row, mass): (&Row, Real),
        sign: Real,
        c: Real,
        soft: Option<&Softness>,
        inv_h: Real,
        lambda: &mut Real,
    ) {
        let (bias, mass_scale, impulse_scale) = if c > 0.0 {
            (c * inv_h, 1.0, 0.0)
        } else if let Some(s) = soft {
            (s.bias_rate * c, s.mass_scale, s.impulse_scale)
        } else {
            (0.0, 1.0, 0.0)
        };
        let speed = sign * self.speed(row);
        let old = *lambda;
        *lambda = (old - mass_scale * mass * (speed + bias) - impulse_scale * old).max(0.0);
        // A limit away from its bound keeps its impulse at zero, pass after pass: nothing to
        // push (pushing zero would change at most the sign of a zero velocity).
        if *lambda != old {
            self.push(row, sign * (*lambda - old));
        }
    }

    /// The three rows holding the anchors together (`ra`, `rb` the arms, `d` how far `b`'s
    /// anchor is from `a`'s, `mass` their effective mass), solved at once: Box3D's point
    /// constraint, written out rather than as three [`Row`]s.
    pub(super) fn point(
        &mut self,
        ra: &Vector3,
        rb: &Vector3,
        d: Vector3,
        mass: &Matrix3,
        soft: Option<&Softness>,
        lambda: &mut Vector3,
    ) {
        let speed = self.vb + self.wb.cross(rb) - self.va - self.wa.cross(ra);
        let delta = point_delta(speed, d, mass, soft, lambda);
        *lambda += delta;
        self.push_point(ra, rb, &delta);
    }

    /// Applies the impulse `p` at the anchors (on `b`; `a` gets `-p`).
    #[inline]
    pub(super) fn push_point(&mut self, ra: &Vector3, rb: &Vector3, p: &Vector3) {
        self.va -= p * self.ma;
        self.wa -= self.ia * ra.cross(p);
        self.vb += p * self.mb;
        self.wb += self.ib * rb.cross(p);
    }
}

/// `J_i M^-1 J_j^T` for bodies of inverse masses summing to `masses` and inverse inertias
/// `ia`, `ib`.
#[inline]
fn coupling(masses: Real, ia: &Matrix3, ib: &Matrix3, i: &Row, j: &Row) -> Real {
    masses * i.n.dot(&j.n) + i.ta.dot(&(ia * j.ta)) + i.tb.dot(&(ib * j.tb))
}

/// `K^-1` of up to three rows solved as a block (`K_ij = J_i M^-1 J_j^T`, a padding row's
/// diagonal 1 so that its impulse stays 0), `None` when `K` is singular. It depends on the
/// rows and the bodies' masses and inertias only, which hold through a step: a joint whose
/// rows are fixed (the turn's, about x, y and z) makes it once per step.
pub(super) fn block_inverse(
    masses: Real,
    ia: &Matrix3,
    ib: &Matrix3,
    rows: &[Row; 3],
) -> Option<Matrix3> {
    let mut k = Matrix3::zeros();
    for i in 0..3 {
        for j in i..3 {
            let x = coupling(masses, ia, ib, &rows[i], &rows[j]);
            (k[(i, j)], k[(j, i)]) = (x, x);
        }
        if k[(i, i)] == 0.0 {
            k[(i, i)] = 1.0; // a padding row: its impulse stays 0
        }
    }
    k.try_inverse()
}

/// The change of a block's accumulated impulses `lambda` that [`Motion::block`] applies, for
/// the rows' speeds `speed`, their position errors `error` and inverse effective mass
/// `inverse` ([`block_inverse`]; `None`: singular, no change).
#[inline]
pub(super) fn block_delta(
    inverse: Option<&Matrix3>,
    speed: Vector3,
    error: Vector3,
    soft: Option<&Softness>,
    lambda: &Vector3,
) -> Vector3 {
    let Some(inverse) = inverse else {
        return Vector3::zeros();
    };
    match soft {
        Some(s) => {
            -(inverse * (speed + error * s.bias_rate)) * s.mass_scale - *lambda * s.impulse_scale
        }
        None => -(inverse * speed),
    }
}

/// The change of the anchor rows' accumulated impulse `lambda` for the anchors' relative
/// velocity `speed` and offset `d` (`mass` their effective mass): soft with `soft` (bias, mass
/// and impulse scaling), rigid without ([`Motion::point`]; `BallBatch::pass` computes the
/// same in lanes).
#[inline]
pub(super) fn point_delta(
    speed: Vector3,
    d: Vector3,
    mass: &Matrix3,
    soft: Option<&Softness>,
    lambda: &Vector3,
) -> Vector3 {
    match soft {
        Some(s) => -(mass * (speed + d * s.bias_rate)) * s.mass_scale - *lambda * s.impulse_scale,
        None => -(mass * speed),
    }
}
