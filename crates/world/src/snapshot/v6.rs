//! Format version 6, as it was written (a frozen copy, like the older ones): the current
//! state without the table of surfaces (no body could hold a mesh or heightfield).

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
    bodies: SlotMap<BodyHandle, RigidBody>,
    touching: Vec<(BodyHandle, BodyHandle)>,
    contacts: Vec<CachedContact>,
    sleep: Vec<SleepState>,
    kept: Vec<KeptContact>,
    joints: SlotMap<JointHandle, Joint>,
}

impl Snapshot {
    /// The same state in the current format.
    pub(super) fn upgraded(self) -> Result<super::Snapshot, SnapshotError> {
        if self.version != 6 {
            return Err(SnapshotError::Binary(
                "header and body versions differ".into(),
            ));
        }
        Ok(super::Snapshot {
            version: super::SNAPSHOT_VERSION,
            config: self.config,
            step: self.step,
            accumulator: self.accumulator,
            surfaces: OpenTable,
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
            joints: self.joints,
        })
    }
}
