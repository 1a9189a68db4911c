//! What a game does to a body besides setting its velocity (Box3D's body API): forces and
//! torques gathered for the next step, impulses at once, damping, a gravity scale, locked axes,
//! a kinematic body's target pose, and a word of user data.
//!
//! All of it is state: saved in snapshots (beside the bodies, as their sleep states are) and
//! hashed when it differs from [`BodyControl::default`], so that worlds that use none of it
//! hash as they did before it existed.
//!
//! In the step (`response/solver/body.rs`), per substep of `h`, for a dynamic body:
//! `v <- v / (1 + h c_lin) + h (s g + F / m)` and `w <- w / (1 + h c_ang) + h I^-1 tau`
//! (Box3D's order: the damping acts on the velocity the substep starts with), then the locked
//! components of `v` and `w` are zeroed before the positions move and again when the step
//! writes the velocities back. Forces and torques are cleared after the step. A kinematic
//! body's target sets its velocities at the start of the step (those that carry it to the
//! pose in `dt`), and the pose itself at the end; it then stops, unless given a new target.

use super::validate::check_pose;
use super::{BodyKind, RigidBody};
use crate::error::WorldError;
use crate::limits::{self, Range, components_within, within};
use geom::{Isometry3, Point3, Real, Vector3};
use serde::{Deserialize, Serialize};

/// Axes along which a body may not move or about which it may not turn, world axes (Box3D's
/// `b3MotionLocks`). A body with all three rotations locked never turns (Box2D's fixed
/// rotation: a character's capsule); with translation locked along z it stays in its plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Locks {
    /// Translation along world x, y, z.
    pub linear: [bool; 3],
    /// Rotation about world x, y, z.
    pub angular: [bool; 3],
}

impl Locks {
    /// Nothing locked (the default).
    pub const NONE: Self = Self {
        linear: [false; 3],
        angular: [false; 3],
    };
    /// Every rotation locked: the body only translates.
    pub const ROTATION: Self = Self {
        linear: [false; 3],
        angular: [true; 3],
    };

    /// Whether nothing is locked.
    pub fn is_none(&self) -> bool {
        *self == Self::NONE
    }

    /// Zeroes the locked components of a linear and an angular velocity.
    #[inline]
    pub(crate) fn apply(&self, linvel: &mut Vector3, angvel: &mut Vector3) {
        for axis in 0..3 {
            if self.linear[axis] {
                linvel[axis] = 0.0;
            }
            if self.angular[axis] {
                angvel[axis] = 0.0;
            }
        }
    }
}

/// A body's control state; see the module documentation. Read it with
/// [`RigidBody::control`]; change it through `RigidBody`'s checked setters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BodyControl {
    /// Linear damping `c` (1/s): without other forces the speed decays as `1 / (1 + c h)` per
    /// substep of `h`, close to `exp(-c t)`. Default 0.
    pub linear_damping: Real,
    /// Angular damping (1/s), the same for the angular velocity. Default 0.
    pub angular_damping: Real,
    /// Gravity's factor on this body: 0 floats, -1 falls up. Default 1.
    pub gravity_scale: Real,
    /// Locked axes. Default none.
    pub locks: Locks,
    /// The force gathered for the next step (N, world space, through the centre of mass).
    pub force: Vector3,
    /// The torque gathered for the next step (N m, world space).
    pub torque: Vector3,
    /// A kinematic body's pose at the end of the next step, if one was set.
    pub target: Option<Isometry3>,
    /// The user's word: never read by the engine.
    pub user_data: u64,
}

impl Default for BodyControl {
    fn default() -> Self {
        Self {
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            locks: Locks::NONE,
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
            target: None,
            user_data: 0,
        }
    }
}

impl BodyControl {
    /// Whether a step must look at it: anything but gravity acts on the body, or it has a
    /// target (the user data changes nothing in a step).
    #[inline]
    pub(crate) fn acts(&self) -> bool {
        let plain = Self {
            user_data: self.user_data,
            ..Self::default()
        };
        *self != plain
    }
}

/// A controlled body's velocity update over `h`, in Box3D's order: the velocities it starts
/// with damped by `1 / (1 + h c)`, then gravity times its scale and the accelerations added
/// (`linear` is `F / m`, `angular` is `I^-1 tau`). The solver runs it every substep; the
/// whole-step responses (`Reflect`, `None`) once a step.
#[inline]
pub(crate) fn accelerate(
    [linvel, angvel]: [&mut Vector3; 2],
    gravity: &Vector3,
    gravity_scale: Real,
    [linear, angular]: [Vector3; 2],
    [linear_damping, angular_damping]: [Real; 2],
    h: Real,
) {
    let gained = gravity * (h * gravity_scale) + linear * h;
    let turned = angular * h;
    *linvel = *linvel * (1.0 / (1.0 + h * linear_damping)) + gained;
    *angvel = *angvel * (1.0 / (1.0 + h * angular_damping)) + turned;
}

/// Checks a body's control state, naming the first bad field under `prefix` (`desc`,
/// `bodies[3]`): the numbers in range, forces only on a dynamic body (others ignore them), a
/// target only on a kinematic one.
pub(crate) fn check_control(
    prefix: &str,
    kind: BodyKind,
    control: &BodyControl,
) -> Result<(), WorldError> {
    let zero = Vector3::zeros();
    if kind != BodyKind::Dynamic && (control.force != zero || control.torque != zero) {
        return Err(WorldError::OutOfRange {
            field: format!("{prefix}.force"),
            value: control.force.norm() + control.torque.norm(),
            range: "zero unless the body is dynamic".into(),
        });
    }
    if kind != BodyKind::Kinematic && control.target.is_some() {
        return Err(WorldError::NotKinematic {
            field: format!("{prefix}.target"),
        });
    }
    check_damping(&format!("{prefix}.linear_damping"), control.linear_damping)?;
    check_damping(
        &format!("{prefix}.angular_damping"),
        control.angular_damping,
    )?;
    check_gravity_scale(&format!("{prefix}.gravity_scale"), control.gravity_scale)?;
    check_force(&format!("{prefix}.force"), &control.force)?;
    check_force(&format!("{prefix}.torque"), &control.torque)?;
    if let Some(target) = &control.target {
        check_pose(&format!("{prefix}.target"), target)?;
    }
    Ok(())
}

fn check_damping(field: &str, damping: Real) -> Result<Real, WorldError> {
    within(
        field,
        damping,
        Range::Between(0.0, limits::MAX_DAMPING, "1/s"),
    )
}

fn check_gravity_scale(field: &str, scale: Real) -> Result<Real, WorldError> {
    within(field, scale, Range::AtMost(limits::MAX_GRAVITY_SCALE, ""))
}

fn check_force(field: &str, force: &Vector3) -> Result<(), WorldError> {
    components_within(
        || field.to_owned(),
        force,
        Range::AtMost(limits::MAX_FORCE, ""),
    )
}

impl RigidBody {
    /// The control state: damping, gravity scale, locks, pending force and torque, target
    /// pose, user data.
    pub fn control(&self) -> &BodyControl {
        &self.control
    }
    /// The user's word (see [`RigidBody::set_user_data`]).
    pub fn user_data(&self) -> u64 {
        self.control.user_data
    }
    /// Stores a word for the user (an index into the game's own tables, say). It is saved and
    /// hashed with the body, and never read by the engine.
    pub fn set_user_data(&mut self, data: u64) {
        self.control.user_data = data;
    }

    /// Sets the linear damping (1/s, in `[0, 1e6]`), and wakes the body; the error names
    /// a value out of range, and then nothing changes.
    pub fn set_linear_damping(&mut self, damping: Real) -> Result<(), WorldError> {
        self.control.linear_damping = check_damping("linear_damping", damping)?;
        self.sleep.wake();
        Ok(())
    }
    /// Sets the angular damping (1/s); as [`RigidBody::set_linear_damping`].
    pub fn set_angular_damping(&mut self, damping: Real) -> Result<(), WorldError> {
        self.control.angular_damping = check_damping("angular_damping", damping)?;
        self.sleep.wake();
        Ok(())
    }
    /// Sets gravity's factor on the body (finite, at most 1e4 in size), and wakes it.
    pub fn set_gravity_scale(&mut self, scale: Real) -> Result<(), WorldError> {
        self.control.gravity_scale = check_gravity_scale("gravity_scale", scale)?;
        self.sleep.wake();
        Ok(())
    }
    /// Locks axes of motion (world axes); the locked components of the velocities are zeroed
    /// at once, and the body wakes.
    pub fn set_locks(&mut self, locks: Locks) {
        self.control.locks = locks;
        locks.apply(&mut self.linvel, &mut self.angvel);
        self.sleep.wake();
    }

    /// Adds a force (N, world space) through the centre of mass for the next step, and wakes
    /// the body. Forces add up until the step, which applies them and clears them. Ignored
    /// by static and kinematic bodies (infinite mass). The error names a non-finite or huge
    /// component (each at most 1e20) of the force or of the sum, and then nothing changes.
    pub fn add_force(&mut self, force: Vector3) -> Result<(), WorldError> {
        self.add_force_and_torque(force, Vector3::zeros())
    }
    /// Adds a force (N, world space) at a world point for the next step: the force through
    /// the centre of mass and the torque `(point - centre) x force`; as [`RigidBody::add_force`].
    pub fn add_force_at_point(&mut self, force: Vector3, point: Point3) -> Result<(), WorldError> {
        check_force("force", &force)?;
        check_point("point", &point)?;
        let torque = (point - self.center_of_mass()).cross(&force);
        self.add_force_and_torque(force, torque)
    }
    /// Adds a torque (N m, world space) for the next step; as [`RigidBody::add_force`].
    pub fn add_torque(&mut self, torque: Vector3) -> Result<(), WorldError> {
        self.add_force_and_torque(Vector3::zeros(), torque)
    }

    fn add_force_and_torque(&mut self, force: Vector3, torque: Vector3) -> Result<(), WorldError> {
        check_force("force", &force)?;
        check_force("torque", &torque)?;
        if self.kind != BodyKind::Dynamic {
            return Ok(());
        }
        let (sum_force, sum_torque) = (self.control.force + force, self.control.torque + torque);
        check_force("force (the sum of the step's forces)", &sum_force)?;
        check_force("torque (the sum of the step's torques)", &sum_torque)?;
        self.control.force = sum_force;
        self.control.torque = sum_torque;
        self.sleep.wake();
        Ok(())
    }

    /// Applies an impulse (N s, world space) through the centre of mass at once: the linear
    /// velocity changes by `impulse / m`; the body wakes. Ignored by static and kinematic
    /// bodies. The error names a non-finite or huge component, or a resulting velocity out of
    /// range, and then nothing changes.
    pub fn apply_impulse(&mut self, impulse: Vector3) -> Result<(), WorldError> {
        self.apply_impulses(impulse, Vector3::zeros())
    }
    /// Applies an impulse (N s) at a world point at once: the linear velocity changes by
    /// `impulse / m`, the angular by `I^-1 ((point - centre) x impulse)`; as
    /// [`RigidBody::apply_impulse`].
    pub fn apply_impulse_at_point(
        &mut self,
        impulse: Vector3,
        point: Point3,
    ) -> Result<(), WorldError> {
        check_force("impulse", &impulse)?;
        check_point("point", &point)?;
        let angular = (point - self.center_of_mass()).cross(&impulse);
        self.apply_impulses(impulse, angular)
    }
    /// Applies an angular impulse (N m s, world space) at once: the angular velocity changes by
    /// `I^-1 impulse`; as [`RigidBody::apply_impulse`].
    pub fn apply_angular_impulse(&mut self, impulse: Vector3) -> Result<(), WorldError> {
        self.apply_impulses(Vector3::zeros(), impulse)
    }

    fn apply_impulses(&mut self, linear: Vector3, angular: Vector3) -> Result<(), WorldError> {
        check_force("impulse", &linear)?;
        check_force("angular impulse", &angular)?;
        if self.kind != BodyKind::Dynamic {
            return Ok(());
        }
        let mut linvel = self.linvel + linear * self.mass_properties.inverse_mass;
        let mut angvel = self.angvel + self.world_inverse_inertia() * angular;
        self.control.locks.apply(&mut linvel, &mut angvel);
        super::validate::check_linvel("linvel (after the impulse)", &linvel)?;
        super::validate::check_angvel("angvel (after the impulse)", &angvel)?;
        self.linvel = linvel;
        self.angvel = angvel;
        self.sleep.wake();
        Ok(())
    }

    /// The inverse inertia tensor about the centre of mass, world axes (zero unless dynamic).
    pub(crate) fn world_inverse_inertia(&self) -> geom::Matrix3 {
        let r = self.pose.rotation.to_rotation_matrix();
        r.matrix() * self.mass_properties.inverse_inertia * r.matrix().transpose()
    }

    /// Moves a kinematic body to `pose` over the next step, pushing what is in its way as a
    /// moving kinematic body does (Box3D's `b3Body_SetTargetTransform`): the step gives it the
    /// velocities that carry it there in `dt`, ends with it exactly at `pose`, and leaves it at
    /// rest unless it is given another target. Call it every frame to drive a platform along
    /// a path. With `World::advance` running several steps, the first of them reaches the
    /// target. The error names a pose that is not finite, not a rotation or out of range, or
    /// a body that is not kinematic; then nothing changes.
    pub fn set_target_pose(&mut self, pose: Isometry3) -> Result<(), WorldError> {
        let pose = check_pose("target", &pose)?;
        if self.kind != BodyKind::Kinematic {
            return Err(WorldError::NotKinematic {
                field: "target".into(),
            });
        }
        self.control.target = Some(pose);
        self.sleep.wake();
        Ok(())
    }

    /// Before a step of `dt`: a kinematic body with a target takes the velocities that carry
    /// its centre of mass to the target's and turn it to the target's rotation (the shorter
    /// way) in `dt`.
    pub(crate) fn aim(&mut self, dt: Real) {
        let Some(target) = self.control.target else {
            return;
        };
        let center = self.mass_properties.local_center;
        let travel = target * center - self.pose * center;
        // `scaled_axis` turns the shorter way: its angle is in [0, pi].
        let turn = target.rotation * self.pose.rotation.inverse();
        self.linvel = limits::clamp_length(travel / dt, limits::MAX_SPEED);
        self.angvel = limits::clamp_length(turn.scaled_axis() / dt, limits::MAX_ANGULAR_SPEED);
        self.control.locks.apply(&mut self.linvel, &mut self.angvel);
    }

    /// After a step: forces and torques are spent; a body with a target is put exactly on it
    /// and stops.
    pub(crate) fn end_step_control(&mut self) {
        self.control.force = Vector3::zeros();
        self.control.torque = Vector3::zeros();
        if let Some(target) = self.control.target.take() {
            self.pose = target;
            self.linvel = Vector3::zeros();
            self.angvel = Vector3::zeros();
        }
    }
}

fn check_point(field: &str, point: &Point3) -> Result<(), WorldError> {
    geom::validate::finite_vector3(field, &point.coords)?;
    components_within(
        || field.to_owned(),
        &point.coords,
        Range::Around(limits::MAX_COORDINATE, "m", "the origin"),
    )
}
