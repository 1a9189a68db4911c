//! minirigid: a rigid-body mini physics engine.
//!
//! - [`geom`]: bounding volumes and shapes (AABB, OBB, sphere, ray; 2D in [`geom::d2`]).
//! - [`collide`]: pair tests, contacts with the minimum translation, ray casts, broad phase.
//! - [`world`]: rigid bodies, the fixed-step world, response, events, snapshots.
//!
//! `use minirigid::prelude::*;` brings the everyday names into scope.

pub use collide;
pub use geom;
pub use world;

pub mod scenes;

/// The everyday names: the world and its bodies, volumes, shapes, math types.
pub mod prelude {
    pub use collide::{Contact, ContactPoint, RayHit};
    pub use geom::d2::{Aabb2, Circle, ConvexPolygon, Obb2};
    pub use geom::{
        Aabb, GeomError, Isometry3, Obb, Point2, Point3, Ray, Real, Shape, Sphere, UnitQuaternion,
        Vector2, Vector3, Volume,
    };
    pub use world::{
        BodyDesc, BodyHandle, BodyKind, ColliderFit, ContactEvent, ContactPair, Response,
        RigidBody, Snapshot, SnapshotError, Visual, VisualShape, World, WorldConfig, WorldError,
    };
}
