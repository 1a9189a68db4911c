//! The joint constraint, with the contact's stages: prepared once per step (each joint's
//! frames, anchors and softness at the start of the step), warm started in the first substep,
//! solved in each soft iteration (its holding rows soft) and in the relax iteration (rigid),
//! and its impulses and reaction stored after the step. Box3D's `joint.c` and its kinds'
//! files; the rows of each kind are in `kinds.rs`, the row algebra in `rows.rs`.
//!
//! Joints are solved one at a time, in handle order, before the contacts of each pass, within
//! the group of their moving bodies (a joint links its bodies' islands): each group's joints
//! on the thread that solves the group, so the bits do not depend on threads or lanes.
//! Later substeps' warm start is the per-body one of the contacts (`integrate_velocities`),
//! which carries the joints' last substep too.

mod kinds;
mod rows;

use super::body::SolverBody;
use super::soft::Softness;
use crate::body::RigidBody;
use crate::joint::{Joint, JointImpulses, JointKind, Spring};
use geom::{Real, UnitQuaternion, Vector3};
use kinds::{Coefficients, Geometry, Pass, Rows};
use rows::Motion;

/// How many times each pass (soft or relax) solves the joints, one after the other, before the
/// contacts. A soft hold sags under a load `F` by `F / (m omega^2)` (`m` the row's effective
/// mass), so a chain of light links holding a heavy ball stretches unless its joints are stiff;
/// one Gauss-Seidel pass does not carry such a stiff chain's load and it blows up. Measured on
/// the acceptance chain (40 boxes of 2.5 kg holding a ball of 250 kg, 8 substeps, 2 soft
/// iterations, 5 s): Box3D's settings (60 Hz, a quarter of the substep rate, one pass)
/// stretch it 4.85%; 240 Hz (half the substep rate) with one pass blows up (43 m/s), with two
/// it stretches 0.49% and still moves at 7 cm/s, with three 0.43% and 1.7 cm/s, with four
/// 0.42% and 7 mm/s.
const ITERATIONS: usize = 4;

/// The stiffest hold, as a fraction of the substep rate (Box3D: a quarter).
const HOLD_CAP: Real = 0.5;

/// A joint as the solver holds it through a step.
#[derive(Debug, Clone)]
pub(crate) struct JointConstraint {
    /// Its bodies' slots, from its group's first; whether each has a slot of its own (a
    /// static or sleeping body shares the group's fixed state, which is never written).
    pub(crate) slots: [u32; 2],
    own: [bool; 2],
    /// The frames' world rotations and the anchors from the centres of mass at the start of
    /// the step, and the centres' offset `cB - cA`.
    rotations: [UnitQuaternion; 2],
    arms: [Vector3; 2],
    delta_center: Vector3,
    kind: JointKind,
    softness: Spring,
    /// The accumulated impulses (warm started from the joint's).
    pub(crate) impulses: JointImpulses,
    /// The force and torque on `b` over the step's last substep.
    pub(crate) reaction: [Vector3; 2],
}

impl JointConstraint {
    /// The constraint of `joint` between bodies `a` and `b`, at `slots` of its group (`own`:
    /// whether each is a moving body's own slot).
    pub(crate) fn new(
        joint: &Joint,
        [a, b]: [&RigidBody; 2],
        slots: [u32; 2],
        own: [bool; 2],
    ) -> Self {
        let frame = |body: &RigidBody, frame: &geom::Isometry3| {
            let rotation = body.pose.rotation * frame.rotation;
            let arm = body.pose.rotation
                * (frame.translation.vector - body.mass_properties.local_center.coords);
            (rotation, arm)
        };
        let (qa, ra) = frame(a, &joint.frames[0]);
        let (qb, rb) = frame(b, &joint.frames[1]);
        let center = |body: &RigidBody| body.pose * body.mass_properties.local_center;
        Self {
            slots,
            own,
            rotations: [qa, qb],
            arms: [ra, rb],
            delta_center: center(b) - center(a),
            kind: joint.kind,
            softness: joint.softness,
            impulses: joint.impulses,
            reaction: [Vector3::zeros(); 2],
        }
    }

    /// One pass over the joint's rows on the group's `states`; `h` the substep.
    fn pass(
        &mut self,
        states: &mut [SolverBody],
        jointed: &mut [[Vector3; 2]],
        h: Real,
        pass: Pass,
    ) -> (Vector3, Vector3) {
        let [i, j] = self.slots.map(|s| s as usize);
        let (a, b) = (&states[i], &states[j]);
        let geometry = Geometry {
            qa: a.delta_rotation * self.rotations[0],
            qb: b.delta_rotation * self.rotations[1],
            ra: a.delta_rotation * self.arms[0],
            rb: b.delta_rotation * self.arms[1],
            d: Vector3::zeros(),
        };
        let d =
            (b.delta_position - a.delta_position) + self.delta_center + geometry.rb - geometry.ra;
        let geometry = Geometry { d, ..geometry };
        let mut motion = Motion::of(a, b, &a.inverse_inertia, &b.inverse_inertia);
        let coefficients = self.coefficients(h);
        let mut rows = Rows {
            m: &mut motion,
            pass,
            c: &coefficients,
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
        };
        rows.run(&self.kind, &geometry, &mut self.impulses);
        let (force, torque) = (rows.force, rows.torque);
        let finite = [motion.va, motion.wa, motion.vb, motion.wb]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()));
        if !finite {
            // Only a hostile world gets here (impulses or arms near the limits whose sums
            // overflow): the joint lets go for this pass rather than spread a NaN.
            self.impulses = JointImpulses::default();
            return (Vector3::zeros(), Vector3::zeros());
        }
        if pass != Pass::Reaction {
            for (side, (k, v, w)) in [(i, motion.va, motion.wa), (j, motion.vb, motion.wb)]
                .into_iter()
                .enumerate()
            {
                if self.own[side] {
                    let state = &mut states[k];
                    jointed[k][0] += v - state.linvel;
                    jointed[k][1] += w - state.angvel;
                    (state.linvel, state.angvel) = (v, w);
                }
            }
        }
        (force, torque)
    }

    /// The softness of the holding rows (capped at [`HOLD_CAP`] of the substep rate) and of
    /// the springs, for a substep of `h`. Zero-hertz springs pull with no force, so are
    /// not solved.
    fn coefficients(&self, h: Real) -> Coefficients {
        let spring =
            |s: &Spring| (s.hertz > 0.0).then(|| Softness::new(s.hertz, s.damping_ratio, h));
        let hertz = self.softness.hertz.min(HOLD_CAP / h);
        let (linear, angular) = match &self.kind {
            JointKind::Revolute(axis) | JointKind::Prismatic(axis) => {
                (axis.spring.as_ref().and_then(spring), None)
            }
            JointKind::Distance { spring: s, .. } => (s.as_ref().and_then(spring), None),
            JointKind::Weld { linear, angular } => (
                linear.as_ref().and_then(spring),
                angular.as_ref().and_then(spring),
            ),
            JointKind::Spherical { .. } => (None, None),
        };
        Coefficients {
            hold: Softness::new(hertz, self.softness.damping_ratio, h),
            spring: linear,
            angular_spring: angular,
            h,
            inv_h: 1.0 / h,
        }
    }

    /// The force and torque on `b` of the impulses accumulated over the last substep of `h`.
    pub(crate) fn reaction_of(&mut self, states: &mut [SolverBody], h: Real) -> [Vector3; 2] {
        let (force, torque) = self.pass(states, &mut [], h, Pass::Reaction);
        [force / h, torque / h]
    }
}

/// Each substep's warm start: the accumulated impulses applied along the joints' rows as they
/// are now. `jointed` gathers, per slot, what the joints change the velocities by (see
/// `integrate_velocities`).
pub(crate) fn warm_start(
    joints: &mut [JointConstraint],
    states: &mut [SolverBody],
    jointed: &mut [[Vector3; 2]],
    h: Real,
) {
    for joint in joints {
        joint.pass(states, jointed, h, Pass::Warm);
    }
}

/// A soft (`soft`) or relax pass over the joints, [`ITERATIONS`] times.
pub(crate) fn solve(
    joints: &mut [JointConstraint],
    states: &mut [SolverBody],
    jointed: &mut [[Vector3; 2]],
    h: Real,
    soft: bool,
) {
    let pass = if soft { Pass::Soft } else { Pass::Relax };
    for _ in 0..ITERATIONS {
        for joint in joints.iter_mut() {
            joint.pass(states, jointed, h, pass);
        }
    }
}

/// `x` held within the impulses and forces a snapshot accepts ([`crate::limits::MAX_IMPULSE`]);
/// NaN becomes 0.
pub(crate) fn bounded(x: Real) -> Real {
    let max = crate::limits::MAX_IMPULSE;
    if x.is_nan() { 0.0 } else { x.clamp(-max, max) }
}

/// Every impulse [`bounded`].
pub(crate) fn within_limits(i: &JointImpulses) -> JointImpulses {
    JointImpulses {
        linear: i.linear.map(bounded),
        angular: i.angular.map(bounded),
        spring: bounded(i.spring),
        motor: bounded(i.motor),
        friction: i.friction.map(bounded),
        lower: bounded(i.lower),
        upper: bounded(i.upper),
        cone: bounded(i.cone),
    }
}
