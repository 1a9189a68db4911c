//! minirigid's test scaffolding, not published: the scenes that the examples, the tests and the
//! benches share (so that the picture and the measurement are of the same thing), the inputs
//! of the collision benches, the seeded generator they draw from, the same scene in rapier3d
//! (`peer`), how steady a scene stays in either engine (`steadiness`, and
//! `src/bin/steadiness.rs`, which prints it second by second), and
//! (`src/bin/bench_report.rs`) the writer of `BENCHMARKS.md`.
//! Like Box2D's `shared/` and rapier's testbed crate, it sits beside the engine's crates and
//! depends on them, never the other way.

pub mod character;
pub mod human;
pub mod inputs;
pub mod joints;
pub mod peer;
mod rng;
pub mod scenes;
pub mod shapes;
pub mod steadiness;
pub mod surfaces;

pub use rng::SplitMix;
