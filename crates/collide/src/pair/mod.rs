//! Pair tests, one file per shape pair, in canonical order (the reversed pair flips the result).

pub mod aabb_aabb;
pub mod box_box;
pub mod capsule;
pub mod hull;
pub mod sat_cache;
pub mod sphere_box;
pub mod sphere_sphere;
pub(crate) mod surface;
pub(crate) mod triangle;
