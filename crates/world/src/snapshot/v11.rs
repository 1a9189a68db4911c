//! Format version 11, as it was written (a frozen copy, like the older ones): the current state
//! with one cached separating axis per pair of bodies, before the pairs with a compound kept
//! one per pair of parts (a world restored from it tests its compounds' part pairs in full at
//! its first step, and caches their axes from then on).

use super::UserData;
use crate::body::{BodyControl, BodyHandle, ColliderFlags, RigidBody, SleepState};
use crate::config::WorldConfig;
use crate::contact::{CachedAxis, CachedContact, KeptContact};
use crate::error::SnapshotError;
use crate::joint::{Joint, JointHandle};
use collide::AxisCache;
use geom::Real;
use geom::mesh::shared::OpenTable;
use serde::Deserialize;
use slotmap::SlotMap;

/// A pair of bodies' cached axis as version 11 kept it: no parts.
#[derive(Deserialize)]
struct PairAxis {
    a: BodyHandle,
    b: BodyHandle,
    axis: AxisCache,
}

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
    axes: Vec<PairAxis>,
}

impl Snapshot {
    /// The same state in the current format, `version` being the one its header gave: each
    /// axis of a pair without a compound (version 11 kept none for compounds) as parts 0 and 0.
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
            axes: (self.axes.into_iter())
                .map(|e| CachedAxis {
                    a: e.a,
                    b: e.b,
                    parts: [0, 0],
                    axis: e.axis,
                })
                .collect(),
            joint_springs: Vec::new(),
        })
    }
}
