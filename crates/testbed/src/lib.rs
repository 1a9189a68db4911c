//! minirigid's test scaffolding, not published: the scenes that the examples, the tests and the
//! benches share (so that the picture and the measurement are of the same thing), the inputs
//! of the collision benches, the seeded generator they draw from, and (`src/bin/bench_report.rs`) the writer of `BENCHMARKS.md`.
//! Like Box2D's `shared/` and rapier's testbed crate, it sits beside the engine's crates and
//! depends on them, never the other way.

pub mod inputs;
mod rng;
pub mod scenes;

pub use rng::SplitMix;
