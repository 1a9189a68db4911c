//! Format versions 7 and 8, as they were written (a frozen copy, like the older ones): the
//! current state without the bodies' control states (no body could hold a force, damping, a
//! gravity scale, locks, a target or user data).

use crate::body::{BodyHandle, RigidBody, SleepState};
use crate::config::WorldConfig;
use crate::contact::{CachedContact, KeptContact};
use crate::error::SnapshotError;
use crate::joint::{Joint, JointHandle};
use geom::Real;
use geom::mesh::shared::OpenTable;
use serde::Deserialize;
use slotmap::SlotMap;

#[derive(Deserialize)]
pub(super) struct Snapshot {
    version: u32,
    config: WorldConfig,
    step: u64,
    accumulator: Real,
    #[serde(default)]
    surfaces: OpenTable,
    bodies: SlotMap<BodyHandle, RigidBody>,
    touching: Vec<(BodyHandle, BodyHandle)>,
    contacts: Vec<CachedContact>,
    sleep: Vec<SleepState>,
    kept: Vec<KeptContact>,
    joints: SlotMap<JointHandle, Joint>,
}

impl Snapshot {
    /// The same state in the current format, `version` being the one its header gave.
    pub(super) fn upgraded(self, version: u32) -> Result<super::Snapshot, SnapshotError> {
        if self.version != version {
            return Err(SnapshotError::Binary(
                "header and body versions differ".into(),
            ));
        }
        Ok(super::Snapshot {
            version: super::SNAPSHOT_VERSION,
            config: self.config,
            step: self.step,
            accumulator: self.accumulator,
            surfaces: self.surfaces,
            controls: vec![Default::default(); self.bodies.len()],
            colliders: vec![Default::default(); self.bodies.len()],
            sensing: Vec::new(),
            bodies: self.bodies,
            touching: self.touching,
            contacts: self.contacts,
            sleep: self.sleep,
            kept: self.kept,
            joints: self.joints,
            user_data: Default::default(),
            axes: Vec::new(),
            joint_springs: Vec::new(),
        })
    }
}
