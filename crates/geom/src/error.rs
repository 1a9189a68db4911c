//! The error every fallible `geom` constructor returns, and the checks behind it.
//!
//! Constructors that take user data (`try_new`, `try_from_points`, ...) validate it and name the
//! offending field and value; hot-path functions take already-valid types and only `debug_assert!`.

use crate::Real;
use thiserror::Error;

/// Why a `geom` constructor rejected its input. Every variant names the field and, where it has
/// one, the value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum GeomError {
    /// A number was NaN or infinite.
    #[error("{field} must be finite, got {value}")]
    NonFinite {
        /// The field, e.g. `half_extents.y` or `points[3].x`.
        field: String,
        /// The rejected value.
        value: Real,
    },
    /// A size (half extent, radius) was zero or negative.
    #[error("{field} must be positive, got {value}")]
    NonPositive {
        /// The field, e.g. `radius`.
        field: String,
        /// The rejected value.
        value: Real,
    },
    /// A direction or quaternion had (nearly) zero length, so it names no direction or rotation.
    #[error("{field} must have non-zero length, got length {length}")]
    ZeroLength {
        /// The field, e.g. `dir` or `rotation`.
        field: String,
        /// Its length.
        length: Real,
    },
    /// A quaternion given as a rotation was not of unit length.
    #[error("{field} must be a unit quaternion, got norm {norm}")]
    NotUnit {
        /// The field, e.g. `rotation`.
        field: String,
        /// Its norm.
        norm: Real,
    },
    /// A lower bound exceeded its upper bound.
    #[error("{field}: mins must not exceed maxs, got mins = {min} > maxs = {max}")]
    Inverted {
        /// The axis, e.g. `aabb.x`.
        field: String,
        /// The lower bound.
        min: Real,
        /// The upper bound.
        max: Real,
    },
    /// A list that needs entries had too few.
    #[error("{field} needs at least {needed} entries, got {got}")]
    TooFew {
        /// The field, e.g. `points`.
        field: String,
        /// The minimum.
        needed: usize,
        /// What was given.
        got: usize,
    },
    /// The points span no area (2D) or no volume where one is required: all equal or collinear.
    #[error("{field} are degenerate: {why}")]
    Degenerate {
        /// The field, e.g. `points`.
        field: String,
        /// What is degenerate about them.
        why: &'static str,
    },
    /// An index named no entry of the list it indexes.
    #[error("{field} = {index} is out of range: there are {len} entries")]
    OutOfRange {
        /// The field, e.g. `triangles[4][1]`.
        field: String,
        /// The index given.
        index: usize,
        /// How many entries there are.
        len: usize,
    },
    /// A list was longer than the build accepts.
    #[error("{field} may have at most {most} entries, got {got}")]
    TooMany {
        /// The field, e.g. `triangles`.
        field: String,
        /// The maximum.
        most: usize,
        /// What was given.
        got: usize,
    },
    /// A polygon's vertices were not strictly convex in counter-clockwise order.
    #[error("{field}: polygon is not strictly convex and counter-clockwise at vertex {index}")]
    NotConvex {
        /// The field, e.g. `vertices`.
        field: String,
        /// The first vertex where the turn is not strictly to the left.
        index: usize,
    },
}
