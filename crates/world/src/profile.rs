//! How long each stage of the last step took, by the wall clock (Box3D's `b3Profile`,
//! rapier's counters). A measurement, not state: never saved, never hashed, never read by a
//! step, so the clock changes no result.

use std::time::{Duration, Instant};

/// The wall-clock time of each stage of the last [`World::step`](crate::World::step), in the
/// order they run. With `Response::Reflect` or `None` the solver's stages are zero and the
/// reflection counts in `events`.
///
/// What runs on several threads (with the `parallel` feature, in rayon's pool): the narrow
/// phase, the joints' constraints (in `solver_place`), and the solver's groups (several at
/// once, or a large island's stages shared by a crew of every thread). Everything else runs on
/// the calling thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepProfile {
    /// The whole step.
    pub total: Duration,
    /// Waking bodies disturbed since the last step, the active set brought up to date,
    /// kinematic bodies aimed at their targets.
    pub update: Duration,
    /// The step's dense set: each body's world volume and AABB.
    pub volumes: Duration,
    /// The broad phase: the candidate pairs (the live bodies' sweep, their queries of the
    /// resting tree, the pairs kept).
    pub broad_phase: Duration,
    /// The narrow phase: the contacts (and islands woken by them, sensors, hit candidates,
    /// the jointed bodies' indices).
    pub narrow_phase: Duration,
    /// The solver's placing: the bodies' solver states, islands into groups, colours, joints.
    pub solver_place: Duration,
    /// The solver's groups: their constraints prepared, every substep, restitution.
    pub solver_solve: Duration,
    /// The contact set, joints' impulses and bodies' poses written back.
    pub solver_store: Duration,
    /// Rest timers, islands falling asleep, control state at the end of the step.
    pub sleep: Duration,
    /// Joints broken, the touching pairs kept, contact, sensor and hit events, the resting
    /// tree brought up to date.
    pub events: Duration,
}

impl StepProfile {
    /// The stages (without `total`) with their names, in the order they run.
    pub fn stages(&self) -> [(&'static str, Duration); 9] {
        [
            ("update", self.update),
            ("volumes", self.volumes),
            ("broad_phase", self.broad_phase),
            ("narrow_phase", self.narrow_phase),
            ("solver_place", self.solver_place),
            ("solver_solve", self.solver_solve),
            ("solver_store", self.solver_store),
            ("sleep", self.sleep),
            ("events", self.events),
        ]
    }
}

/// A stopwatch read at the end of each stage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lap(Instant);

impl Lap {
    pub(crate) fn start() -> Self {
        Self(Instant::now())
    }

    /// The time since the start or the last lap.
    pub(crate) fn lap(&mut self) -> Duration {
        let now = Instant::now();
        let elapsed = now - self.0;
        self.0 = now;
        elapsed
    }
}
