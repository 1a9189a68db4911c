//! Errors of the world: bad bodies or settings, unknown handles, bad snapshots.

use geom::{GeomError, Real};
use thiserror::Error;

/// Why the world refused a request. The world is unchanged when one is returned.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WorldError {
    /// A number, size, direction or rotation was invalid; the message names the field.
    #[error("{0}")]
    Invalid(#[from] GeomError),
    /// A value was outside its allowed range.
    #[error("{field} must be {range}, got {value}")]
    OutOfRange {
        /// The field, e.g. `desc.restitution`.
        field: String,
        /// The rejected value.
        value: Real,
        /// The allowed range, in words (`in [1e-6, 1e6] m`).
        range: String,
    },
    /// A triangle mesh or heightfield was given to a dynamic body.
    #[error("{field}: a triangle mesh or heightfield needs a static or kinematic body")]
    SurfaceNotFixed {
        /// The shape's field, e.g. `desc.shape`.
        field: String,
    },
    /// A request only a kinematic body takes (a target pose) was made of another kind.
    #[error("{field}: only a kinematic body takes a target pose")]
    NotKinematic {
        /// The request, e.g. `target`.
        field: String,
    },
    /// The handle names no body: it was never valid here, or its body was removed.
    #[error("unknown or removed body handle")]
    UnknownBody,
    /// The handle names no joint: it was never valid here, or its joint was removed or broke.
    #[error("unknown or removed joint handle")]
    UnknownJoint,
    /// A joint was asked to join a body to itself.
    #[error("a joint needs two different bodies, got the same body twice")]
    JointToItself,
    /// A pair of limits had its lower bound above its upper one.
    #[error("{field} must be in order (lower <= upper), got [{lower}, {upper}]")]
    LimitsOutOfOrder {
        /// The field, e.g. `desc.kind.limits`.
        field: String,
        /// The lower bound given.
        lower: Real,
        /// The upper bound given.
        upper: Real,
    },
}

/// Why a snapshot could not be encoded, decoded or restored. Never a panic; a failed restore
/// leaves no world behind.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// The JSON text was malformed, truncated, too deeply nested or of the wrong shape.
    #[error("snapshot JSON is invalid: {0}")]
    Json(String),
    /// The binary data was malformed, truncated or of the wrong shape.
    #[error("snapshot binary data is invalid: {0}")]
    Binary(String),
    /// The data does not start with the binary snapshot's magic bytes.
    #[error("not a minirigid binary snapshot (bad magic bytes)")]
    BadMagic,
    /// The snapshot's format version is not one this build reads.
    #[error(
        "snapshot format version {found} is not supported (this build reads versions 1 to {supported})"
    )]
    Version {
        /// The version in the data.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The data is larger than a snapshot may be.
    #[error("snapshot of {bytes} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The snapshot decoded, but holds invalid state; the message names the field.
    #[error("snapshot holds invalid state: {0}")]
    Invalid(#[from] WorldError),
    /// Reading or writing the file failed.
    #[error("snapshot file: {0}")]
    Io(#[from] std::io::Error),
}
