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
/// The largest component of a force (N), torque (N m) or impulse (N s, N m s) given to a body.
pub const MAX_FORCE: Real = 1e20;
/// The largest linear or angular damping, 1/s.
pub const MAX_DAMPING: Real = 1e6;
/// The largest rolling resistance of a collider.
pub const MAX_ROLLING_RESISTANCE: Real = 1e3;
/// The largest size of a body's gravity scale.
pub const MAX_GRAVITY_SCALE: Real = 1e4;

/// An allowed range as a check applies it and as its error states it: the text is written from
/// the same bounds (the constants above), never typed a second time.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Range {
    /// `in [min, max] unit`.
    Between(Real, Real, &'static str),
    /// `at most max unit`: a magnitude, `[-max, max]` (a component of a velocity, or a value
    /// already known to be positive).
    AtMost(Real, &'static str),
    /// `within max unit of place`: `[-max, max]`, a component of a position or an offset.
    Around(Real, &'static str, &'static str),
}

impl Range {
    /// Whether `value` lies in the range (NaN does not).
    #[inline]
    fn contains(&self, value: Real) -> bool {
        let (min, max) = match *self {
            Self::Between(min, max, _) => (min, max),
            Self::AtMost(max, _) | Self::Around(max, _, _) => (-max, max),
        };
        value >= min && value <= max
    }

    /// The text an error gives, e.g. `in [1e-9, 1e12] kg`.
    pub(crate) fn describe(&self) -> String {
        let unit = |unit: &str| {
            if unit.is_empty() {
                String::new()
            } else {
                format!(" {unit}")
            }
        };
        match *self {
            Self::Between(min, max, u) => {
                format!("in [{}, {}]{}", number(min), number(max), unit(u))
            }
            Self::AtMost(max, u) => format!("at most {}{}", number(max), unit(u)),
            Self::Around(max, u, place) => format!("within {}{} of {place}", number(max), unit(u)),
        }
    }
}

/// A bound as people write it: `0`, `1`, `64`, `1e-6`, `1e18`.
fn number(x: Real) -> String {
    if x == x.trunc() && x.abs() < 1000.0 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `value` if it lies in `range`; the error names `field`.
pub(crate) fn within(field: &str, value: Real, range: Range) -> Result<Real, WorldError> {
    if range.contains(value) {
        Ok(value)
    } else {
        Err(WorldError::OutOfRange {
            field: field.to_owned(),
            value,
            range: range.describe(),
        })
    }
}

/// Every component of `v` within `range`; the error names `field().x`, `.y` or `.z`. The name
/// is a closure, called only on failure: this runs on every `set_pose`, and callers' names are
/// formatted (`"{prefix}.visual.vertices[{i}]"`).
pub(crate) fn components_within(
    field: impl Fn() -> String,
    v: &Vector3,
    range: Range,
) -> Result<(), WorldError> {
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        if !range.contains(v[i]) {
            within(&format!("{}.{axis}", field()), v[i], range)?;
        }
    }
    Ok(())
}

/// `v` shortened to at most `max` long (direction kept). Shortened a few ulps further, so
/// that rounding never leaves a component above `max` (which a snapshot would then refuse).
///
/// Whatever it is given, the result is finite: a vector with a NaN or infinite component
/// becomes zero, and one whose squared length overflows is scaled by its largest component
/// first. Only a hostile world (extreme masses, arms and impulses within the limits a snapshot
/// accepts) gets there; the step then stays finite instead of spreading a NaN.
#[inline]
pub(crate) fn clamp_length(v: Vector3, max: Real) -> Vector3 {
    let length_sq = v.norm_squared();
    if length_sq > max * max {
        if length_sq.is_finite() {
            v * (max * (1.0 - 4.0 * Real::EPSILON) / length_sq.sqrt())
        } else {
            bounded_direction(v, max)
        }
    } else if length_sq.is_nan() {
        Vector3::zeros()
    } else {
        v
    }
}

/// `v` (whose squared length overflowed, or which holds a non-finite component) as a vector
/// of length just under `max` along it, or zero when it has no finite direction.
#[cold]
fn bounded_direction(v: Vector3, max: Real) -> Vector3 {
    if !v.iter().all(|x| x.is_finite()) {
        return Vector3::zeros();
    }
    let unit = v / v.amax();
    unit * (max * (1.0 - 4.0 * Real::EPSILON) / unit.norm())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamped_lengths_are_always_finite() {
        let huge = Vector3::new(3e38, -3e38, 1.0);
        let clamped = clamp_length(huge, MAX_SPEED);
        assert!(clamped.iter().all(|x| x.is_finite()));
        assert!(clamped.norm() <= MAX_SPEED && clamped.norm() > 0.99 * MAX_SPEED);
        assert!(clamped.x > 0.0 && clamped.y < 0.0);
        for bad in [Real::INFINITY, Real::NAN] {
            assert_eq!(
                clamp_length(Vector3::new(0.0, bad, 1.0), 1.0),
                Vector3::zeros()
            );
        }
        let small = Vector3::new(0.1, 0.2, -0.3);
        assert_eq!(clamp_length(small, 1.0), small);
    }

    #[test]
    fn ranges_are_worded_from_their_bounds() {
        assert_eq!(
            Range::Between(MIN_MASS, MAX_MASS, "kg").describe(),
            "in [1e-9, 1e12] kg"
        );
        assert_eq!(Range::Between(1.0, 64.0, "").describe(), "in [1, 64]");
        assert_eq!(
            Range::AtMost(MAX_SPEED, "m/s").describe(),
            "at most 1e5 m/s"
        );
        assert_eq!(Range::AtMost(MAX_DT, "s").describe(), "at most 10 s");
        assert_eq!(
            Range::Around(MAX_COORDINATE, "m", "the origin").describe(),
            "within 1e18 m of the origin"
        );
        assert_eq!(
            Range::Between(-MAX_IMPULSE, MAX_IMPULSE, "N m s").describe(),
            "in [-1e20, 1e20] N m s"
        );
        let error = within("x", Real::NAN, Range::Between(0.0, 1.0, "")).unwrap_err();
        assert_eq!(error.to_string(), "x must be in [0, 1], got NaN");
        assert!(
            components_within(
                || "v".into(),
                &Vector3::new(0.0, 2.0, 0.0),
                Range::AtMost(1.0, "m")
            )
            .unwrap_err()
            .to_string()
            .starts_with("v.y must be at most 1 m")
        );
    }
}
