//! Bounding volumes and shapes for minirigid, in 3D and (in [`d2`]) 2D.
//!
//! Frames: every volume here is in world space unless its name says local (a [`Shape`] is local
//! to its body). Quaternions are unit; a box-local point `p` maps to world as
//! `center + rotation * p`. Intervals are closed: touching counts as intersecting.
//!
//! Constructors that take user data come in two forms: `new` (trusts its input, checks it only with
//! `debug_assert!`) and `try_new` (validates and returns a [`GeomError`] naming the field and value).
//! Nothing here allocates on a hot path; fitting volumes to point clouds does.

mod aabb;
mod bvh;
mod capsule;
mod compound;
pub mod d2;
mod error;
mod fit;
mod hull;
mod hull2;
mod mass;
pub mod mesh;
mod obb;
mod ray;
mod shape;
mod sphere;
pub mod validate;

pub use nalgebra as na;

pub use aabb::Aabb;
pub use bvh::{Bvh, BvhItem};
pub use capsule::Capsule;
pub use compound::{Compound, MAX_PARTS, Part, PartSet};
pub use error::GeomError;
pub use hull::{
    ConvexHull, HalfEdge, HullEdge, HullFace, MAX_HULL_POINTS, MAX_HULL_VERTICES, WELD_DISTANCE,
};
pub use mass::MassProperties;
pub use mesh::{HeightField, Surface, TriMesh, Triangle};
pub use obb::Obb;
pub use ray::Ray;
pub use shape::{PosedCompound, PosedHull, PosedSurface, Shape, Volume};
pub use sphere::Sphere;

/// The scalar type of every quantity in minirigid (metres, seconds, radians, kilograms).
pub type Real = f32;
/// A point in 3D.
pub type Point3 = na::Point3<Real>;
/// A vector in 3D.
pub type Vector3 = na::Vector3<Real>;
/// A unit quaternion: a 3D rotation.
pub type UnitQuaternion = na::UnitQuaternion<Real>;
/// A quaternion that need not be unit (user input before validation).
pub type Quaternion = na::Quaternion<Real>;
/// A rigid motion in 3D: rotation then translation.
pub type Isometry3 = na::Isometry3<Real>;
/// A 3x3 matrix.
pub type Matrix3 = na::Matrix3<Real>;
/// A point in 2D.
pub type Point2 = na::Point2<Real>;
/// A vector in 2D.
pub type Vector2 = na::Vector2<Real>;

/// The rotation that three numbers uniform in [0, 1) map to, so that uniform inputs give
/// uniformly distributed rotations (K. Shoemake, "Uniform random rotations", Graphics Gems III,
/// 1992). For seeded scenes and tests.
pub fn uniform_rotation(u1: Real, u2: Real, u3: Real) -> UnitQuaternion {
    let tau = std::f32::consts::TAU;
    let (a, b) = ((1.0 - u1).max(0.0).sqrt(), u1.max(0.0).sqrt());
    UnitQuaternion::new_normalize(Quaternion::new(
        b * (tau * u3).cos(),
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
    ))
}
