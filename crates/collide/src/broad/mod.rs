//! The broad phase: which boxes of a slice overlap, each pair once, in a deterministic order.
//!
//! [`RowSweep`] keeps each box once in rows of grid cells and sweeps each row against its
//! neighbours, so its cost is linear in boxes plus pairs; [`RowSweep::pairs_of`] takes the boxes
//! as a slice and returns index pairs. `cargo bench --bench broad_phase` measures it; the numbers
//! are in BENCHMARKS.md. (A linear BVH and a one-axis sweep and prune were measured beside it and
//! retired; git history keeps them.) [`RestingTree`] keeps the boxes of bodies that do not
//! move between steps, so that only the moving ones are swept and each queries it. [`FatSweep`]
//! sweeps boxes fattened by a margin and keeps their pairs: while the same bodies' boxes stay
//! in their fat boxes, testing those pairs replaces the sweep.
//!
//! Determinism: every order depends only on the boxes and their indices (ties broken by index),
//! and the pairs are returned sorted, so the result never depends on hashing or timing.

mod fat;
mod resting;
mod rows;
mod sort;

pub use fat::{FAT_MARGIN, FatSweep};
pub use resting::RestingTree;
pub use rows::RowSweep;
