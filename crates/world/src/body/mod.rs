//! Rigid bodies: the handle, the kind, the material, the collider, and [`RigidBody`] with its
//! accessors and checked setters. A body is described by a [`BodyDesc`] ([`desc`]), drawn from
//! its [`Visual`] ([`visual`]), and checked by the one validator in [`validate`], which
//! `World::insert`, the setters and snapshot restore all call.

mod control;
mod desc;
mod filter;
mod mass;
mod validate;
mod visual;

pub use control::{BodyControl, Locks};
pub(crate) use control::{accelerate, check_control};
pub use desc::{BodyDesc, ColliderFit};
pub use filter::{ColliderFlags, CollisionFilter};
pub(crate) use mass::BodyMass;
pub(crate) use validate::{check_body, check_collider, check_pose};
pub use visual::{Visual, VisualShape};

use crate::error::WorldError;
use geom::{Aabb, Isometry3, Matrix3, Point3, Real, Shape, Vector3};
use serde::{Deserialize, Serialize};

slotmap::new_key_type! {
    /// A body's handle: opaque, `Copy`, serialisable. A removed body's handle never finds
    /// another body (the slot's version changes).
    pub struct BodyHandle;
}

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BodyKind {
    /// Never moves; infinite mass.
    Static,
    /// Moved by its velocity, gravity and collisions.
    Dynamic,
    /// Moved by its velocity only; pushes dynamic bodies, is never pushed (infinite mass).
    Kinematic,
}

/// Surface properties, used by the response.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Bounciness, in [0, 1]: 1 keeps the normal speed, 0 absorbs it. Default 0. Pairs take
    /// the larger of their two ([`Material::mix_restitution`]). `Response::Reflect` is always
    /// elastic and ignores it.
    pub restitution: Real,
    /// Coulomb friction coefficient, `>= 0`. Default 0.6. Pairs take the geometric mean
    /// ([`Material::mix_friction`]). `Response::Reflect` is frictionless and ignores it.
    pub friction: Real,
}

impl Default for Material {
    /// Box2D's defaults: friction 0.6, restitution 0.
    fn default() -> Self {
        Self {
            restitution: 0.0,
            friction: 0.6,
        }
    }
}

impl Material {
    /// The friction of a pair: the geometric mean `sqrt(mu_a mu_b)` (Box2D's rule: a
    /// frictionless surface makes the pair frictionless).
    #[inline]
    pub fn mix_friction(a: Real, b: Real) -> Real {
        (a * b).sqrt()
    }
    /// The restitution of a pair: the larger (Box2D's rule: a bouncy ball bounces on a dead
    /// floor).
    #[inline]
    pub fn mix_restitution(a: Real, b: Real) -> Real {
        a.max(b)
    }
}

/// The collision shape of a body: a [`Shape`] placed at `offset` in the body's frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collider {
    /// The shape, in the collider's frame.
    pub shape: Shape,
    /// The collider's frame in the body's frame (a mesh's fitted box need not be centred on the
    /// mesh's origin).
    pub offset: Isometry3,
    /// Its filter and sensor flag (saved beside the bodies in snapshots, so that format 8
    /// bodies still read).
    #[serde(skip)]
    pub flags: ColliderFlags,
    /// A word for the user, never read by the engine (saved beside the bodies in snapshots, as
    /// `flags` is). A body has one collider (a compound's parts are its shape), so this is the
    /// collider's word beside the body's own [`RigidBody::user_data`].
    #[serde(skip)]
    pub user_data: u64,
}

impl Collider {
    /// The collider's pose in world space for a body at `body_pose`.
    #[inline]
    pub fn world_pose(&self, body_pose: &Isometry3) -> Isometry3 {
        body_pose * self.offset
    }
}

/// A rigid body in the world. Read it with the accessors; change it through the checked
/// setters, so that a world never holds a NaN.
///
/// Laid out in the order written (`repr(C)`): what every step reads of every awake body (its
/// kind, pose, velocities, sleep state, material, collider and mass properties, 280 bytes)
/// first, on as few cache lines as they fit, and its visual and controls after. The saved
/// fields are serialized in the order written too, so that the fields a snapshot skips may
/// sit between them without changing the format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[repr(C)]
pub struct RigidBody {
    pub(crate) kind: BodyKind,
    pub(crate) pose: Isometry3,
    pub(crate) linvel: Vector3,
    pub(crate) angvel: Vector3,
    /// Whether it sleeps (saved beside the bodies in snapshots, so that format 2 bodies still
    /// read).
    #[serde(skip)]
    pub(crate) sleep: SleepState,
    /// Kilograms for a dynamic body; stored as 0 for static and kinematic ones, whose mass is
    /// infinite (JSON has no infinity).
    pub(crate) mass: Real,
    pub(crate) material: Material,
    pub(crate) collider: Collider,
    /// Derived from `kind`, `mass` and `collider` when the body is made or restored.
    #[serde(skip)]
    pub(crate) mass_properties: BodyMass,
    pub(crate) visual: Visual,
    /// Forces, damping, locks, target, user data (saved beside the bodies in snapshots, so
    /// that format 8 bodies still read).
    #[serde(skip)]
    pub(crate) control: BodyControl,
}

/// A body's sleep state: simulation state, saved in snapshots and hashed, so that a restored
/// world sleeps and wakes exactly as the original.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SleepState {
    /// How long the body has been at rest (seconds), counted up to
    /// [`crate::limits::MAX_SLEEP_TIME`]; 0 while it moves.
    pub rest_time: Real,
    /// Whether it sleeps.
    pub asleep: bool,
    /// Changed since the last step (inserted, moved or given a velocity by a setter, woken on
    /// request): the next step wakes every sleeping body it touches, and their islands.
    pub disturbed: bool,
}

impl SleepState {
    /// A body just inserted: awake, and disturbed (it wakes what it was put against).
    pub(crate) fn new_body() -> Self {
        Self {
            rest_time: 0.0,
            asleep: false,
            disturbed: true,
        }
    }

    /// Awake, at rest for no time, and disturbed.
    pub(crate) fn wake(&mut self) {
        *self = Self::new_body();
    }
}

impl RigidBody {
    /// Static, dynamic or kinematic.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    /// The body's frame in world space.
    pub fn pose(&self) -> &Isometry3 {
        &self.pose
    }
    /// The body origin's position, world space (metres).
    pub fn position(&self) -> Point3 {
        self.pose.translation.vector.into()
    }
    /// Linear velocity, world space (metres per second).
    pub fn linvel(&self) -> Vector3 {
        self.linvel
    }
    /// Angular velocity, world space (radians per second about each axis).
    pub fn angvel(&self) -> Vector3 {
        self.angvel
    }
    /// Mass in kilograms; infinite for static and kinematic bodies.
    pub fn mass(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => self.mass,
            BodyKind::Static | BodyKind::Kinematic => Real::INFINITY,
        }
    }
    /// The inverse mass: 0 for static and kinematic bodies.
    pub fn inverse_mass(&self) -> Real {
        self.mass_properties.inverse_mass
    }
    /// The centre of mass, world space (metres): the collider's centre.
    pub fn center_of_mass(&self) -> Point3 {
        self.pose * self.mass_properties.local_center
    }
    /// The inertia tensor about the centre of mass, in the body's frame (kg m^2); zero unless
    /// dynamic.
    pub fn local_inertia(&self) -> Matrix3 {
        self.mass_properties.inertia
    }
    /// The inertia tensor about the centre of mass, world axes (kg m^2).
    pub fn world_inertia(&self) -> Matrix3 {
        let r = self.pose.rotation.to_rotation_matrix();
        r.matrix() * self.mass_properties.inertia * r.matrix().transpose()
    }
    /// Angular momentum about the centre of mass, world space (kg m^2 / s).
    pub fn angular_momentum(&self) -> Vector3 {
        self.world_inertia() * self.angvel
    }
    /// Kinetic energy, linear and rotational (joules); 0 unless dynamic.
    pub fn kinetic_energy(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => {
                0.5 * self.mass * self.linvel.norm_squared()
                    + 0.5 * self.angvel.dot(&(self.world_inertia() * self.angvel))
            }
            _ => 0.0,
        }
    }
    /// Surface properties.
    pub fn material(&self) -> &Material {
        &self.material
    }
    /// The collision shape and its offset in the body's frame.
    pub fn collider(&self) -> &Collider {
        &self.collider
    }
    /// What a renderer draws.
    pub fn visual(&self) -> &Visual {
        &self.visual
    }
    /// Kinetic energy of the linear motion, `m v^2 / 2` (joules); 0 unless dynamic.
    pub fn linear_kinetic_energy(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => 0.5 * self.mass * self.linvel.norm_squared(),
            _ => 0.0,
        }
    }
    /// Whether the body sleeps (see [`crate::SleepConfig`]).
    pub fn is_sleeping(&self) -> bool {
        self.sleep.asleep
    }
    /// The sleep state: whether it sleeps and how long it has been at rest.
    pub fn sleep_state(&self) -> &SleepState {
        &self.sleep
    }
    /// The collider's world-space bounding box at the current pose.
    pub fn world_aabb(&self) -> Aabb {
        self.collider
            .shape
            .aabb(&self.collider.world_pose(&self.pose))
    }

    /// The collider placed in the world at the current pose (what queries test against).
    pub(crate) fn world_volume(&self) -> geom::Volume {
        self.collider
            .shape
            .world(&self.collider.world_pose(&self.pose))
    }

    /// Moves the body and wakes it (with its island, at the next step); the error names a non-finite translation or a bad rotation, and then
    /// nothing changes. A static body moved this way is teleported (no velocity).
    pub fn set_pose(&mut self, pose: Isometry3) -> Result<(), WorldError> {
        self.pose = validate::check_pose("pose", &pose)?;
        self.sleep.wake();
        Ok(())
    }
    /// Sets the linear velocity (ignored by static bodies) and wakes the body (with its island,
    /// at the next step); the error names a non-finite
    /// component, and then nothing changes.
    pub fn set_linvel(&mut self, linvel: Vector3) -> Result<(), WorldError> {
        validate::check_linvel("linvel", &linvel)?;
        self.linvel = linvel;
        self.sleep.wake();
        Ok(())
    }
    /// Sets the angular velocity (ignored by static bodies); as [`RigidBody::set_linvel`].
    pub fn set_angvel(&mut self, angvel: Vector3) -> Result<(), WorldError> {
        validate::check_angvel("angvel", &angvel)?;
        self.angvel = angvel;
        self.sleep.wake();
        Ok(())
    }
    /// Sets which colliders this body's collides with; it takes effect at the next step (a
    /// pair it no longer collides with stops touching then), and the body wakes.
    pub fn set_filter(&mut self, filter: CollisionFilter) {
        self.collider.flags.filter = filter;
        self.sleep.wake();
    }
    /// Makes the body's collider a sensor (`true`: it pushes nothing and reports
    /// `SensorEvent`s) or a solid; at the next step, and the body wakes.
    pub fn set_sensor(&mut self, sensor: bool) {
        self.collider.flags.sensor = sensor;
        self.sleep.wake();
    }
    /// Asks for hit events from the body's collider: the contacts it begins with the bodies
    /// approaching faster than `speed` (m/s, in `[0, 1e5]`); `None` for none. The error names
    /// a speed out of range, and then nothing changes.
    pub fn set_hit_events(&mut self, speed: Option<Real>) -> Result<(), WorldError> {
        validate::check_hit_speed("hit_speed", speed)?;
        self.collider.flags.hit_speed = speed;
        Ok(())
    }
    /// Sets the collider's own rolling resistance (`None`: the world's) and tangent velocity (a
    /// conveyor belt's surface speed, body frame), and wakes the body; the error names a value
    /// out of range, and then nothing changes.
    pub fn set_surface_motion(
        &mut self,
        rolling_resistance: Option<Real>,
        tangent_velocity: Vector3,
    ) -> Result<(), WorldError> {
        let flags = ColliderFlags {
            rolling_resistance,
            tangent_velocity,
            ..self.collider.flags
        };
        validate::check_surface_motion("surface", &flags)?;
        self.collider.flags = flags;
        self.sleep.wake();
        Ok(())
    }
    /// The user's word on the body's collider (see [`RigidBody::set_collider_user_data`]).
    pub fn collider_user_data(&self) -> u64 {
        self.collider.user_data
    }
    /// Stores a word for the user on the body's collider; saved and hashed with it, never read
    /// by the engine.
    pub fn set_collider_user_data(&mut self, data: u64) {
        self.collider.user_data = data;
    }
    /// Whether the body's collider is a sensor.
    pub fn is_sensor(&self) -> bool {
        self.collider.flags.sensor
    }
    /// Which colliders the body's collides with.
    pub fn filter(&self) -> &CollisionFilter {
        &self.collider.flags.filter
    }
    /// Sets the colour; each channel must be finite and in [0, 1].
    pub fn set_color(&mut self, color: [Real; 3]) -> Result<(), WorldError> {
        validate::check_color("color", &color)?;
        self.visual.color = color;
        Ok(())
    }
}
