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
//! // A floor (its top face at y = 0) and three boxes dropped onto it from 0.5, 1.5 and 2.5 m.
//! let mut world = World::new(WorldConfig::default()); // 1/60 s steps, the contact solver
//! world.insert(BodyDesc::fixed().cuboid(Vector3::new(10.0, 1.0, 10.0)).position(Vector3::new(0.0, -1.0, 0.0)))?;
//! let mut boxes = Vec::new();
//! for (i, x) in [-1.5, 0.0, 1.5].into_iter().enumerate() {
//!     let desc = BodyDesc::dynamic().cuboid(Vector3::repeat(0.5)).position(Vector3::new(x, 1.0 + i as Real, 0.0));
//!     boxes.push(world.insert(desc)?);
//! }
//! for _ in 0..180 {
//!     world.step(); // 3 s
//! }
//! for handle in &boxes {
//!     let body = world.body(*handle).unwrap();
//!     assert!((body.position().y - 0.5).abs() < 0.01); // resting on the floor
//!     assert!(body.linvel().norm() < 0.01);
//! }
//!
//! // Save and restore, bit for bit, mid-contact included.
//! let mut restored = World::from_bytes(&world.to_bytes()?)?;
//! world.step();
//! restored.step();
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

/// The everyday names: the world and its bodies, volumes, shapes, math types.
pub mod prelude {
    pub use collide::{Contact, ContactPoint, RayHit};
    pub use geom::d2::{Aabb2, Circle, ConvexPolygon, Obb2};
    pub use geom::{
        Aabb, Capsule, Compound, ConvexHull, GeomError, HeightField, Isometry3, Obb, Part, Point2,
        Point3, Ray, Real, Shape, Sphere, Surface, TriMesh, UnitQuaternion, Vector2, Vector3,
        Volume,
    };
    pub use world::{
        Axis, BodyControl, BodyDesc, BodyHandle, BodyKind, CharacterConfig, CharacterController,
        CharacterMove, ColliderFit, CollisionFilter, ContactEvent, ContactPair, HitEvent, Joint,
        JointDesc, JointEvent, JointHandle, JointKind, JointReading, Locks, Material, Motor,
        QueryFilter, Response, RigidBody, SensorEvent, SleepConfig, Snapshot, SnapshotError,
        SolverConfig, SolverLanes, Spring, StepProfile, Visual, VisualShape, World, WorldConfig,
        WorldError,
    };
}
