//! The solver's view of a body (Box2D's `b2BodyState` beside `b2Body`): velocities and the
//! motion of its centre of mass since the start of the step, densely in handle order, separate
//! from the body's bookkeeping. Static bodies have zero inverse mass and never move; kinematic
//! bodies have zero inverse mass and move by their velocity.

use super::gyroscopic::{self, Spinning};
use super::lanes::Lane;
use crate::body::{BodyKind, Locks, RigidBody};
use crate::limits;
use geom::{Matrix3, Point3, Real, UnitQuaternion, Vector3};
use std::ops::Range;

/// Velocities and step displacement of one body during a solve, centre-of-mass frame.
///
/// The four vectors a solve reads come first, in this order, so that they are three rows of
/// four floats ([`SolverBody::rows`]) that a batch of four bodies reads as a 4x4 transpose.
/// Aligned to a cache line: those rows and the step's rotation fill the first line, what the
/// passes seldom read (push-out velocities, inverse mass and inertia) the second. Unaligned,
/// the rows could straddle two lines, depending on where the allocator put the array (the
/// falling pile of 10,000 bodies stepped 7% slower, median of five wall-clock runs).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct SolverBody {
    /// Linear velocity of the centre of mass (m/s).
    pub(crate) linvel: Vector3,
    /// Angular velocity, world space (rad/s).
    pub(crate) angvel: Vector3,
    /// How far the centre of mass has moved since the start of the step.
    pub(crate) delta_position: Vector3,
    /// The turn since the start of the step as the sum of the substeps' `w h`: the contacts'
    /// separations are updated to first order in it.
    pub(crate) delta_angle: Vector3,
    /// How far the body has turned since the start of the step (applied on the left).
    pub(crate) delta_rotation: UnitQuaternion,
    /// The push-out velocities of this substep: how fast deep overlaps move the body apart.
    /// They move positions and are then dropped, never becoming real velocity (see
    /// `contact::is_deep`).
    pub(crate) push_linvel: Vector3,
    pub(crate) push_angvel: Vector3,
    pub(crate) inverse_mass: Real,
    /// World-space inverse inertia at the start of the step, held for the step (as the
    /// constraints' effective masses are).
    pub(crate) inverse_inertia: Matrix3,
}

const _: () = assert!(std::mem::size_of::<SolverBody>() == 128);

impl SolverBody {
    /// A body that never moves: the other side of a contact with a static body.
    pub(crate) const FIXED: Self = Self {
        linvel: Vector3::new(0.0, 0.0, 0.0),
        angvel: Vector3::new(0.0, 0.0, 0.0),
        delta_position: Vector3::new(0.0, 0.0, 0.0),
        delta_angle: Vector3::new(0.0, 0.0, 0.0),
        delta_rotation: UnitQuaternion::new_unchecked(geom::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
        push_linvel: Vector3::new(0.0, 0.0, 0.0),
        push_angvel: Vector3::new(0.0, 0.0, 0.0),
        inverse_mass: 0.0,
        inverse_inertia: Matrix3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    };

    /// The solver state of `body` at the start of a step.
    pub(crate) fn of(body: &RigidBody) -> Self {
        if body.kind == BodyKind::Static {
            return Self::FIXED;
        }
        // An isotropic body (`I^-1 = s 1`: a cube, a ball) has the same inverse inertia in every
        // frame: kept exact, so that the solver turns it by `s` alone (`batch::Turns`).
        let inverse_inertia = body.mass_properties.inverse_inertia;
        let inverse_inertia = if is_isotropic(&inverse_inertia) {
            inverse_inertia
        } else {
            let r = body.pose.rotation.to_rotation_matrix();
            let r = r.matrix();
            r * inverse_inertia * r.transpose()
        };
        Self {
            linvel: body.linvel,
            angvel: body.angvel,
            delta_position: Vector3::zeros(),
            delta_angle: Vector3::zeros(),
            delta_rotation: UnitQuaternion::identity(),
            push_linvel: Vector3::zeros(),
            push_angvel: Vector3::zeros(),
            inverse_mass: body.mass_properties.inverse_mass,
            inverse_inertia,
        }
    }

    /// Whether the body's world-space inverse inertia is a multiple of the identity (a fixed
    /// body's is zero).
    pub(crate) fn is_isotropic(&self) -> bool {
        is_isotropic(&self.inverse_inertia)
    }

    /// `linvel`, `angvel`, `delta_position` and `delta_angle` as three rows of four.
    #[inline]
    pub(crate) fn rows(&self) -> [[Real; 4]; 3] {
        let (v, w, p, a) = (
            &self.linvel,
            &self.angvel,
            &self.delta_position,
            &self.delta_angle,
        );
        [
            [v.x, v.y, v.z, w.x],
            [w.y, w.z, p.x, p.y],
            [p.z, a.x, a.y, a.z],
        ]
    }

    /// Sets `linvel` and `angvel` from the first two of [`SolverBody::rows`].
    #[inline]
    pub(crate) fn set_velocities(&mut self, first: &[Real; 4], second: &[Real; 4]) {
        self.linvel = Vector3::new(first[0], first[1], first[2]);
        self.angvel = Vector3::new(first[3], second[0], second[1]);
    }
}

/// Whether `m` is a multiple of the identity (the same about every axis, in every frame): a
/// finite `m11` repeated down the diagonal, zeros elsewhere. Asked three times per body per
/// step: compared entry by entry rather than against `identity * m11`, which multiplies nine.
#[inline]
pub(crate) fn is_isotropic(m: &Matrix3) -> bool {
    m.m11.is_finite()
        && m.m22 == m.m11
        && m.m33 == m.m11
        && [m.m12, m.m13, m.m21, m.m23, m.m31, m.m32]
            .iter()
            .all(|&x| x == 0.0)
}

/// What acts on a body besides gravity in a step ([`crate::BodyControl`]): `None` for a body
/// that feels gravity alone, which then integrates exactly as before controls existed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Drive {
    /// Gravity's factor (0 for a kinematic body).
    gravity_scale: Real,
    /// `F / m` (m/s^2) and `I^-1 tau` (rad/s^2, world inverse inertia at the step's start).
    linear: Vector3,
    angular: Vector3,
    /// Damping rates (1/s).
    linear_damping: Real,
    angular_damping: Real,
    pub(crate) locks: Locks,
}

impl Drive {
    /// What acts on `body` besides gravity, if anything does. A rotation locked about a world
    /// axis is a constraint `w_i = 0`: the constraints see the inertia of the body that cannot
    /// turn so, `P I^-1 P` with `P` the projection that drops the locked axes (all locked:
    /// zero, Box2D's fixed rotation), written into its solver state `state`.
    pub(crate) fn of(body: &RigidBody, state: &mut SolverBody) -> Option<Self> {
        let control = &body.control;
        if !control.acts() {
            return None;
        }
        for axis in 0..3 {
            if control.locks.angular[axis] {
                state.inverse_inertia.row_mut(axis).fill(0.0);
                state.inverse_inertia.column_mut(axis).fill(0.0);
            }
        }
        let dynamic = body.kind == BodyKind::Dynamic;
        Some(Self {
            gravity_scale: if dynamic { control.gravity_scale } else { 0.0 },
            linear: control.force * state.inverse_mass,
            angular: state.inverse_inertia * control.torque,
            linear_damping: control.linear_damping,
            angular_damping: control.angular_damping,
            locks: control.locks,
        })
    }

    /// The velocity update before the gyroscopic term (Box3D's order: damping on the
    /// velocities the substep starts with, then gravity and the forces).
    #[inline]
    fn accelerate(&self, state: &mut SolverBody, gravity: &Vector3, h: Real) {
        crate::body::accelerate(
            [&mut state.linvel, &mut state.angvel],
            gravity,
            self.gravity_scale,
            [self.linear, self.angular],
            [self.linear_damping, self.angular_damping],
            h,
        );
    }
}

/// Per substep, for a dynamic body, the velocity update before the gyroscopic term
/// (`gyroscopic`): gravity, or what its drive applies.
#[inline]
fn accelerate(state: &mut SolverBody, drive: Option<&Drive>, gravity: &Vector3, h: Real) {
    match drive {
        None => state.linvel += gravity * h,
        Some(drive) => drive.accelerate(state, gravity, h),
    }
}

/// The velocity update after the gyroscopic term: the speed limits.
#[inline]
fn hold_to_limits(state: &mut SolverBody, h: Real) {
    state.linvel = limits::clamp_length(state.linvel, limits::MAX_SPEED);
    state.angvel = limits::clamp_length(state.angvel, max_angular_speed(h));
}

/// Box3D's rotation cap: at most an eighth of a turn per substep of `h`, so that the rotation
/// update stays meaningful (and never above the world's limit).
fn max_angular_speed(h: Real) -> Real {
    (0.25 * std::f32::consts::PI / h).min(limits::MAX_ANGULAR_SPEED)
}

/// Per substep, for a dynamic or kinematic body: the centre of mass moves by `(v + v_push) h`,
/// the rotation by `(w + w_push) h` (exactly, as an axis-angle turn); the push-out velocities
/// are then dropped. The speeds are held to the world's limits first: the impulses applied
/// since the velocity update (warm started from a snapshot, say) must not carry a body past
/// them; the push-out is held to `max_push_out_speed` as a whole, however many overlaps push
/// the body.
///
/// A body's locked axes (`locks`) are zeroed in its velocities first and in what it moves by
/// (Box3D: the locks act as a constraint solved last).
#[inline]
pub(crate) fn integrate_position(
    state: &mut SolverBody,
    h: Real,
    max_push_out_speed: Real,
    locks: Option<&Locks>,
) {
    let max_angular_speed = max_angular_speed(h);
    if let Some(locks) = locks {
        locks.apply(&mut state.linvel, &mut state.angvel);
    }
    state.linvel = limits::clamp_length(state.linvel, limits::MAX_SPEED);
    state.angvel = limits::clamp_length(state.angvel, max_angular_speed);
    let (mut linvel, mut angvel) = (state.linvel, state.angvel);
    if state.push_linvel != Vector3::zeros() || state.push_angvel != Vector3::zeros() {
        linvel += limits::clamp_length(state.push_linvel, max_push_out_speed);
        angvel = limits::clamp_length(angvel + state.push_angvel, max_angular_speed);
        state.push_linvel = Vector3::zeros();
        state.push_angvel = Vector3::zeros();
        if let Some(locks) = locks {
            locks.apply(&mut linvel, &mut angvel);
        }
    }
    state.delta_position += linvel * h;
    if angvel != Vector3::zeros() {
        state.delta_angle += angvel * h;
        let turn = UnitQuaternion::from_scaled_axis(angvel * h);
        state.delta_rotation =
            UnitQuaternion::new_normalize((turn * state.delta_rotation).into_inner());
    }
}

/// Writes a step's motion back into the body: its centre of mass moved by the step's
/// displacement, its rotation turned by the step's rotation, its velocities (less their locked
/// components, which the relax pass and restitution after the last position update may have
/// given them).
pub(crate) fn finish(body: &mut RigidBody, state: &SolverBody) {
    let local_center = body.mass_properties.local_center;
    let center: Point3 = body.pose * local_center + state.delta_position;
    let rotation =
        UnitQuaternion::new_normalize((state.delta_rotation * body.pose.rotation).into_inner());
    body.pose.rotation = rotation;
    body.pose.translation.vector = center.coords - rotation * local_center.coords;
    body.linvel = limits::clamp_length(state.linvel, limits::MAX_SPEED);
    body.angvel = limits::clamp_length(state.angvel, limits::MAX_ANGULAR_SPEED);
    let locks = body.control.locks;
    if !locks.is_none() {
        locks.apply(&mut body.linvel, &mut body.angvel);
    }
}

/// Per slot, what the velocity update reads of a body besides its state.
pub(super) struct Integration<'a> {
    pub(super) kinds: &'a [BodyKind],
    pub(super) rotations: &'a [UnitQuaternion],
    pub(super) inertias: &'a [Option<Matrix3>],
    /// Empty when no body of the step has one.
    pub(super) drives: &'a [Option<Drive>],
}

impl Integration<'_> {
    /// The entries of `slots`.
    pub(super) fn slice(&self, slots: Range<usize>) -> Integration<'_> {
        Integration {
            kinds: &self.kinds[slots.clone()],
            rotations: &self.rotations[slots.clone()],
            inertias: &self.inertias[slots.clone()],
            drives: self.drives.get(slots).unwrap_or(&[]),
        }
    }
}

/// Per substep, the velocity update of every awake dynamic body (`body::integrate_velocity`),
/// and after the first substep the warm start: each body's velocities gain what the contact
/// impulses changed them by in the last substep (its velocities then less `uncontacted`, those
/// it had after that substep's update). Within a step the constraints' Jacobians are fixed, so
/// that change is `M^-1 J^T lambda` summed over the body's constraints at their accumulated
/// impulses, which is what warm starting applies (Box2D v3 applies it constraint by constraint,
/// a pass over every constraint per substep; here a body at a time, in the pass over the
/// bodies that runs anyway), up to rounding and whatever the speed limits took off in the
/// position update. The first substep's warm start, from last step's impulses, is the
/// constraints' own pass (`batch::warm_start`). Large pyramid (5,050 cubes, 4 substeps),
/// perf over 60 steps, three alternating runs: warm start from 1,723 to 586 samples of about
/// 22,000; its largest displacement after 200 steps 0.6734 m before, 0.6736 m after.
///
/// What the joints changed (`jointed`, per slot, empty in a group without joints) is left out
/// and zeroed: a joint's Jacobian turns with its bodies within a step (its anchors' arms), so
/// last substep's change would push along last substep's directions; the joints warm start
/// themselves every substep instead (`joint::warm_start`). Measured: a ragdoll's ball head
/// against the ground spun up to 400 rad/s and its neck came 95 mm apart when the joints rode
/// on this warm start; 0.2 mm with their own.
///
/// A group without contacts has nothing for it to carry: its `uncontacted` and `jointed` are
/// empty, and its bodies are not warm started here (the sum would be the rounding of the
/// joints' changes less their total). Box3D's joint grid, which has no contact: its solve
/// 632-676 -> 547-586 ms (session 64, three alternated rounds, one thread).
pub(super) fn integrate_velocities<L: Lane>(
    states: &mut [SolverBody],
    uncontacted: &mut [[Vector3; 2]],
    jointed: &mut [[Vector3; 2]],
    bodies: &Integration<'_>,
    first: bool,
    gravity: &Vector3,
    h: Real,
) {
    // After the velocity update: the limits, the velocities that `uncontacted` keeps, then
    // the warm start.
    let done = |slot: usize,
                state: &mut SolverBody,
                uncontacted: &mut [[Vector3; 2]],
                warm: Option<[Vector3; 2]>| {
        hold_to_limits(state, h);
        if let Some(uncontacted) = uncontacted.get_mut(slot) {
            *uncontacted = [state.linvel, state.angvel];
        }
        if let Some([linear, angular]) = warm {
            state.linvel += linear;
            state.angvel += angular;
        }
    };
    // Bodies whose inertia is not the same about every axis wait for the gyroscopic term,
    // which they take `L::WIDTH` at a time (`gyroscopic`); each body's update is its own, so
    // the order they finish in changes nothing.
    let mut spinning = Spinning::<_, 8>::new();
    for k in 0..states.len() {
        if bodies.kinds[k] != BodyKind::Dynamic {
            continue;
        }
        let state = &mut states[k];
        let warm = (!first && !uncontacted.is_empty()).then(|| {
            let mut warm = [
                state.linvel - uncontacted[k][0],
                state.angvel - uncontacted[k][1],
            ];
            if let Some(joints) = jointed.get_mut(k) {
                warm[0] -= joints[0];
                warm[1] -= joints[1];
                *joints = [Vector3::zeros(); 2];
            }
            warm
        });
        accelerate(
            state,
            bodies.drives.get(k).and_then(Option::as_ref),
            gravity,
            h,
        );
        match &bodies.inertias[k] {
            Some(inertia) if gyroscopic::turns_enough(&state.angvel, h) => {
                let rotation = state.delta_rotation * bodies.rotations[k];
                let body = (k, rotation, *inertia, warm);
                spinning.push::<L, _>(body, states, uncontacted, h, done);
            }
            _ => done(k, state, uncontacted, warm),
        }
    }
    spinning.flush::<L, _>(states, uncontacted, h, done);
}

/// Per substep, the position update of every awake dynamic or kinematic body.
pub(super) fn integrate_positions(
    states: &mut [SolverBody],
    bodies: &Integration<'_>,
    h: Real,
    max_push_out_speed: Real,
) {
    for (k, (state, &kind)) in states.iter_mut().zip(bodies.kinds).enumerate() {
        if kind != BodyKind::Static {
            let locks = (bodies.drives.get(k))
                .and_then(Option::as_ref)
                .map(|drive| &drive.locks);
            integrate_position(state, h, max_push_out_speed, locks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;

    fn state(desc: BodyDesc) -> SolverBody {
        let rotation = UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0);
        SolverBody::of(&desc.rotation(rotation).build().expect("a valid body"))
    }

    #[test]
    fn an_isotropic_body_keeps_its_inverse_inertia_exact_in_any_frame() {
        // A cube and a ball, turned: `I^-1 = s 1` exactly, as the solver's isotropic batches
        // assume (`R (s 1) R^T` would be off by rounding).
        for desc in [
            BodyDesc::dynamic().cuboid(Vector3::new(0.5, 0.5, 0.5)),
            BodyDesc::dynamic().ball(0.3),
        ] {
            let body = state(desc);
            assert!(body.is_isotropic());
            assert!(body.inverse_inertia.m11 > 0.0);
        }
        assert!(SolverBody::FIXED.is_isotropic());
        // The entry-by-entry test agrees with the definition (`m == 1 m11`), signed zeros and
        // non-finite entries included.
        let definition = |m: &Matrix3| *m == Matrix3::identity() * m.m11;
        let mut cases = vec![
            Matrix3::identity() * 2.5,
            Matrix3::zeros(),
            Matrix3::identity() * -0.0,
            Matrix3::identity() * -3.0,
            Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 1.0 + Real::EPSILON)),
            Matrix3::identity() * Real::INFINITY,
            Matrix3::identity() * Real::NAN,
        ];
        for (r, c) in [(0, 1), (1, 0), (2, 1), (0, 2)] {
            for value in [-0.0, 1e-30, Real::NAN] {
                let mut m = Matrix3::identity() * 0.7;
                m[(r, c)] = value;
                cases.push(m);
            }
        }
        for m in &cases {
            assert_eq!(is_isotropic(m), definition(m), "{m}");
        }
        // A box that is not a cube, turned: its inverse inertia turns with it.
        let plank = state(BodyDesc::dynamic().cuboid(Vector3::new(2.0, 0.1, 0.5)));
        assert!(!plank.is_isotropic());
        assert!(plank.inverse_inertia.m12 != 0.0);
    }
}
