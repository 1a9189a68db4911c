//! The stages of a step that every response shares: finding contacts ([`collide`]) and moving
//! bodies ([`integrate`]). `World::step` calls them in order; see it for the list.

pub(crate) mod active;
pub(crate) mod collide;
pub(crate) mod integrate;
pub(crate) mod seams;
pub(crate) mod sleep;

pub(crate) use active::Active;
pub(crate) use collide::Collision;
