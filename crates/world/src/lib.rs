//! minirigid's world of rigid bodies, built on [`collide`] and [`geom`].
//!
//! Create a [`World`], [`World::insert`] bodies described by [`BodyDesc`], call
//! [`World::step`] (or [`World::advance`] with the frame time) every frame, read
//! [`World::bodies`], [`World::contacts`] and [`World::events`], and save or restore it with
//! [`Snapshot`]s. Frames and units: world space, metres, seconds, kilograms, radians.
//!
//! Where things are: `body/` (bodies, their descriptions, visuals and the one validator),
//! `contact.rs` (contacts and events), `step/` (collision detection and integration),
//! `response/` (what the step does with contacts), `world.rs` (the world and its step, stage
//! by stage), `query.rs`, `snapshot.rs`, `hash.rs`.

mod ahead;
mod body;
mod character;
mod config;
mod contact;
mod error;
mod hash;
mod joint;
pub mod limits;
mod plain;
mod profile;
mod query;
mod response;
mod snapshot;
mod step;
mod world;

pub use body::{
    BodyControl, BodyDesc, BodyHandle, BodyKind, Collider, ColliderFit, ColliderFlags,
    CollisionFilter, Locks, Material, RigidBody, SleepState, Visual, VisualShape,
};
pub use character::{CharacterConfig, CharacterController, CharacterMove};
pub use config::{
    MAX_JOINT_ITERATIONS, MAX_REUSE_DISTANCE, MAX_SOFT_ITERATIONS, MAX_SUBSTEPS, Response,
    SleepConfig, SolverConfig, WorldConfig,
};
pub use contact::{
    CachedAxis, CachedContact, CachedPoint, ContactEvent, ContactPair, HitEvent, KeptContact,
    KeptPoint, SensorEvent,
};
pub use error::{SnapshotError, WorldError};
pub use joint::{
    Axis, JOINT_SOFTNESS, Joint, JointDesc, JointEvent, JointHandle, JointImpulses, JointKind,
    JointReading, MAX_JOINT_ANGLE, MAX_JOINT_HERTZ, Motor, Spring,
};
pub use profile::StepProfile;
pub use query::QueryFilter;
pub use response::solver::SolverLanes;
pub use snapshot::{
    MAX_SNAPSHOT_BYTES, OLDEST_SNAPSHOT_VERSION, SNAPSHOT_VERSION, Snapshot, UserData,
};
pub use world::World;

pub use collide;
pub use geom;
