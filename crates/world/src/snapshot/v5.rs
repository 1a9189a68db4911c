//! Format version 5, as it was written (a frozen copy, like the older ones in `legacy.rs`):
//! the current state without joints.

use crate::body::{BodyHandle, RigidBody, SleepState};
use crate::config::{Response, SleepConfig, SolverConfig, WorldConfig};
use crate::contact::{CachedContact, KeptContact};
use crate::error::SnapshotError;
use geom::{Real, Vector3};
use serde::Deserialize;
use slotmap::SlotMap;

#[derive(Deserialize)]
struct Solver {
    substeps: u32,
    soft_iterations: u32,
    contact_hertz: Real,
    contact_damping_ratio: Real,
    max_push_out_speed: Real,
    restitution_threshold: Real,
    speculative_margin: Real,
    rolling_resistance: Real,
    reuse_distance: Real,
}

#[derive(Deserialize)]
struct Sleep {
    enabled: bool,
    speed_threshold: Real,
    time_to_sleep: Real,
}

#[derive(Deserialize)]
struct Config {
    dt: Real,
    gravity: Vector3,
    response: Response,
    max_steps_per_advance: u32,
    solver: Solver,
    sleep: Sleep,
}

#[derive(Deserialize)]
pub(super) struct Snapshot {
    version: u32,
    config: Config,
    step: u64,
    accumulator: Real,
    bodies: SlotMap<BodyHandle, RigidBody>,
    touching: Vec<(BodyHandle, BodyHandle)>,
    contacts: Vec<CachedContact>,
    sleep: Vec<SleepState>,
    kept: Vec<KeptContact>,
}

impl Snapshot {
    /// The same state in the current format: no joints.
    pub(super) fn upgraded(self) -> Result<super::Snapshot, SnapshotError> {
        if self.version != 5 {
            return Err(SnapshotError::Binary(
                "header and body versions differ".into(),
            ));
        }
        let (solver, sleep) = (self.config.solver, self.config.sleep);
        Ok(super::Snapshot {
            version: super::SNAPSHOT_VERSION,
            config: WorldConfig {
                dt: self.config.dt,
                gravity: self.config.gravity,
                response: self.config.response,
                max_steps_per_advance: self.config.max_steps_per_advance,
                solver: SolverConfig {
                    substeps: solver.substeps,
                    soft_iterations: solver.soft_iterations,
                    contact_hertz: solver.contact_hertz,
                    contact_damping_ratio: solver.contact_damping_ratio,
                    max_push_out_speed: solver.max_push_out_speed,
                    restitution_threshold: solver.restitution_threshold,
                    speculative_margin: solver.speculative_margin,
                    rolling_resistance: solver.rolling_resistance,
                    reuse_distance: solver.reuse_distance,
                    joint_iterations: 4,
                },
                sleep: SleepConfig {
                    enabled: sleep.enabled,
                    speed_threshold: sleep.speed_threshold,
                    time_to_sleep: sleep.time_to_sleep,
                },
            },
            step: self.step,
            accumulator: self.accumulator,
            surfaces: geom::mesh::shared::OpenTable,
            controls: vec![Default::default(); self.bodies.len()],
            colliders: vec![Default::default(); self.bodies.len()],
            sensing: Vec::new(),
            user_data: Default::default(),
            axes: Vec::new(),
            joint_springs: Vec::new(),
            bodies: self.bodies,
            touching: self.touching,
            contacts: self.contacts,
            sleep: self.sleep,
            kept: self.kept,
            joints: SlotMap::with_key(),
        })
    }
}
