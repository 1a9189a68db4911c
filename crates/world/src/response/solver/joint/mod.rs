//! The joint constraint, with the contact's stages: prepared once per step (each joint's
//! frames, anchors and softness at the start of the step), warm started in the first substep,
//! solved in each soft iteration (its holding rows soft) and in the relax iteration (rigid),
//! and its impulses and reaction stored after the step. Box3D's `joint.c` and its kinds'
//! files; the rows of each kind are in `kinds.rs`, the row algebra in `rows.rs`.
//!
//! Joints are solved one at a time, in handle order, before the contacts of each pass, within
//! the group of their moving bodies (a joint links its bodies' islands), so the bits do not
//! depend on threads or lanes; a crew solves a group's wide levels of joints at once
//! (`place::level_joints`: no two joints of a level move the same body, and each sees what the
//! pass in handle order would give it).
//! Later substeps' warm start is the per-body one of the contacts (`integrate_velocities`),
//! which carries the joints' last substep too.

mod balls;
mod kinds;
mod rows;

use super::body::SolverBody;
use super::soft::Softness;
use crate::body::RigidBody;
use crate::joint::{Joint, JointImpulses, JointKind, Spring};
pub(crate) use balls::{Ball, BallBatch, BallBatches, BallResult, BallSources, prefetch_balls};
use geom::{Matrix3, Point3, Real, UnitQuaternion, Vector3};
pub(crate) use kinds::Pass;
use kinds::{Coefficients, Frame, Geometry, Rows};
use rows::{Motion, Row, block_inverse};

/// The stiffest hold, as a fraction of the substep rate (Box3D: a quarter). Stiffer holds
/// need more than one pass (`SolverConfig::joint_iterations`) and damping: on the acceptance
/// chain (40 boxes of 2.5 kg holding a ball of 250 kg, 8 substeps, 2 soft iterations, 5 s),
/// Box3D's settings (60 Hz, a quarter of the substep rate, damping ratio 2, one pass) stretch
/// it 4.85%; 240 Hz (half the substep rate) with one pass blows up at any damping ratio
/// tried (2 to 80); with damping ratio 2 it stretches 0.49% and still sways at 7 cm/s with
/// two passes, 0.42% and 7 mm/s with four; with 20 (the default), 0.41% and 5 mm/s with two.
const HOLD_CAP: Real = 0.5;

/// What a joint's constraint is made from of each of its bodies (`JointConstraint::make`):
/// gathered with the bodies' solver states, beside each other, rather than read from the
/// bodies themselves, several cache lines each and apart (the joint grid's 19,800 joints read
/// each of its 10,000 bodies four times).
#[derive(Debug, Clone, Copy)]
pub(crate) struct JointBody {
    /// The body's orientation at the start of the step.
    rotation: UnitQuaternion,
    /// Its centre of mass, in its own frame and in world space.
    local_center: Point3,
    center: Point3,
}

impl JointBody {
    pub(crate) fn of(body: &RigidBody) -> Self {
        Self {
            rotation: body.pose.rotation,
            local_center: body.mass_properties.local_center,
            center: body.center_of_mass(),
        }
    }
}

/// A joint that turns (any but a plain ball and socket, which is a [`Ball`]) as the solver
/// holds it through a step.
#[derive(Debug, Clone)]
pub(crate) struct JointConstraint {
    /// Its bodies' slots, from its group's first; whether each has a slot of its own (a
    /// static or sleeping body shares the group's fixed state, which is never written).
    pub(crate) slots: [u32; 2],
    own: [bool; 2],
    /// The bodies' inverse masses.
    inverse_masses: [Real; 2],
    /// The anchors from the centres of mass at the start of the step, and the centres'
    /// offset `cB - cA`.
    arms: [Vector3; 2],
    delta_center: Vector3,
    /// The bodies' world inverse inertias, held for the step (as their solver states hold
    /// them), kept here to be read with the joint rather than from the states.
    inverse_inertias: [Matrix3; 2],
    /// The accumulated impulses (warm started from the joint's).
    pub(crate) impulses: JointImpulses,
    /// The rows' coefficients for this step's substep.
    coefficients: Coefficients,
    /// The frames' world rotations at the start of the step.
    rotations: [UnitQuaternion; 2],
    kind: JointKind,
    /// The anchor rows' effective mass, `K^-1` with `K = (mA + mB) 1 - [rA] IA^-1 [rA] -
    /// [rB] IB^-1 [rB]`, for the arms as they are this substep (refreshed with them; Box3D
    /// computes it every pass from arms that change only when the positions do, so the same
    /// values). Computed once per step from the arms at its start instead, it threw
    /// a ball of 0.1 m on a 1 m pendulum kicked at 5 m/s into a spin of 1e5 rad/s: its arm
    /// turns 0.08 rad in a step, and the stiff row along the arm then leaks into the soft ones
    /// across it. Zero when nothing can move the anchors.
    anchor_mass: Matrix3,
    /// The frames and anchors as the bodies' positions are now: they move only when the
    /// positions do, so are refreshed once per substep (`refresh_from`) rather than every pass.
    geometry: Geometry,
    /// Its rows, their masses and its angles from `geometry` (refreshed with it).
    frame: Frame,
    /// The force and torque on `b` over the step's last substep.
    pub(crate) reaction: [Vector3; 2],
}

impl JointConstraint {
    /// A place in the step's list of constraints, before [`JointConstraint::make`] fills it.
    pub(crate) fn placeholder() -> Self {
        Self {
            slots: [0; 2],
            own: [false; 2],
            inverse_masses: [0.0; 2],
            arms: [Vector3::zeros(); 2],
            delta_center: Vector3::zeros(),
            inverse_inertias: [Matrix3::zeros(); 2],
            impulses: JointImpulses::default(),
            coefficients: coefficients(
                &JointKind::BALL,
                &Spring {
                    hertz: 0.0,
                    damping_ratio: 0.0,
                },
                1.0,
            ),
            rotations: [UnitQuaternion::identity(); 2],
            kind: JointKind::BALL,
            anchor_mass: Matrix3::zeros(),
            geometry: Geometry {
                qa: UnitQuaternion::identity(),
                qb: UnitQuaternion::identity(),
                ra: Vector3::zeros(),
                rb: Vector3::zeros(),
                d: Vector3::zeros(),
            },
            frame: Frame::NONE,
            reaction: [Vector3::zeros(); 2],
        }
    }

    /// Makes this the constraint of `joint` (not a plain ball and socket: that is a [`Ball`])
    /// between bodies `a` and `b` (their solver states `states`), at `slots` of its group
    /// (`own`: whether each is a moving body's own slot), for a substep of `h`, in place. Its
    /// anchors and effective mass (`geometry`, `anchor_mass`) are made by its first refresh,
    /// in the first substep's warm start, and its `reaction` by the reaction stage, so neither
    /// is written here.
    pub(crate) fn make(
        &mut self,
        joint: &Joint,
        [a, b]: [&JointBody; 2],
        states: [&SolverBody; 2],
        slots: [u32; 2],
        own: [bool; 2],
        h: Real,
    ) {
        let center = |body: &JointBody| body.center;
        let [sa, sb] = states;
        debug_assert!(!joint.kind.is_plain_ball(), "a plain ball's is a `Ball`");
        let [ra, rb] =
            [(a, 0), (b, 1)].map(|(body, k)| arm(body, &joint.frames[k].translation.vector));
        self.slots = slots;
        self.own = own;
        self.inverse_masses = [sa.inverse_mass, sb.inverse_mass];
        self.arms = [ra, rb];
        self.delta_center = center(b) - center(a);
        self.impulses = joint.impulses;
        self.kind = joint.kind;
        self.inverse_inertias = [sa.inverse_inertia, sb.inverse_inertia];
        let qa = a.rotation * joint.frames[0].rotation;
        let qb = b.rotation * joint.frames[1].rotation;
        self.rotations = [qa, qb];
        self.coefficients = coefficients(&joint.kind, &joint.softness, h);
        // Only the rows that turn the frames together read the turn rows' mass: a spherical
        // joint's spring and friction, a weld's and a slider's turn.
        let turned = match joint.kind {
            JointKind::Spherical {
                friction, spring, ..
            } => friction > 0.0 || spring.is_some(),
            JointKind::Weld { .. } | JointKind::Prismatic(_) => true,
            JointKind::Revolute(_) | JointKind::Distance { .. } => false,
        };
        if turned {
            let masses = self.inverse_masses[0] + self.inverse_masses[1];
            let [ia, ib] = &self.inverse_inertias;
            self.coefficients.turn_mass = block_inverse(masses, ia, ib, &Row::turn());
        }
        if let JointKind::Spherical { cone: Some(_), .. } = joint.kind {
            let swing = (qa * Vector3::z()).cross(&(qb * Vector3::z()));
            self.coefficients.swing_axis = (swing.norm() > 1e-6).then(|| swing.normalize());
        }
    }

    /// The frames and anchors from the bodies' states `[a, b]` as they are now.
    fn refresh(&mut self, [a, b]: [&SolverBody; 2]) {
        let (qa, qb) = (
            a.delta_rotation * self.rotations[0],
            b.delta_rotation * self.rotations[1],
        );
        let (ra, rb) = (
            a.delta_rotation * self.arms[0],
            b.delta_rotation * self.arms[1],
        );
        let d = (b.delta_position - a.delta_position) + self.delta_center + rb - ra;
        // `K = (mA + mB) 1 - [rA] IA^-1 [rA] - [rB] IB^-1 [rB]` for the arms as they are now.
        let [ia, ib] = &self.inverse_inertias;
        let (sa, sb) = (ra.cross_matrix(), rb.cross_matrix());
        let k = Matrix3::identity() * (self.inverse_masses[0] + self.inverse_masses[1])
            - sa * ia * sa
            - sb * ib * sb;
        self.anchor_mass = k.try_inverse().unwrap_or_else(Matrix3::zeros);
        self.geometry = Geometry { qa, qb, ra, rb, d };
        let masses = Motion::of(a, b, ia, ib);
        Frame::make(
            &mut self.frame,
            &self.kind,
            &self.geometry,
            &self.coefficients,
            &masses,
        );
    }

    /// After the positions move: its frames and anchors as they are now, from its group's
    /// `states`.
    pub(crate) fn refresh_from<B: JointBodies>(&mut self, bodies: &B) {
        let [i, j] = self.slots.map(|s| s as usize);
        self.refresh([bodies.state(i), bodies.state(j)]);
    }

    /// The slots of its bodies that it moves (its own: not the group's fixed state).
    pub(crate) fn moved(&self) -> [Option<usize>; 2] {
        [0, 1].map(|side| self.own[side].then_some(self.slots[side] as usize))
    }

    /// One pass over the joint's rows on the group's `states`.
    pub(crate) fn pass<B: JointBodies>(
        &mut self,
        bodies: &mut B,
        pass: Pass,
    ) -> (Vector3, Vector3) {
        let [i, j] = self.slots.map(|s| s as usize);
        let (a, b) = (bodies.state(i), bodies.state(j));
        let [ia, ib] = &self.inverse_inertias;
        let mut motion = Motion::of(a, b, ia, ib);
        let mut rows = Rows {
            m: &mut motion,
            pass,
            c: &self.coefficients,
            anchor_mass: &self.anchor_mass,
            f: &self.frame,
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
        };
        rows.run(&self.kind, &self.geometry, &mut self.impulses);
        let (force, torque) = (rows.force, rows.torque);
        let velocities = [motion.va, motion.wa, motion.vb, motion.wb];
        if !self.commit(bodies, velocities, pass != Pass::Reaction) {
            return (Vector3::zeros(), Vector3::zeros());
        }
        (force, torque)
    }

    /// Ends a pass with the bodies' new velocities `[va, wa, vb, wb]`: written into their own
    /// states (with `write`), and what they changed gathered into `jointed`. Returns false,
    /// writing nothing, when one is not finite: only a hostile world gets there (impulses or
    /// arms near the limits whose sums overflow), and the joint then lets go for this pass
    /// rather than spread a NaN (`BallBatch::pass` does the same lane by lane).
    #[inline(always)]
    fn commit<B: JointBodies>(
        &mut self,
        bodies: &mut B,
        [va, wa, vb, wb]: [Vector3; 4],
        write: bool,
    ) -> bool {
        // One test for all twelve: a NaN or an infinity anywhere makes the sum one.
        if !(va + wa + vb + wb).sum().is_finite() {
            self.impulses = JointImpulses::default();
            return false;
        }
        if write {
            let [i, j] = self.slots.map(|s| s as usize);
            for (side, (k, v, w)) in [(i, va, wa), (j, vb, wb)].into_iter().enumerate() {
                if self.own[side] {
                    bodies.set(k, v, w);
                }
            }
        }
        true
    }

    /// The force and torque on `b` of the impulses accumulated over the last substep of `h`,
    /// from its group's `states` (read, not written; a plain ball and socket's is its
    /// batch's, `BallBatch::results`).
    pub(crate) fn reaction_of(&mut self, states: &[SolverBody], h: Real) -> [Vector3; 2] {
        let mut bodies = Reading(states);
        let (force, torque) = self.pass(&mut bodies, Pass::Reaction);
        [force / h, torque / h]
    }
}

/// The anchor of `frame` (in `body`'s frame) from the body's centre of mass, world space, at
/// the start of the step.
fn arm(body: &JointBody, anchor: &Vector3) -> Vector3 {
    body.rotation * (anchor - body.local_center.coords)
}

/// The softness of the holding rows (capped at [`HOLD_CAP`] of the substep rate) and of the
/// springs of a joint of `kind` and `softness`, for a substep of `h`. Zero-hertz springs pull
/// with no force, so are not solved.
fn coefficients(kind: &JointKind, softness: &Spring, h: Real) -> Coefficients {
    let spring = |s: &Spring| (s.hertz > 0.0).then(|| Softness::new(s.hertz, s.damping_ratio, h));
    let (linear, angular) = match kind {
        JointKind::Revolute(axis) | JointKind::Prismatic(axis) => {
            (axis.spring.as_ref().and_then(spring), None)
        }
        JointKind::Distance { spring: s, .. } => (s.as_ref().and_then(spring), None),
        JointKind::Weld { linear, angular } => (
            linear.as_ref().and_then(spring),
            angular.as_ref().and_then(spring),
        ),
        JointKind::Spherical { spring: s, .. } => (None, s.as_ref().and_then(spring)),
    };
    Coefficients {
        hold: hold(softness, h),
        spring: linear,
        angular_spring: angular,
        swing_axis: None,
        turn_mass: None,
        h,
        inv_h: 1.0 / h,
    }
}

/// Where a joint's pass reads its bodies' velocities and writes them, gathering what it
/// changed per slot (see `integrate_velocities`).
pub(crate) trait JointBodies {
    fn state(&self, slot: usize) -> &SolverBody;
    /// [`JointBodies::set`] where what they change by, `[linear, angular]`, is known (the new
    /// velocities less the state's).
    fn set_changed(&mut self, slot: usize, linvel: Vector3, angvel: Vector3, change: [Vector3; 2]);
    /// Whether [`JointBodies::set_changed`] keeps what the velocities changed by (a group with
    /// contacts does; without, the change is not read, and a pass need not make it).
    fn keeps_changes(&self) -> bool;
    /// Sets the body's velocities, and adds what they changed by to its `jointed` entry.
    #[inline(always)]
    fn set(&mut self, slot: usize, linvel: Vector3, angvel: Vector3) {
        let state = self.state(slot);
        let change = [linvel - state.linvel, angvel - state.angvel];
        self.set_changed(slot, linvel, angvel, change);
    }
}

/// The group's states, read by a pass that writes no body (the reaction's).
struct Reading<'a>(&'a [SolverBody]);

impl JointBodies for Reading<'_> {
    #[inline(always)]
    fn state(&self, slot: usize) -> &SolverBody {
        &self.0[slot]
    }

    fn set_changed(&mut self, _: usize, _: Vector3, _: Vector3, _: [Vector3; 2]) {
        unreachable!("the reaction's pass writes no body");
    }

    fn keeps_changes(&self) -> bool {
        false
    }
}

/// The group's states and `jointed` on this thread alone.
pub(crate) struct Owned<'a> {
    pub(crate) states: &'a mut [SolverBody],
    pub(crate) jointed: &'a mut [[Vector3; 2]],
}

impl JointBodies for Owned<'_> {
    #[inline(always)]
    fn state(&self, slot: usize) -> &SolverBody {
        &self.states[slot]
    }

    #[inline(always)]
    fn set_changed(&mut self, slot: usize, linvel: Vector3, angvel: Vector3, change: [Vector3; 2]) {
        set_changed(
            &mut self.states[slot],
            self.jointed.get_mut(slot),
            [linvel, angvel],
            change,
        );
    }

    #[inline(always)]
    fn keeps_changes(&self) -> bool {
        !self.jointed.is_empty()
    }
}

/// Sets `state`'s velocities to `[linvel, angvel]` and adds what they changed by,
/// `[linear, angular]`, to `jointed` (what a [`JointBodies::set_changed`] does), where the
/// group keeps it (one with contacts: `integrate_velocities`).
#[inline(always)]
pub(crate) fn set_changed(
    state: &mut SolverBody,
    jointed: Option<&mut [Vector3; 2]>,
    [linvel, angvel]: [Vector3; 2],
    [linear, angular]: [Vector3; 2],
) {
    if let Some(jointed) = jointed {
        jointed[0] += linear;
        jointed[1] += angular;
    }
    (state.linvel, state.angvel) = (linvel, angvel);
}

/// The holding rows' softness, `softness` capped at [`HOLD_CAP`] of the substep rate.
fn hold(softness: &Spring, h: Real) -> Softness {
    Softness::new(softness.hertz.min(HOLD_CAP / h), softness.damping_ratio, h)
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
