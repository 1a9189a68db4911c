//! minirigid: a rigid-body mini physics engine.
//!
//! - [`geom`]: bounding volumes and shapes (AABB, OBB, sphere, ray; 2D in [`geom::d2`]).
//! - [`collide`]: pair tests, contacts with the minimum translation, ray casts, broad phase.
//! - [`world`]: rigid bodies, the fixed-step world, response, events, snapshots.
//!
//! `use minirigid::prelude::*;` brings the everyday names into scope.
//!
//! ```
//! use minirigid::prelude::*;
//!
//! // Seed 003's scene: two static walls and a cube bouncing between them.
//! let config = WorldConfig { gravity: Vector3::zeros(), ..WorldConfig::default() };
//! let mut world = World::new(config);
//! let half = Vector3::repeat(1.0);
//! for x in [-13.0, 13.0] {
//!     world.insert(BodyDesc::fixed().cuboid(half).position(Vector3::new(x, 0.0, 0.0)))?;
//! }
//! let cube = world.insert(BodyDesc::dynamic().cuboid(half).linvel(Vector3::new(5.0, 0.0, 0.0)))?;
//! for _ in 0..300 {
//!     world.step(); // 20 ms each
//! }
//! // It met the right wall after 110 steps (11 m at 0.1 m a step) and is on its way back.
//! assert!(world.body(cube).unwrap().linvel().x < 0.0);
//!
//! // Save and restore, bit for bit.
//! let restored = World::from_bytes(&world.to_bytes()?)?;
//! assert_eq!(restored.state_hash(), world.state_hash());
//!
//! // Bad input is refused by name, and the world is left as it was.
//! let error = world.insert(BodyDesc::dynamic().ball(-1.0)).unwrap_err();
//! assert_eq!(error.to_string(), "desc.shape.radius must be positive, got -1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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
