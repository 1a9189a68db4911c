//! The broad phase: which boxes of a slice overlap, each pair once, in a deterministic order.
//!
//! [`RowSweep`] keeps each box once in rows of grid cells and sweeps each row against its
//! neighbours, so its cost is linear in boxes plus pairs; [`RowSweep::pairs_of`] takes the boxes
//! as a slice and returns index pairs. `cargo bench --bench broad_phase` measures it; the numbers
//! are in BENCHMARKS.md. (A linear BVH and a one-axis sweep and prune were measured beside it and
//! retired; git history keeps them.) [`RestingTree`] keeps the boxes of bodies that do not
//! move between steps, so that only the moving ones are swept and each queries it.
//!
//! Determinism: every order depends only on the boxes and their indices (ties broken by index),
//! and the pairs are returned sorted, so the result never depends on hashing or timing.

mod resting;
mod rows;
mod sort;

pub use resting::RestingTree;
pub use rows::RowSweep;
