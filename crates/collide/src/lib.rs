//! minirigid's collision detection, built on [`geom`]'s volumes.
//!
//! Frames and signs, for every function here: shapes, poses, contacts and rays are in world
//! space. A contact's `normal` is unit and points from the first argument toward the second;
//! `depth >= 0`, and moving the second shape by `normal * depth` leaves the two just touching
//! (the minimum translation, MTD). Touching counts as intersecting.
//!
//! Speculative contacts: every contact function has a `_within(.., margin)` form that also
//! reports shapes up to `margin` apart, with a negative depth (minus the gap), so that a solver
//! sees a contact one step before it closes.
//!
//! - Pair tests, one module per pair (`src/pair/`), each function exported once, here: box-box
//!   ([`obb_obb_intersects`], the 15-axis SAT [`obb_obb_sat`], the clipped contact manifold
//!   [`obb_obb_contact`]), sphere-box, sphere-sphere, AABB-AABB, and the capsule pairs
//!   ([`capsule_obb_contact_within`] and its neighbours).
//! - [`contact`] and [`intersects`]: the dispatch over posed [`geom::Shape`]s.
//! - Ray casts: [`ray_aabb`], [`ray_obb`], [`ray_sphere`]; shape casts: [`cast_shape`].
//! - [`staged`]: seed 004's filter (spheres, then AABBs, then the exact test) with counts.
//! - [`broad`]: rows of grid cells swept against their neighbours, each overlapping pair once,
//!   deterministic.
//! - [`d2`]: rectangles, convex polygons and circles in 2D.

pub mod broad;
mod cast;
mod contact;
pub mod d2;
mod dispatch;
mod pair;
mod ray;
mod segment;
pub mod staged;

pub use cast::{CAST_TOLERANCE, ShapeCastHit, cast_shape};
pub use contact::{Contact, ContactPoint, FeatureId};
pub use dispatch::{
    contact, contact_within, has_several_manifolds, has_surface, intersects, volume_contact,
    volume_contact_cached, volume_contact_within, volume_contacts_cached, volume_contacts_within,
    volume_intersects,
};
pub use pair::aabb_aabb::aabb_aabb_contact;
pub use pair::box_box::{
    SatAxis, SatResult, obb_obb_contact, obb_obb_contact_within, obb_obb_intersects, obb_obb_sat,
};
pub use pair::capsule::{
    capsule_capsule_contact_within, capsule_obb_contact_within, sphere_capsule_contact_within,
};
pub use pair::hull::hull_hull_contact_within;
pub use pair::sat_cache::{
    AXIS_CACHE_TOLERANCE, AxisCache, AxisFeature, FACE_PREFERENCE, PartAxis,
};
pub use pair::sphere_box::{
    sphere_aabb_contact, sphere_obb_contact, sphere_obb_contact_within, sphere_obb_intersects,
};
pub use pair::sphere_sphere::{sphere_sphere_contact, sphere_sphere_contact_within};
pub use ray::{
    RayHit, ray_aabb, ray_capsule, ray_heightfield, ray_hull, ray_obb, ray_sphere, ray_triangle,
    ray_trimesh, ray_volume,
};

pub use geom;
