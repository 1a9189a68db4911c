//! minirigid's collision detection: pair tests with contacts and the minimum translation (MTD),
//! ray casts, and a broad phase. Built on [`geom`]'s volumes.
//!
//! Work in progress: the narrow phase lands with the `collide` issue.

pub use geom;
