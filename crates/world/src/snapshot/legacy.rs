//! The older snapshot formats, as they were written, each with its upgrade to the current one.
//! Each format is a frozen copy of its structs (not shared with the current ones, which keep
//! changing), so the same fields appear once per version on purpose. Every one of them upgrades
//! to a world without joints. Version 5 is in `v5.rs`.

/// Format version 1, as it was written: no solver settings, no contact set.
pub(super) mod v1 {
    use crate::body::{BodyHandle, RigidBody, SleepState};
    use crate::config::{Response, SleepConfig, SolverConfig, WorldConfig};
    use geom::{Real, Vector3};
    use serde::Deserialize;
    use slotmap::SlotMap;

    #[derive(Deserialize)]
    pub(super) struct Config {
        dt: Real,
        gravity: Vector3,
        response: Response,
        max_steps_per_advance: u32,
    }

    #[derive(Deserialize)]
    pub(in crate::snapshot) struct Snapshot {
        version: u32,
        config: Config,
        step: u64,
        accumulator: Real,
        bodies: SlotMap<BodyHandle, RigidBody>,
        touching: Vec<(BodyHandle, BodyHandle)>,
    }

    impl Snapshot {
        /// The same state in the current format: default solver settings, no impulses,
        /// sleeping off.
        pub(in crate::snapshot) fn upgraded(
            self,
        ) -> Result<super::super::Snapshot, super::super::super::SnapshotError> {
            if self.version != 1 {
                return Err(super::super::super::SnapshotError::Binary(
                    "header and body versions differ".into(),
                ));
            }
            Ok(super::super::Snapshot {
                version: super::super::SNAPSHOT_VERSION,
                config: WorldConfig {
                    dt: self.config.dt,
                    gravity: self.config.gravity,
                    response: self.config.response,
                    max_steps_per_advance: self.config.max_steps_per_advance,
                    solver: SolverConfig::default(),
                    sleep: SleepConfig::disabled(),
                },
                step: self.step,
                accumulator: self.accumulator,
                surfaces: geom::mesh::shared::OpenTable,
                sleep: vec![SleepState::default(); self.bodies.len()],
                controls: vec![Default::default(); self.bodies.len()],
                colliders: vec![Default::default(); self.bodies.len()],
                sensing: Vec::new(),
                user_data: Default::default(),
                axes: Vec::new(),
                joint_springs: Vec::new(),
                bodies: self.bodies,
                touching: self.touching,
                contacts: Vec::new(),
                kept: Vec::new(),
                joints: slotmap::SlotMap::with_key(),
            })
        }
    }
}

/// Format version 2, as it was written: no sleeping.
pub(super) mod v2 {
    use crate::body::{BodyHandle, RigidBody, SleepState};
    use crate::config::{Response, SleepConfig, SolverConfig, WorldConfig};
    use crate::contact::CachedContact;
    use geom::{Real, Vector3};
    use serde::Deserialize;
    use slotmap::SlotMap;

    /// The solver settings of format 2: no rolling resistance.
    #[derive(Deserialize)]
    struct Solver {
        substeps: u32,
        contact_hertz: Real,
        contact_damping_ratio: Real,
        max_push_out_speed: Real,
        restitution_threshold: Real,
        speculative_margin: Real,
    }

    #[derive(Deserialize)]
    pub(super) struct Config {
        dt: Real,
        gravity: Vector3,
        response: Response,
        max_steps_per_advance: u32,
        solver: Solver,
    }

    #[derive(Deserialize)]
    pub(in crate::snapshot) struct Snapshot {
        version: u32,
        config: Config,
        step: u64,
        accumulator: Real,
        bodies: SlotMap<BodyHandle, RigidBody>,
        touching: Vec<(BodyHandle, BodyHandle)>,
        contacts: Vec<CachedContact>,
    }

    impl Snapshot {
        /// The same state in the current format: sleeping and rolling resistance off, the
        /// features the build that wrote it did not have, and one soft iteration per substep,
        /// as it solved.
        pub(in crate::snapshot) fn upgraded(
            self,
        ) -> Result<super::super::Snapshot, super::super::super::SnapshotError> {
            if self.version != 2 {
                return Err(super::super::super::SnapshotError::Binary(
                    "header and body versions differ".into(),
                ));
            }
            Ok(super::super::Snapshot {
                version: super::super::SNAPSHOT_VERSION,
                config: WorldConfig {
                    dt: self.config.dt,
                    gravity: self.config.gravity,
                    response: self.config.response,
                    max_steps_per_advance: self.config.max_steps_per_advance,
                    solver: SolverConfig {
                        substeps: self.config.solver.substeps,
                        contact_hertz: self.config.solver.contact_hertz,
                        contact_damping_ratio: self.config.solver.contact_damping_ratio,
                        max_push_out_speed: self.config.solver.max_push_out_speed,
                        restitution_threshold: self.config.solver.restitution_threshold,
                        speculative_margin: self.config.solver.speculative_margin,
                        rolling_resistance: 0.0,
                        reuse_distance: 0.0,
                        soft_iterations: 1,
                        joint_iterations: 4,
                    },
                    sleep: SleepConfig::disabled(),
                },
                step: self.step,
                accumulator: self.accumulator,
                surfaces: geom::mesh::shared::OpenTable,
                sleep: vec![SleepState::default(); self.bodies.len()],
                controls: vec![Default::default(); self.bodies.len()],
                colliders: vec![Default::default(); self.bodies.len()],
                sensing: Vec::new(),
                user_data: Default::default(),
                axes: Vec::new(),
                joint_springs: Vec::new(),
                bodies: self.bodies,
                touching: self.touching,
                contacts: self.contacts,
                kept: Vec::new(),
                joints: slotmap::SlotMap::with_key(),
            })
        }
    }
}

/// Format version 3, as it was written: no contact reuse.
pub(super) mod v3 {
    use crate::body::{BodyHandle, RigidBody, SleepState};
    use crate::config::{Response, SleepConfig, SolverConfig, WorldConfig};
    use crate::contact::CachedContact;
    use geom::{Real, Vector3};
    use serde::Deserialize;
    use slotmap::SlotMap;

    /// The solver settings of format 3: no reuse distance.
    #[derive(Deserialize)]
    struct Solver {
        substeps: u32,
        contact_hertz: Real,
        contact_damping_ratio: Real,
        max_push_out_speed: Real,
        restitution_threshold: Real,
        speculative_margin: Real,
        rolling_resistance: Real,
    }

    #[derive(Deserialize)]
    struct Sleep {
        enabled: bool,
        speed_threshold: Real,
        time_to_sleep: Real,
    }

    #[derive(Deserialize)]
    pub(super) struct Config {
        dt: Real,
        gravity: Vector3,
        response: Response,
        max_steps_per_advance: u32,
        solver: Solver,
        sleep: Sleep,
    }

    #[derive(Deserialize)]
    pub(in crate::snapshot) struct Snapshot {
        version: u32,
        config: Config,
        step: u64,
        accumulator: Real,
        bodies: SlotMap<BodyHandle, RigidBody>,
        touching: Vec<(BodyHandle, BodyHandle)>,
        contacts: Vec<CachedContact>,
        sleep: Vec<SleepState>,
    }

    impl Snapshot {
        /// The same state in the current format: contact reuse off (the feature the build
        /// that wrote it did not have), no kept contacts, one soft iteration per substep (as
        /// it solved).
        pub(in crate::snapshot) fn upgraded(
            self,
        ) -> Result<super::super::Snapshot, super::super::super::SnapshotError> {
            if self.version != 3 {
                return Err(super::super::super::SnapshotError::Binary(
                    "header and body versions differ".into(),
                ));
            }
            let (solver, sleep) = (self.config.solver, self.config.sleep);
            Ok(super::super::Snapshot {
                version: super::super::SNAPSHOT_VERSION,
                config: WorldConfig {
                    dt: self.config.dt,
                    gravity: self.config.gravity,
                    response: self.config.response,
                    max_steps_per_advance: self.config.max_steps_per_advance,
                    solver: SolverConfig {
                        substeps: solver.substeps,
                        contact_hertz: solver.contact_hertz,
                        contact_damping_ratio: solver.contact_damping_ratio,
                        max_push_out_speed: solver.max_push_out_speed,
                        restitution_threshold: solver.restitution_threshold,
                        speculative_margin: solver.speculative_margin,
                        rolling_resistance: solver.rolling_resistance,
                        reuse_distance: 0.0,
                        soft_iterations: 1,
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
                kept: Vec::new(),
                joints: slotmap::SlotMap::with_key(),
            })
        }
    }
}

/// Format version 4, as it was written: one soft iteration per substep, not a setting.
pub(super) mod v4 {
    use crate::body::{BodyHandle, RigidBody, SleepState};
    use crate::config::{Response, SleepConfig, SolverConfig, WorldConfig};
    use crate::contact::{CachedContact, KeptContact};
    use geom::{Real, Vector3};
    use serde::Deserialize;
    use slotmap::SlotMap;

    /// The solver settings of format 4: no soft iteration count.
    #[derive(Deserialize)]
    struct Solver {
        substeps: u32,
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
    pub(super) struct Config {
        dt: Real,
        gravity: Vector3,
        response: Response,
        max_steps_per_advance: u32,
        solver: Solver,
        sleep: Sleep,
    }

    #[derive(Deserialize)]
    pub(in crate::snapshot) struct Snapshot {
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
        /// The same state in the current format: one soft iteration per substep, as the build
        /// that wrote it solved.
        pub(in crate::snapshot) fn upgraded(
            self,
        ) -> Result<super::super::Snapshot, super::super::super::SnapshotError> {
            if self.version != 4 {
                return Err(super::super::super::SnapshotError::Binary(
                    "header and body versions differ".into(),
                ));
            }
            let (solver, sleep) = (self.config.solver, self.config.sleep);
            Ok(super::super::Snapshot {
                version: super::super::SNAPSHOT_VERSION,
                config: WorldConfig {
                    dt: self.config.dt,
                    gravity: self.config.gravity,
                    response: self.config.response,
                    max_steps_per_advance: self.config.max_steps_per_advance,
                    solver: SolverConfig {
                        substeps: solver.substeps,
                        soft_iterations: 1,
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
                joints: slotmap::SlotMap::with_key(),
            })
        }
    }
}
