//! Each joint kind's rows, in the order Box3D solves them: springs, motors and friction
//! first, then limits, then the rows holding the joint together (the turn, then the anchors),
//! so that the last word is the joint's hold. One function per kind serves every pass: the
//! first substep's warm start, the soft pass, the relax pass, and reading the reaction
//! ([`Pass`]).

use super::rows::{Motion, Row, block_delta, block_inverse};
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

/// What a joint's rows are made of that holds from one refresh to the next (the frames move
/// only when the positions do): its rows, their effective masses, its angles and errors,
/// made by [`Frame::make`] once per substep rather than in every pass, from the same values
/// by the same arithmetic (so the same bits).
#[derive(Debug, Clone)]
pub(super) struct Frame {
    /// The free axis's row and its effective mass (a hinge's or a slider's axis, a twist
    /// limit's Jacobian, a sprung distance joint's line), and its position (angle,
    /// translation, length).
    axis: (Row, Real),
    position: Real,
    /// A spherical joint's cone row (its swing axis) and its effective mass, and how far the
    /// swing is inside the cone (`cone - swing`).
    cone: (Row, Real),
    inside_cone: Real,
    /// The holding rows besides the anchors and the turn (a hinge's two turns across its
    /// axis, a slider's two slides across its, a rigid distance's line), their errors and
    /// their block's inverse effective mass.
    hold: [Row; 3],
    hold_error: Vector3,
    hold_inverse: Option<Matrix3>,
    /// The frames' rotation error, for the rows that turn them together.
    turn_error: Vector3,
}

impl Frame {
    /// Before the first refresh.
    pub(super) const NONE: Frame = Frame {
        axis: (Row::NONE, 0.0),
        position: 0.0,
        cone: (Row::NONE, 0.0),
        inside_cone: 0.0,
        hold: [Row::NONE; 3],
        hold_error: Vector3::new(0.0, 0.0, 0.0),
        hold_inverse: None,
        turn_error: Vector3::new(0.0, 0.0, 0.0),
    };

    /// Makes `f` the frame of a joint of `kind` (not a plain ball) at `g`, its coefficients
    /// `c`, for bodies of the masses and inertias of `m` (its velocities are not read). In
    /// place: made on the stack and returned, the frame (about 260 bytes) was then copied into
    /// the joint's constraint (`memmove`, 3% of the rain's samples).
    pub(super) fn make(f: &mut Self, kind: &JointKind, g: &Geometry, c: &Coefficients, m: &Motion) {
        *f = Self::NONE;
        let za = g.qa * Vector3::z();
        let scalar = |row: Row| (row, m.mass(&row));
        let block = |rows: &[Row; 3]| block_inverse(m.ma + m.mb, &m.ia, &m.ib, rows);
        match kind {
            JointKind::Spherical { cone, twist, .. } => {
                if c.angular_spring.is_some() {
                    f.turn_error = rotation_error(&g.qa, &g.qb);
                }
                let zb = g.qb * Vector3::z();
                if twist.is_some() {
                    let swing_axis = za.cross(&zb);
                    let swing_length = swing_axis.norm();
                    let q = relative(&g.qa, &g.qb);
                    f.position = twist_angle(&q);
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
                    f.axis = scalar(Row::angular(jacobian));
                }
                if let (Some(cone), Some(axis)) = (cone, c.swing_axis) {
                    f.cone = scalar(Row::angular(axis));
                    f.inside_cone = cone - swing_angle(&za, &zb);
                }
            }
            JointKind::Revolute(_) => {
                let q = relative(&g.qa, &g.qb);
                f.axis = scalar(Row::angular(za));
                f.position = twist_angle(&q);
                // The hinge axes kept parallel: the turn across it, about a's x and y.
                let zb = g.qb * Vector3::z();
                let across = za.cross(&zb);
                let (xa, ya) = (g.qa * Vector3::x(), g.qa * Vector3::y());
                f.hold = [Row::angular(xa), Row::angular(ya), Row::NONE];
                f.hold_error = Vector3::new(xa.dot(&across), ya.dot(&across), 0.0);
                f.hold_inverse = block(&f.hold);
            }
            JointKind::Prismatic(_) => {
                // The slide's axis turns with a; the rows on a act at b's anchor (`d + ra`).
                let arm = g.d + g.ra;
                f.axis = scalar(Row::linear(za, &arm, &g.rb));
                f.position = g.d.dot(&za);
                f.turn_error = rotation_error(&g.qa, &g.qb);
                let (xa, ya) = (g.qa * Vector3::x(), g.qa * Vector3::y());
                f.hold = [
                    Row::linear(xa, &arm, &g.rb),
                    Row::linear(ya, &arm, &g.rb),
                    Row::NONE,
                ];
                f.hold_error = Vector3::new(xa.dot(&g.d), ya.dot(&g.d), 0.0);
                f.hold_inverse = block(&f.hold);
            }
            JointKind::Weld { .. } => f.turn_error = rotation_error(&g.qa, &g.qb),
            JointKind::Distance { length, spring, .. } => {
                let current = g.d.norm();
                let n = if current > 1e-6 { g.d / current } else { za };
                let row = Row::linear(n, &g.ra, &g.rb);
                f.position = current;
                if spring.is_some() {
                    f.axis = scalar(row);
                } else {
                    f.hold = [row, Row::NONE, Row::NONE];
                    f.hold_error = Vector3::new(current - length, 0.0, 0.0);
                    f.hold_inverse = block(&f.hold);
                }
            }
        }
    }
}

/// A pass over a joint's rows: the bodies' motion, and for [`Pass::Reaction`] the sums.
pub(super) struct Rows<'a> {
    pub(super) m: &'a mut Motion,
    pub(super) pass: Pass,
    pub(super) c: &'a Coefficients,
    /// The anchor rows' effective mass (`JointConstraint::anchor_mass`).
    pub(super) anchor_mass: &'a Matrix3,
    /// The rows, masses and angles made at the last refresh.
    pub(super) f: &'a Frame,
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

    /// The softness a holding row is solved with: `spring` in both passes, else the hold's in
    /// the soft pass and none (rigid) in the relax pass.
    fn holding<'s>(&'s self, spring: Option<&'s Softness>) -> Option<&'s Softness> {
        match (spring, self.pass) {
            (Some(s), _) => Some(s),
            (None, Pass::Soft) => Some(&self.c.hold),
            _ => None,
        }
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

    /// A revolute or prismatic joint's free axis (the frame's row and position: angle or
    /// translation): spring, motor, friction, limits.
    fn axis(&mut self, axis: &Axis, i: &mut JointImpulses) {
        let (row, position) = (&self.f.axis, self.f.position);
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
                let soft = self.holding(spring).copied();
                (self.m).point(
                    &g.ra,
                    &g.rb,
                    g.d,
                    self.anchor_mass,
                    soft.as_ref(),
                    &mut i.linear,
                );
            }
        }
    }

    /// The frame's holding rows (a hinge's turns across its axis, a slider's slides across
    /// its, a rigid distance's line), with their impulses `lambda`: soft in the soft pass,
    /// rigid in the relax pass.
    fn frame_hold(&mut self, lambda: &mut Vector3) {
        let f = self.f;
        if self.applying() {
            for (row, &l) in f.hold.iter().zip(lambda.iter()) {
                self.apply(row, l);
            }
            return;
        }
        let soft = self.holding(None).copied();
        (self.m).block(
            &f.hold,
            f.hold_error,
            soft.as_ref(),
            lambda,
            f.hold_inverse.as_ref(),
        );
    }

    /// The frames' turn held together (the three turn rows, solved as a block).
    fn turn(&mut self, spring: Option<&Softness>, i: &mut JointImpulses) {
        if self.applying() {
            for (row, &l) in Row::turn().iter().zip(i.angular.iter()) {
                self.apply(row, l);
            }
            return;
        }
        let soft = self.holding(spring).copied();
        let inverse = self.c.turn_mass.as_ref();
        (self.m).turn(inverse, self.f.turn_error, soft.as_ref(), &mut i.angular);
    }

    /// Runs the kind's rows.
    pub(super) fn run(&mut self, kind: &JointKind, g: &Geometry, i: &mut JointImpulses) {
        match kind {
            JointKind::Spherical {
                cone,
                twist,
                friction,
                ..
            } => {
                if let Some(spring) = self.c.angular_spring {
                    // Box3D's order: the spring, then friction, the limits and the anchors.
                    self.turn(Some(&spring), i);
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
                        let (speed, zero) = (self.m.turn_speed(), Vector3::zeros());
                        let inverse = self.c.turn_mass.as_ref();
                        let mut lambda = old + block_delta(inverse, speed, zero, None, &old);
                        let length = lambda.norm();
                        if length > max {
                            lambda *= max / length;
                        }
                        self.m.push_turn(&(lambda - old));
                        i.friction = lambda;
                    }
                }
                if let Some([lower, upper]) = twist {
                    let (row, angle) = (&self.f.axis, self.f.position);
                    self.limit(row, 1.0, angle - lower, &mut i.lower);
                    self.limit(row, -1.0, upper - angle, &mut i.upper);
                }
                if cone.is_some() && self.c.swing_axis.is_some() {
                    let row = &self.f.cone;
                    self.limit(row, -1.0, self.f.inside_cone, &mut i.cone);
                }
                self.anchors(g, None, i);
            }
            JointKind::Revolute(axis) => {
                self.axis(axis, i);
                self.frame_hold(&mut i.angular);
                self.anchors(g, None, i);
            }
            JointKind::Prismatic(axis) => {
                self.axis(axis, i);
                self.turn(None, i);
                self.frame_hold(&mut i.linear);
            }
            JointKind::Weld { .. } => {
                let angular = self.c.angular_spring;
                self.turn(angular.as_ref(), i);
                let linear = self.c.spring;
                self.anchors(g, linear.as_ref(), i);
            }
            JointKind::Distance {
                length,
                min,
                max,
                spring,
            } => {
                let f = self.f;
                let current = f.position;
                match spring {
                    None => self.frame_hold(&mut i.linear),
                    Some(_) => {
                        let row = &f.axis;
                        if let Some(spring) = self.c.spring {
                            self.spring(row, current - length, &spring, &mut i.spring);
                        }
                        if *min > 0.0 {
                            self.limit(row, 1.0, current - min, &mut i.lower);
                        }
                        if *max < crate::limits::MAX_SIZE {
                            self.limit(row, -1.0, max - current, &mut i.upper);
                        }
                    }
                }
            }
        }
    }
}
