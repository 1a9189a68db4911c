//! Contact responses: what the step does with the contacts the narrow phase found.
//!
//! - [`reflect`]: seed 003's elastic, frictionless bounce, made general (`Response::Reflect`).
//! - [`solver`]: the contact solver (`Response::Solver`, the default).

pub(crate) mod reflect;
pub(crate) mod solver;
