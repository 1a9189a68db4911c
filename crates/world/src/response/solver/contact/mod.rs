//! The contact constraint (one per touching pair with a dynamic body), with the stages every
//! constraint kind has: made once per step (`prepare.rs`: gathered into its lane, then a batch's
//! rows computed; `fill.rs`: a group's batches filled), warm started in the first substep,
//! solved in each soft iteration and the relax iteration, restitution after the substeps
//! (`solve.rs`, on a batch at a time, `batch.rs` its layout), stored in the persistent contact
//! set (`../store.rs`). `settings.rs`: the contact spring and the deep-overlap test.

mod batch;
mod fill;
mod prepare;
mod settings;
mod solve;

pub(super) use batch::{Batch, BatchImpulses, Moved};
pub(super) use fill::Gather;
pub(super) use prepare::{Surface, kind};
pub(super) use settings::SolveSettings;
pub(super) use solve::{restitution, solve, warm_start};
