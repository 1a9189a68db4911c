//! 2D volumes (seeds 000, 002 and 004): world space, angles in radians counter-clockwise from +x,
//! polygons counter-clockwise. Touching counts as intersecting, as in 3D.

mod aabb2;
mod circle;
mod obb2;
mod polygon;

pub use aabb2::Aabb2;
pub use circle::Circle;
pub use obb2::Obb2;
pub use polygon::ConvexPolygon;

use crate::{Real, Vector2};

/// The 2D cross product (the z of the 3D one): `> 0` when `b` is counter-clockwise of `a`.
#[inline]
pub fn perp_dot(a: &Vector2, b: &Vector2) -> Real {
    a.x * b.y - a.y * b.x
}
