//! minirigid's world of rigid bodies: fixed-step integration, collision response, contact events
//! and snapshots. Built on [`collide`] and [`geom`].
//!
//! Work in progress: bodies and the step land with the `world` issue.

pub use collide;
pub use geom;
