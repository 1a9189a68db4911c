//! World settings.

use crate::error::WorldError;
use crate::limits;
use geom::validate;
use geom::{Real, Vector3};
use serde::{Deserialize, Serialize};

/// How the world responds to contacts. The step calls the configured response between the
/// narrow phase and position integration; new responses (an impulse solver with friction and
/// rotation) slot in here without changing the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Response {
    /// Detect contacts and report them, but let bodies pass through each other.
    None,
    /// Seed 003's bouncing, made general: an elastic, frictionless exchange of velocity along
    /// the contact normal (reflection off static and kinematic bodies), then a push apart along
    /// the minimum translation split by inverse mass (seed 004). Never adds kinetic energy.
    #[default]
    Reflect,
}

/// World settings, with defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WorldConfig {
    /// The fixed time step (seconds). Default 0.02 (seed 003's 20 ms tick).
    pub dt: Real,
    /// Acceleration of dynamic bodies (metres per second squared). Default `(0, -9.81, 0)`.
    pub gravity: Vector3,
    /// The contact response. Default [`Response::Reflect`].
    pub response: Response,
    /// At most this many steps per [`crate::World::advance`] call; time beyond it is dropped,
    /// so that a slow frame cannot snowball. Default 8.
    pub max_steps_per_advance: u32,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            dt: 0.02,
            gravity: Vector3::new(0.0, -9.81, 0.0),
            response: Response::Reflect,
            max_steps_per_advance: 8,
        }
    }
}

impl WorldConfig {
    /// Checks every field: `dt` finite and positive, gravity finite, at least one step per
    /// advance. The error names the field.
    pub fn validate(&self) -> Result<(), WorldError> {
        validate::positive("config.dt", self.dt)?;
        limits::within("config.dt", self.dt, 0.0, limits::MAX_DT, "at most 10 s")?;
        validate::finite_vector3("config.gravity", &self.gravity)?;
        limits::components_within(
            "config.gravity",
            &self.gravity,
            limits::MAX_GRAVITY,
            "at most 1e4 m/s^2",
        )?;
        if self.max_steps_per_advance == 0 {
            return Err(WorldError::OutOfRange {
                field: "config.max_steps_per_advance".into(),
                value: 0.0,
                range: "at least 1",
            });
        }
        Ok(())
    }
}
