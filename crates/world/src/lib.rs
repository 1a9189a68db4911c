//! minirigid's world of rigid bodies, built on [`collide`] and [`geom`].
//!
//! Create a [`World`], [`World::insert`] bodies described by [`BodyDesc`], call
//! [`World::step`] (or [`World::advance`] with the frame time) every frame, read
//! [`World::bodies`], [`World::contacts`] and [`World::events`], and save or restore it with
//! [`Snapshot`]s. Frames and units: world space, metres, seconds, kilograms, radians.

mod body;
mod config;
mod error;
pub mod limits;
mod response;
mod snapshot;
mod world;

pub use body::{
    BodyDesc, BodyHandle, BodyKind, Collider, ColliderFit, Material, RigidBody, Visual, VisualShape,
};
pub use config::{Response, WorldConfig};
pub use error::{SnapshotError, WorldError};
pub use snapshot::{MAX_SNAPSHOT_BYTES, SNAPSHOT_VERSION, Snapshot};
pub use world::{ContactEvent, ContactPair, World};

pub use collide;
pub use geom;
