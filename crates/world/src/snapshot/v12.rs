//! Format version 12, as it was written (a frozen copy, like the older ones): the current state
//! before the spherical joints' springs were saved beside the joints (its spherical joints
//! have none).

use super::UserData;
use crate::body::{BodyControl, BodyHandle, ColliderFlags, RigidBody, SleepState};
use crate::config::WorldConfig;
use crate::contact::{CachedAxis, CachedContact, KeptContact};
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
    controls: Vec<BodyControl>,
    colliders: Vec<ColliderFlags>,
    sensing: Vec<(BodyHandle, BodyHandle)>,
    user_data: UserData,
    axes: Vec<CachedAxis>,
}

impl Snapshot {
    /// The same state in the current format, `version` being the one its header gave: no
    /// joint springs.
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
            bodies: self.bodies,
            touching: self.touching,
            contacts: self.contacts,
            sleep: self.sleep,
            kept: self.kept,
            joints: self.joints,
            controls: self.controls,
            colliders: self.colliders,
            sensing: self.sensing,
            user_data: self.user_data,
            axes: self.axes,
            joint_springs: Vec::new(),
        })
    }
}
