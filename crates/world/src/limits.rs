//! The ranges a world accepts. Beyond them single-precision physics means nothing, and products
//! inside a step could overflow to infinity and then NaN; inside them a step stays finite.
//! Inputs (`World::insert`, setters, snapshots, settings) are checked against them, and every
//! step clamps speeds to them.

use crate::error::WorldError;
use geom::{Real, Vector3};

/// The largest coordinate of a position, metres.
pub const MAX_COORDINATE: Real = 1e18;
/// The largest linear speed, metres per second; faster bodies are slowed to it each step.
pub const MAX_SPEED: Real = 1e5;
/// The largest angular speed, radians per second; faster spins are slowed to it each step.
pub const MAX_ANGULAR_SPEED: Real = 1e5;
/// The smallest half extent or radius, metres.
pub const MIN_SIZE: Real = 1e-6;
/// The largest half extent or radius, metres.
pub const MAX_SIZE: Real = 1e6;
/// The smallest mass of a dynamic body, kilograms.
pub const MIN_MASS: Real = 1e-9;
/// The largest mass of a dynamic body, kilograms.
pub const MAX_MASS: Real = 1e12;
/// The longest time step, seconds.
pub const MAX_DT: Real = 10.0;
/// The largest impulse a snapshot's contact set may hold, newton seconds.
pub const MAX_IMPULSE: Real = 1e20;
/// The longest `time_to_sleep`, and the longest time a body's sleep timer counts, seconds.
pub const MAX_SLEEP_TIME: Real = 1e6;
/// The largest gravity component, metres per second squared.
pub const MAX_GRAVITY: Real = 1e4;

/// `value` if it lies in `[min, max]` (NaN does not).
pub(crate) fn within(
    field: &str,
    value: Real,
    min: Real,
    max: Real,
    range: &'static str,
) -> Result<Real, WorldError> {
    if value >= min && value <= max {
        Ok(value)
    } else {
        Err(WorldError::OutOfRange {
            field: field.to_owned(),
            value,
            range,
        })
    }
}

/// Every component of `v` within `[-max, max]`; the error names `field().x`, `.y` or `.z`.
/// The name is a closure, called only on failure: this runs on every `set_pose`, and callers'
/// names are formatted (`"{prefix}.visual.vertices[{i}]"`).
pub(crate) fn components_within(
    field: impl Fn() -> String,
    v: &Vector3,
    max: Real,
    range: &'static str,
) -> Result<(), WorldError> {
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        if !(v[i] >= -max && v[i] <= max) {
            within(&format!("{}.{axis}", field()), v[i], -max, max, range)?;
        }
    }
    Ok(())
}

/// `v` shortened to at most `max` long (direction kept). Shortened a few ulps further, so
/// that rounding never leaves a component above `max` (which a snapshot would then refuse).
#[inline]
pub(crate) fn clamp_length(v: Vector3, max: Real) -> Vector3 {
    let length_sq = v.norm_squared();
    if length_sq > max * max {
        v * (max * (1.0 - 4.0 * Real::EPSILON) / length_sq.sqrt())
    } else {
        v
    }
}
