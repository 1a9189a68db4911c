//! Each joint kind's rows, in the order Box3D solves them: springs, motors and friction
//! first, then limits, then the rows holding the joint together (the turn, then the anchors),
//! so that the last word is the joint's hold. One function per kind serves every pass: the
//! first substep's warm start, the soft pass, the relax pass, and reading the reaction
//! ([`Pass`]).

use super::rows::{Motion, Row};
use crate::joint::math::{relative, rotation_error, swing_angle, twist_angle};
use crate::joint::{Axis, JointImpulses, JointKind};
use crate::response::solver::soft::Softness;
use geom::{Matrix3, Real, UnitQuaternion, Vector3};

/// What a pass over a joint's rows does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Applies the accumulated impulses (the first substep's warm start).
    Warm,
    /// Solves with position bias, the holding rows soft.
    Soft,
    /// Solves without bias, the holding rows rigid.
    Relax,
    /// Sums the accumulated impulses into the force and torque on `b`.
    Reaction,
}

/// The joint's frames now: rotations, anchors from the centres of mass, and `d`, `b`'s anchor
/// less `a`'s.
#[derive(Debug, Clone)]
pub(super) struct Geometry {
    pub(super) qa: UnitQuaternion,
    pub(super) qb: UnitQuaternion,
    pub(super) ra: Vector3,
    pub(super) rb: Vector3,
    pub(super) d: Vector3,
}

/// The coefficients a joint's rows are solved with this substep (the hold first: a
/// `BallBatch` reads it alone).
#[derive(Debug, Clone)]
#[repr(C)]
pub(super) struct Coefficients {
    /// The holding rows' softness (soft pass).
    pub(super) hold: Softness,
    /// The axis's or distance's spring, and a weld's linear and angular springs (`None`: no
    /// spring, or zero hertz).
    pub(super) spring: Option<Softness>,
    pub(super) angular_spring: Option<Softness>,
    /// A spherical joint's swing axis, `za x zb` normalised, at the start of the step (Box3D's
    /// choice; `None` while the axes are parallel, far from any cone). Taken afresh every
    /// pass, a ragdoll's ball head held at its neck's cone limit against the ground circled
    /// the cone for good (0.3 m/s after 30 s) instead of coming to rest.
    pub(super) swing_axis: Option<Vector3>,
    /// The turn rows' (about x, y and z) inverse effective mass, `(IA^-1 + IB^-1)^-1`, made
    /// once per step (`rows::block_inverse`; the inertias hold through it): the springs,
    /// friction and holds that turn the frames together solve with it.
    pub(super) turn_mass: Option<Matrix3>,
    pub(super) h: Real,
    pub(super) inv_h: Real,
}

/// A pass over a joint's rows: the bodies' motion, and for [`Pass::Reaction`] the sums.
pub(super) struct Rows<'a> {
    pub(super) m: &'a mut Motion,
    pub(super) pass: Pass,
    pub(super) c: &'a Coefficients,
    /// The anchor rows' effective mass (`JointConstraint::anchor_mass`).
    pub(super) anchor_mass: &'a Matrix3,
    pub(super) force: Vector3,
    pub(super) torque: Vector3,
}

impl Rows<'_> {
    /// Applies (warm start) or sums (reaction) `lambda` along `row`.
    fn apply(&mut self, row: &Row, lambda: Real) {
        match self.pass {
            Pass::Reaction => {
                self.force += row.n * lambda;
                if row.n == Vector3::zeros() {
                    self.torque += row.tb * lambda;
                }
            }
            _ => self.m.push(row, lambda),
        }
    }

    fn applying(&self) -> bool {
        matches!(self.pass, Pass::Warm | Pass::Reaction)
    }

    /// Up to three rows holding the joint together (soft in the soft pass, rigid in the
    /// relax pass), or with `spring` soft in both.
    fn hold(
        &mut self,
        rows: &[Row; 3],
        error: Vector3,
        spring: Option<&Softness>,
        lambda: &mut Vector3,
        known: Option<&Option<Matrix3>>,
    ) {
        if self.applying() {
            for (row, &l) in rows.iter().zip(lambda.iter()) {
                self.apply(row, l);
            }
            return;
        }
        let soft = match (spring, self.pass) {
            (Some(s), _) => Some(s),
            (None, Pass::Soft) => Some(&self.c.hold),
            _ => None,
        };
        self.m.block(rows, error, soft, lambda, known);
    }

    /// `row` with its effective mass ([`Motion::mass`]), made once for the rows a pass solves
    /// along it (the bodies' masses and inertias hold through the pass, so each would make the
    /// same); a pass that only applies impulses does not read it.
    fn scalar(&self, row: Row) -> (Row, Real) {
        let mass = if self.applying() {
            0.0
        } else {
            self.m.mass(&row)
        };
        (row, mass)
    }

    fn spring(
        &mut self,
        (row, mass): &(Row, Real),
        error: Real,
        soft: &Softness,
        lambda: &mut Real,
    ) {
        if self.applying() {
            self.apply(row, *lambda);
        } else {
            self.m.spring((row, *mass), error, soft, lambda);
        }
    }

    fn motor(
        &mut self,
        (row, mass): &(Row, Real),
        target: Real,
        max_force: Real,
        lambda: &mut Real,
    ) {
        if self.applying() {
            self.apply(row, *lambda);
        } else {
            self.m
                .motor((row, *mass), target, max_force * self.c.h, lambda);
        }
    }

    /// A one-sided limit, `c >= 0` (see [`Motion::limit`]); `sign` -1 for an upper one.
    fn limit(&mut self, (row, mass): &(Row, Real), sign: Real, c: Real, lambda: &mut Real) {
        if self.applying() {
            self.apply(row, sign * *lambda);
        } else {
            let soft = (self.pass == Pass::Soft).then_some(&self.c.hold);
            self.m
                .limit((row, *mass), sign, c, soft, self.c.inv_h, lambda);
        }
    }

    /// A revolute or prismatic joint's free axis along `row` at `position` (angle or
    /// translation): spring, motor, friction, limits.
    fn axis(&mut self, axis: &Axis, row: Row, position: Real, i: &mut JointImpulses) {
        let row = &self.scalar(row);
        if let Some(spring) = self.c.spring {
            self.spring(row, position - axis.target, &spring, &mut i.spring);
        }
        if let Some(motor) = axis.motor {
            self.motor(row, motor.speed, motor.max_force, &mut i.motor);
        }
        if axis.friction > 0.0 {
            self.motor(row, 0.0, axis.friction, &mut i.friction.x);
        }
        if let Some([lower, upper]) = axis.limits {
            self.limit(row, 1.0, position - lower, &mut i.lower);
            self.limit(row, -1.0, upper - position, &mut i.upper);
        }
    }

    /// The anchors held together.
    fn anchors(&mut self, g: &Geometry, spring: Option<&Softness>, i: &mut JointImpulses) {
        match self.pass {
            Pass::Warm => self.m.push_point(&g.ra, &g.rb, &i.linear),
            Pass::Reaction => self.force += i.linear,
            Pass::Soft | Pass::Relax => {
                let soft = match (spring, self.pass) {
                    (Some(s), _) => Some(s),
                    (None, Pass::Soft) => Some(&self.c.hold),
                    _ => None,
                };
                self.m
                    .point(&g.ra, &g.rb, g.d, self.anchor_mass, soft, &mut i.linear);
            }
        }
    }

    /// The frames' turn held together.
    fn turn(&mut self, g: &Geometry, spring: Option<&Softness>, i: &mut JointImpulses) {
        let error = rotation_error(&g.qa, &g.qb);
        let known = Some(&self.c.turn_mass);
        self.hold(&Row::turn(), error, spring, &mut i.angular, known);
    }

    /// Runs the kind's rows.
    pub(super) fn run(&mut self, kind: &JointKind, g: &Geometry, i: &mut JointImpulses) {
        if kind.is_plain_ball() {
            // A plain ball and socket: its anchors only.
            self.anchors(g, None, i);
            return;
        }
        let za = g.qa * Vector3::z();
        match kind {
            JointKind::Spherical {
                cone,
                twist,
                friction,
                ..
            } => {
                let zb = g.qb * Vector3::z();
                if let Some(spring) = self.c.angular_spring {
                    // Box3D's order: the spring, then friction, the limits and the anchors.
                    self.turn(g, Some(&spring), i);
                }
                if *friction > 0.0 {
                    let max = friction * self.c.h;
                    if self.applying() {
                        for (row, &l) in Row::turn().iter().zip(i.friction.iter()) {
                            self.apply(row, l);
                        }
                    } else {
                        // A motor toward rest about all three axes, its impulse held within
                        // a ball.
                        let old = i.friction;
                        let (rows, zero) = (Row::turn(), Vector3::zeros());
                        let inverse = self.c.turn_mass.as_ref();
                        let mut lambda = old + self.m.block_delta(inverse, &rows, zero, None, &old);
                        let length = lambda.norm();
                        if length > max {
                            lambda *= max / length;
                        }
                        for (row, &d) in Row::turn().iter().zip((lambda - old).iter()) {
                            self.m.push(row, d);
                        }
                        i.friction = lambda;
                    }
                }
                let swing_axis = za.cross(&zb);
                let swing_length = swing_axis.norm();
                if let Some([lower, upper]) = twist {
                    let q = relative(&g.qa, &g.qb);
                    let angle = twist_angle(&q);
                    // Box3D's twist Jacobian: the cone axis tilted toward the twist axis by
                    // half the swing.
                    let jacobian = if swing_length > 1e-6 {
                        let swing_axis = swing_axis / swing_length;
                        let perp = swing_axis.cross(&za);
                        let tan_half = ((q.i * q.i + q.j * q.j) / (q.k * q.k + q.w * q.w)).sqrt();
                        za + perp * tan_half
                    } else {
                        za
                    };
                    let row = self.scalar(Row::angular(jacobian));
                    self.limit(&row, 1.0, angle - lower, &mut i.lower);
                    self.limit(&row, -1.0, upper - angle, &mut i.upper);
                }
                if let (Some(cone), Some(axis)) = (cone, self.c.swing_axis) {
                    let row = self.scalar(Row::angular(axis));
                    self.limit(&row, -1.0, cone - swing_angle(&za, &zb), &mut i.cone);
                }
                self.anchors(g, None, i);
            }
            JointKind::Revolute(axis) => {
                let q = relative(&g.qa, &g.qb);
                self.axis(axis, Row::angular(za), twist_angle(&q), i);
                // The hinge axes kept parallel: the turn across it, about a's x and y.
                let zb = g.qb * Vector3::z();
                let across = za.cross(&zb);
                let (xa, ya) = (g.qa * Vector3::x(), g.qa * Vector3::y());
                let rows = [Row::angular(xa), Row::angular(ya), Row::NONE];
                let error = Vector3::new(xa.dot(&across), ya.dot(&across), 0.0);
                self.hold(&rows, error, None, &mut i.angular, None);
                self.anchors(g, None, i);
            }
            JointKind::Prismatic(axis) => {
                // The slide's axis turns with a; the rows on a act at b's anchor (`d + ra`).
                let arm = g.d + g.ra;
                let row = Row::linear(za, &arm, &g.rb);
                self.axis(axis, row, g.d.dot(&za), i);
                self.turn(g, None, i);
                let (xa, ya) = (g.qa * Vector3::x(), g.qa * Vector3::y());
                let rows = [
                    Row::linear(xa, &arm, &g.rb),
                    Row::linear(ya, &arm, &g.rb),
                    Row::NONE,
                ];
                let error = Vector3::new(xa.dot(&g.d), ya.dot(&g.d), 0.0);
                self.hold(&rows, error, None, &mut i.linear, None);
            }
            JointKind::Weld { .. } => {
                let angular = self.c.angular_spring;
                self.turn(g, angular.as_ref(), i);
                let linear = self.c.spring;
                self.anchors(g, linear.as_ref(), i);
            }
            JointKind::Distance {
                length,
                min,
                max,
                spring,
            } => {
                let current = g.d.norm();
                let n = if current > 1e-6 { g.d / current } else { za };
                let row = Row::linear(n, &g.ra, &g.rb);
                match spring {
                    None => {
                        let rows = [row, Row::NONE, Row::NONE];
                        let error = Vector3::new(current - length, 0.0, 0.0);
                        self.hold(&rows, error, None, &mut i.linear, None);
                    }
                    Some(_) => {
                        let row = self.scalar(row);
                        if let Some(spring) = self.c.spring {
                            self.spring(&row, current - length, &spring, &mut i.spring);
                        }
                        if *min > 0.0 {
                            self.limit(&row, 1.0, current - min, &mut i.lower);
                        }
                        if *max < crate::limits::MAX_SIZE {
                            self.limit(&row, -1.0, max - current, &mut i.upper);
                        }
                    }
                }
            }
        }
    }
}
