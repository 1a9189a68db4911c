//! Snapshots: the world's whole simulation state, as readable JSON or compact binary.
//!
//! A snapshot holds state only (settings, bodies with their handles, the step counter, unstepped
//! time, which pairs touch, the persistent contact set with last step's impulses, and with
//! contact reuse the kept contacts); caches
//! such as the broad phase and derived values such as mass properties are rebuilt on restore
//! and never change a result, so a restored world steps bit for bit like the original, also
//! when it was saved mid-contact.
//!
//! Formats: version 13 (this build) saves the spherical joints' springs, in a list of their
//! own after the others (the joints keep version 12's layout). Version 12 keeps the cached
//! axes per pair of parts for the bodies with a compound (which parts, beside each axis).
//! Version 11 added the separating axes the narrow phase caches for the pairs of hulls, last. Version 10 added the user's words on colliders and joints, in a
//! section of their own after the others (only the non-zero ones). Version 9 added each body's control state (damping, gravity scale,
//! locks, pending force and torque, kinematic target, user data) and collider flags (filter,
//! sensor), beside the bodies as their sleep states are, and the sensors' overlaps. Version 8 added capsules, convex hulls (saved as their vertices and
//! rebuilt, so checked, on load) and compounds (saved as their parts) to the shapes, as new
//! last variants of `Shape` and `VisualShape`, so that a version 7 file reads with the same
//! layout. Version 7 added triangle meshes and heightfields: each distinct
//! surface is written once, in a table before the bodies, whose shapes refer to it by index.
//! Version 6 added joints. Version 5 added the solver's soft iterations
//! per substep. Version 4
//! added contact reuse (its distance and the kept contacts).
//! Version 3 added sleeping (its settings and each body's sleep state) and the solver's rolling
//! resistance. Version 2 added the solver's settings and the contact set. Older files still
//! load: versions 1 to 5 get no joints; versions 2 to 4 get one soft iteration per substep, as
//! they solved; version 3 worlds
//! get contact reuse off; version 2 worlds get sleeping and rolling
//! resistance turned off (the
//! features that build did not have; later solver changes, such as the stiffness cap, apply to
//! them as to every world), version 1 worlds
//! keep their response (`Reflect` or `None`) and get the default solver settings and an empty
//! contact set.
//!
//! Decoding is defensive: input larger than [`MAX_SNAPSHOT_BYTES`] is refused before parsing,
//! length prefixes cannot make it reserve more memory than the input could fill, JSON nesting is
//! capped by serde_json, and every decoded value is checked (finite numbers, positive sizes,
//! unit rotations, live handles) before a world is built. Errors, never panics.

use crate::body::{
    BodyControl, BodyHandle, BodyKind, BodyMass, ColliderFlags, RigidBody, SleepState, check_body,
};
use crate::config::WorldConfig;
use crate::contact::{CachedAxis, CachedContact, KeptContact};
use crate::error::{SnapshotError, WorldError};
use crate::joint::{Joint, JointHandle, JointKind, Spring, check_joint, check_spring};
use crate::limits;
use crate::world::World;
use geom::mesh::shared::{self, OpenTable, Table};
use geom::{Real, Shape, Vector3};
use serde::{Deserialize, Serialize};
use slotmap::SlotMap;
use std::path::Path;

mod legacy;
mod v10;
mod v11;
mod v12;
mod v5;
mod v6;
mod v8;
mod v9;

use legacy::{v1, v2, v3, v4};

/// The format version this build writes (it also reads versions 1 to 12). Version 13 saves
/// the spherical joints' springs (`Snapshot::joint_springs`); version 12 keeps
/// a cached axis per pair of a compound's parts (the parts in [`CachedAxis`]); version 11
/// added the cached separating axes of the pairs of hulls; version 10 added the
/// user's words on colliders and joints ([`UserData`]); version 9 added the bodies' control
/// states ([`crate::BodyControl`]); version 8 added capsules, convex hulls and
/// compounds to the shapes (as new last variants: a version 7 file reads with version 8's
/// layout).
pub const SNAPSHOT_VERSION: u32 = 13;

/// The oldest format version this build reads.
pub const OLDEST_SNAPSHOT_VERSION: u32 = 1;

/// The largest snapshot accepted, in bytes (256 MiB).
pub const MAX_SNAPSHOT_BYTES: u64 = 256 << 20;

/// The first bytes of a binary snapshot.
const MAGIC: &[u8; 4] = b"MRGD";

/// The whole simulation state of a [`World`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    /// The format version, [`SNAPSHOT_VERSION`].
    pub version: u32,
    /// The world's settings.
    pub config: WorldConfig,
    /// Steps taken.
    pub step: u64,
    /// Simulated time not yet stepped (seconds).
    pub accumulator: Real,
    /// Each distinct triangle mesh and heightfield of the bodies, written once before them
    /// (the bodies' shapes refer to them by index in the saved forms; see
    /// [`geom::mesh::shared`]). Holds nothing in memory: the bodies hold their surfaces.
    #[serde(default)]
    surfaces: OpenTable,
    /// The bodies, with their handles (so handles stay valid across a round trip).
    pub bodies: SlotMap<BodyHandle, RigidBody>,
    /// The pairs touching after the last step, sorted (the next step's events depend on them).
    pub touching: Vec<(BodyHandle, BodyHandle)>,
    /// The persistent contact set: last step's impulses, sorted by pair (the next step warm
    /// starts from them).
    pub contacts: Vec<CachedContact>,
    /// Each body's sleep state, in the order of `bodies`.
    pub sleep: Vec<SleepState>,
    /// With contact reuse, the kept contacts, sorted by pair (the next step reuses them);
    /// empty without.
    pub kept: Vec<KeptContact>,
    /// The joints, with their handles and accumulated impulses.
    pub joints: SlotMap<JointHandle, Joint>,
    /// Each body's control state, in the order of `bodies`.
    pub controls: Vec<BodyControl>,
    /// Each body's collider filter and sensor flag, in the order of `bodies`.
    pub colliders: Vec<ColliderFlags>,
    /// The (sensor, visitor) pairs overlapping after the last step, sorted (the next step's
    /// sensor events depend on them).
    pub sensing: Vec<(BodyHandle, BodyHandle)>,
    /// The user's words on colliders and joints.
    pub user_data: UserData,
    /// The separating axes the last step left for its pairs of hulls (or a hull and a box),
    /// sorted by pair and parts (the next step tries them first).
    pub axes: Vec<CachedAxis>,
    /// Each spherical joint with a spring, in handle order, with the spring (the joints' own
    /// saved form leaves it out, as version 12 wrote them).
    pub joint_springs: Vec<(JointHandle, Spring)>,
}

/// The user's words on colliders and joints (see `RigidBody::set_collider_user_data` and
/// `World::set_joint_user_data`): only the non-zero ones, in handle order, so that a world
/// that uses none writes two empty lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserData {
    /// Each body whose collider has a word, with the word.
    pub colliders: Vec<(BodyHandle, u64)>,
    /// Each joint that has a word, with the word.
    pub joints: Vec<(JointHandle, u64)>,
}

#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
}

impl Snapshot {
    /// The distinct surfaces of the bodies, in body order: the table the saved forms write
    /// once, before the bodies.
    fn surface_table(&self) -> Table {
        let mut table = Table::default();
        for body in self.bodies.values() {
            match &body.collider.shape {
                Shape::TriMesh { mesh } => {
                    table.mesh_index(mesh);
                }
                Shape::HeightField { field } => {
                    table.heightfield_index(field);
                }
                Shape::Cuboid { .. }
                | Shape::Ball { .. }
                | Shape::Capsule { .. }
                | Shape::ConvexHull { .. }
                | Shape::Compound { .. } => {}
            }
        }
        table
    }

    /// The snapshot as pretty JSON.
    pub fn to_json(&self) -> Result<String, SnapshotError> {
        shared::scope(self.surface_table(), || {
            serde_json::to_string_pretty(self).map_err(|e| SnapshotError::Json(e.to_string()))
        })
        .0
    }

    /// Decodes JSON; the version is checked first, then the shape. The state itself is checked
    /// by [`World::from_snapshot`].
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        shared::scope(Table::default(), || Self::read_json(text)).0
    }

    fn read_json(text: &str) -> Result<Self, SnapshotError> {
        check_size(text.len())?;
        let header: VersionOnly =
            serde_json::from_str(text).map_err(|e| SnapshotError::Json(e.to_string()))?;
        check_version(header.version)?;
        let json = |e: serde_json::Error| SnapshotError::Json(e.to_string());
        if header.version == 1 {
            serde_json::from_str::<v1::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version == 2 {
            serde_json::from_str::<v2::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version == 3 {
            serde_json::from_str::<v3::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version == 4 {
            serde_json::from_str::<v4::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version == 5 {
            serde_json::from_str::<v5::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version == 6 {
            serde_json::from_str::<v6::Snapshot>(text)
                .map_err(json)?
                .upgraded()
        } else if header.version < 9 {
            // Versions 7 and 8 share a layout.
            serde_json::from_str::<v8::Snapshot>(text)
                .map_err(json)?
                .upgraded(header.version)
                .map_err(|_| SnapshotError::Json("the version changed while reading".into()))
        } else if header.version == 9 {
            serde_json::from_str::<v9::Snapshot>(text)
                .map_err(json)?
                .upgraded(header.version)
                .map_err(|_| SnapshotError::Json("the version changed while reading".into()))
        } else if header.version == 10 {
            serde_json::from_str::<v10::Snapshot>(text)
                .map_err(json)?
                .upgraded(header.version)
                .map_err(|_| SnapshotError::Json("the version changed while reading".into()))
        } else if header.version == 11 {
            serde_json::from_str::<v11::Snapshot>(text)
                .map_err(json)?
                .upgraded(header.version)
                .map_err(|_| SnapshotError::Json("the version changed while reading".into()))
        } else if header.version == 12 {
            serde_json::from_str::<v12::Snapshot>(text)
                .map_err(json)?
                .upgraded(header.version)
                .map_err(|_| SnapshotError::Json("the version changed while reading".into()))
        } else {
            let snapshot: Self = serde_json::from_str(text).map_err(json)?;
            if snapshot.version != header.version {
                return Err(SnapshotError::Json(
                    "the version changed while reading".into(),
                ));
            }
            Ok(snapshot)
        }
    }

    /// The snapshot in the compact binary form: magic bytes, the version (4 bytes, little
    /// endian), then the fields in postcard's encoding (floats bit for bit).
    pub fn to_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&self.version.to_le_bytes());
        let body = shared::scope(self.surface_table(), || postcard::to_allocvec(self))
            .0
            .map_err(|e| SnapshotError::Binary(e.to_string()))?;
        bytes.extend_from_slice(&body);
        Ok(bytes)
    }

    /// Decodes the binary form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        shared::scope(Table::default(), || Self::read_bytes(bytes)).0
    }

    fn read_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        check_size(bytes.len())?;
        let Some((magic, rest)) = bytes.split_first_chunk::<4>() else {
            return Err(SnapshotError::BadMagic);
        };
        if magic != MAGIC {
            return Err(SnapshotError::BadMagic);
        }
        let Some((version, payload)) = rest.split_first_chunk::<4>() else {
            return Err(SnapshotError::Binary("truncated before the version".into()));
        };
        let version = u32::from_le_bytes(*version);
        check_version(version)?;
        let binary = |e: postcard::Error| SnapshotError::Binary(e.to_string());
        let (snapshot, left) = if version == 1 {
            let (old, left): (v1::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version == 2 {
            let (old, left): (v2::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version == 3 {
            let (old, left): (v3::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version == 4 {
            let (old, left): (v4::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version == 5 {
            let (old, left): (v5::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version == 6 {
            let (old, left): (v6::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded()?, left)
        } else if version < 9 {
            // Versions 7 and 8 share a layout.
            let (old, left): (v8::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded(version)?, left)
        } else if version == 9 {
            let (old, left): (v9::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded(version)?, left)
        } else if version == 10 {
            let (old, left): (v10::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded(version)?, left)
        } else if version == 11 {
            let (old, left): (v11::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded(version)?, left)
        } else if version == 12 {
            let (old, left): (v12::Snapshot, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            (old.upgraded(version)?, left)
        } else {
            let (snapshot, left): (Self, &[u8]) =
                postcard::take_from_bytes(payload).map_err(binary)?;
            if snapshot.version != version {
                return Err(SnapshotError::Binary(
                    "header and body versions differ".into(),
                ));
            }
            (snapshot, left)
        };
        if !left.is_empty() {
            return Err(SnapshotError::Binary(format!(
                "{} bytes of trailing data",
                left.len()
            )));
        }
        Ok(snapshot)
    }

    /// Writes the snapshot to a file: binary when the path ends in `.bin`, JSON otherwise.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SnapshotError> {
        let path = path.as_ref();
        let data = if path.extension().is_some_and(|e| e == "bin") {
            self.to_bytes()?
        } else {
            self.to_json()?.into_bytes()
        };
        std::fs::write(path, data)?;
        Ok(())
    }

    /// Reads a snapshot file written by [`Snapshot::save`] (either form, told apart by the magic
    /// bytes). Files over [`MAX_SNAPSHOT_BYTES`] are refused before they are read.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, SnapshotError> {
        let path = path.as_ref();
        let size = std::fs::metadata(path)?.len();
        if size > MAX_SNAPSHOT_BYTES {
            return Err(SnapshotError::TooLarge {
                bytes: size,
                limit: MAX_SNAPSHOT_BYTES,
            });
        }
        let data = std::fs::read(path)?;
        if data.starts_with(MAGIC) {
            Self::from_bytes(&data)
        } else {
            let text = std::str::from_utf8(&data)
                .map_err(|e| SnapshotError::Json(format!("not UTF-8: {e}")))?;
            Self::from_json(text)
        }
    }
}

/// A list of user's words: live handles in strictly increasing order, each word non-zero (as
/// `World::snapshot` writes them, so that a state has one form).
fn check_user_data<K: Copy + Ord>(
    field: &str,
    entries: &[(K, u64)],
    live: impl Fn(K) -> bool,
) -> Result<(), SnapshotError> {
    for (index, &(handle, data)) in entries.iter().enumerate() {
        let ordered = index == 0 || entries[index - 1].0 < handle;
        if !(live(handle) && ordered && data != 0) {
            return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                field: format!("{field}[{index}]"),
                value: index as Real,
                range: "a live handle, after the one before, with a non-zero word".into(),
            }));
        }
    }
    Ok(())
}

/// Gives the spherical joints the springs of `springs` (live spherical joints in strictly
/// increasing handle order, each spring valid), and none to the others: the list decides, so
/// that a snapshot in memory restores as its saved forms do.
fn restore_joint_springs(
    joints: &mut SlotMap<JointHandle, Joint>,
    springs: &[(JointHandle, Spring)],
) -> Result<(), SnapshotError> {
    for (index, &(handle, spring)) in springs.iter().enumerate() {
        let field = format!("joint_springs[{index}]");
        let ordered = index == 0 || springs[index - 1].0 < handle;
        let spherical = joints
            .get(handle)
            .is_some_and(|j| matches!(j.kind, JointKind::Spherical { .. }));
        if !(ordered && spherical) {
            return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                field,
                value: index as Real,
                range: "a live spherical joint, after the one before".into(),
            }));
        }
        check_spring(&format!("{field}.spring"), &spring)?;
    }
    for joint in joints.values_mut() {
        if let JointKind::Spherical { spring, .. } = &mut joint.kind {
            *spring = None;
        }
    }
    for &(handle, spring) in springs {
        if let JointKind::Spherical { spring: s, .. } = &mut joints[handle].kind {
            *s = Some(spring);
        }
    }
    Ok(())
}

fn check_size(len: usize) -> Result<(), SnapshotError> {
    if len as u64 > MAX_SNAPSHOT_BYTES {
        return Err(SnapshotError::TooLarge {
            bytes: len as u64,
            limit: MAX_SNAPSHOT_BYTES,
        });
    }
    Ok(())
}

fn check_version(found: u32) -> Result<(), SnapshotError> {
    if (OLDEST_SNAPSHOT_VERSION..=SNAPSHOT_VERSION).contains(&found) {
        Ok(())
    } else {
        Err(SnapshotError::Version {
            found,
            supported: SNAPSHOT_VERSION,
        })
    }
}

impl World {
    /// The world's whole simulation state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            version: SNAPSHOT_VERSION,
            config: self.config,
            step: self.step_count,
            accumulator: self.accumulator,
            surfaces: OpenTable,
            bodies: self.bodies.clone(),
            touching: self.touching.clone(),
            contacts: self.contact_cache.clone(),
            sleep: self.bodies.values().map(|b| b.sleep).collect(),
            kept: self.kept_contacts.clone(),
            joints: self.joints.clone(),
            controls: self.bodies.values().map(|b| b.control).collect(),
            colliders: self.bodies.values().map(|b| b.collider.flags).collect(),
            sensing: self.sensing.clone(),
            user_data: UserData {
                colliders: (self.bodies.iter())
                    .filter(|(_, b)| b.collider.user_data != 0)
                    .map(|(h, b)| (h, b.collider.user_data))
                    .collect(),
                joints: (self.joints.iter())
                    .filter(|(_, j)| j.user_data != 0)
                    .map(|(h, j)| (h, j.user_data))
                    .collect(),
            },
            axes: self.axis_cache.clone(),
            joint_springs: (self.joints.iter())
                .filter_map(|(h, j)| match j.kind {
                    JointKind::Spherical {
                        spring: Some(spring),
                        ..
                    } => Some((h, spring)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// A world restored from a snapshot, after checking all of it: the error names the first
    /// bad field (`bodies[3].linvel.x`, `config.dt`, `touching[0]`, ...). Handles from the
    /// original world find the same bodies. Contacts and events are empty until the next step.
    pub fn from_snapshot(mut snapshot: Snapshot) -> Result<World, SnapshotError> {
        if snapshot.version != SNAPSHOT_VERSION {
            return Err(SnapshotError::Version {
                found: snapshot.version,
                supported: SNAPSHOT_VERSION,
            });
        }
        snapshot.config.validate()?;
        if !(snapshot.accumulator.is_finite() && snapshot.accumulator >= 0.0) {
            return Err(WorldError::OutOfRange {
                field: "accumulator".into(),
                value: snapshot.accumulator,
                range: "finite and non-negative".into(),
            }
            .into());
        }
        // Their number is checked last (below), after what refers to the bodies.
        for (body, control) in snapshot.bodies.values_mut().zip(&snapshot.controls) {
            body.control = *control;
        }
        for (body, flags) in snapshot.bodies.values_mut().zip(&snapshot.colliders) {
            body.collider.flags = *flags;
        }
        for (index, (_, body)) in snapshot.bodies.iter().enumerate() {
            check_body(&format!("bodies[{index}]"), body)?;
        }
        for (index, pair) in snapshot.touching.iter().enumerate() {
            let known =
                snapshot.bodies.contains_key(pair.0) && snapshot.bodies.contains_key(pair.1);
            let ordered = pair.0 < pair.1 && (index == 0 || snapshot.touching[index - 1] < *pair);
            if !known || !ordered {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: format!("touching[{index}]"),
                    value: index as Real,
                    range: "a sorted pair of live handles".into(),
                }));
            }
        }
        for (index, entry) in snapshot.contacts.iter().enumerate() {
            let field = format!("contacts[{index}]");
            let known =
                snapshot.bodies.contains_key(entry.a) && snapshot.bodies.contains_key(entry.b);
            // A pair against a surface may have several manifolds, one after the other.
            let ordered = entry.a < entry.b
                && (index == 0 || {
                    let previous = &snapshot.contacts[index - 1];
                    (previous.a, previous.b) <= (entry.a, entry.b)
                });
            if !known || !ordered {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field,
                    value: index as Real,
                    range: "a sorted pair of live handles".into(),
                }));
            }
            entry.validate(&field)?;
        }
        for (index, entry) in snapshot.kept.iter().enumerate() {
            let field = format!("kept[{index}]");
            let radius = |h| {
                snapshot
                    .bodies
                    .get(h)
                    .map(|b| b.collider.shape.bounding_radius())
            };
            let ordered = entry.a < entry.b
                && (index == 0 || {
                    let previous = &snapshot.kept[index - 1];
                    (previous.a, previous.b) < (entry.a, entry.b)
                });
            let (Some(radius_a), Some(radius_b), true) =
                (radius(entry.a), radius(entry.b), ordered)
            else {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field,
                    value: index as Real,
                    range: "a sorted pair of live handles".into(),
                }));
            };
            entry.validate(&field, (radius_a, radius_b))?;
        }
        if snapshot.sleep.len() != snapshot.bodies.len() {
            return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                field: "sleep".into(),
                value: snapshot.sleep.len() as Real,
                range: "one entry per body".into(),
            }));
        }
        for (index, (state, body)) in snapshot
            .sleep
            .iter()
            .zip(snapshot.bodies.values())
            .enumerate()
        {
            let field = format!("sleep[{index}].rest_time");
            limits::within(
                &field,
                state.rest_time,
                limits::Range::Between(0.0, limits::MAX_SLEEP_TIME, "s"),
            )?;
            if state.asleep && (body.kind != BodyKind::Dynamic || !snapshot.config.sleep.enabled) {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: format!("sleep[{index}].asleep"),
                    value: 1.0,
                    range: "false unless the body is dynamic and sleeping is enabled".into(),
                }));
            }
            // A body falls asleep with its velocities zeroed and keeps them so: one that moves
            // would leave the box the broad phase keeps for it.
            // Nor does it hold a force: adding one wakes it.
            let still = body.linvel == Vector3::zeros()
                && body.angvel == Vector3::zeros()
                && body.control.force == Vector3::zeros()
                && body.control.torque == Vector3::zeros();
            if state.asleep && !still {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: format!("sleep[{index}].asleep"),
                    value: 1.0,
                    range: "false unless the body's velocities and forces are zero".into(),
                }));
            }
        }
        for (index, (_, joint)) in snapshot.joints.iter().enumerate() {
            let field = format!("joints[{index}]");
            let [a, b] = joint.bodies;
            if !(snapshot.bodies.contains_key(a) && snapshot.bodies.contains_key(b)) || a == b {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: format!("{field}.bodies"),
                    value: index as Real,
                    range: "two different live handles".into(),
                }));
            }
            check_joint(&field, joint)?;
            // A step removes a joint loaded past its threshold before it ends, so no world a
            // step makes holds one (and one that slept so would break only when it woke).
            let past = |limit: Option<Real>, load: Real| limit.is_some_and(|l| load > l);
            for (name, limit, load) in [
                ("force", joint.break_force, joint.force.norm()),
                ("torque", joint.break_torque, joint.torque.norm()),
            ] {
                if past(limit, load) {
                    return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                        field: format!("{field}.{name}"),
                        value: load,
                        range: format!("at most the joint's break {name}"),
                    }));
                }
            }
        }
        for (field, len) in [
            ("controls", snapshot.controls.len()),
            ("colliders", snapshot.colliders.len()),
        ] {
            if len != snapshot.bodies.len() {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: field.into(),
                    value: len as Real,
                    range: "one entry per body".into(),
                }));
            }
        }
        for (index, &(sensor, visitor)) in snapshot.sensing.iter().enumerate() {
            let senses = |h| {
                snapshot
                    .bodies
                    .get(h)
                    .map(|b: &RigidBody| b.collider.flags.sensor)
            };
            let ordered = index == 0 || snapshot.sensing[index - 1] < (sensor, visitor);
            if !(senses(sensor) == Some(true) && senses(visitor) == Some(false) && ordered) {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field: format!("sensing[{index}]"),
                    value: index as Real,
                    range: "a sorted pair of a live sensor and a live body that is not one".into(),
                }));
            }
        }
        for (index, entry) in snapshot.axes.iter().enumerate() {
            let field = format!("axes[{index}]");
            let shape = |h| snapshot.bodies.get(h).map(|b| &b.collider.shape);
            let ordered =
                entry.a < entry.b && (index == 0 || snapshot.axes[index - 1].key() < entry.key());
            let (Some(shape_a), Some(shape_b), true) = (shape(entry.a), shape(entry.b), ordered)
            else {
                return Err(SnapshotError::Invalid(WorldError::OutOfRange {
                    field,
                    value: index as Real,
                    range: "a pair of live handles, sorted by pair and parts".into(),
                }));
            };
            entry.validate(&field, (shape_a, shape_b))?;
        }
        check_user_data("user_data.colliders", &snapshot.user_data.colliders, |h| {
            snapshot.bodies.contains_key(h)
        })?;
        check_user_data("user_data.joints", &snapshot.user_data.joints, |h| {
            snapshot.joints.contains_key(h)
        })?;
        for &(handle, data) in &snapshot.user_data.colliders {
            snapshot.bodies[handle].collider.user_data = data;
        }
        for &(handle, data) in &snapshot.user_data.joints {
            snapshot.joints[handle].user_data = data;
        }
        restore_joint_springs(&mut snapshot.joints, &snapshot.joint_springs)?;
        for (body, state) in snapshot.bodies.values_mut().zip(&snapshot.sleep) {
            body.mass_properties = BodyMass::derive(body.kind, body.mass, &body.collider);
            body.sleep = *state;
        }
        let mut world = World::new(snapshot.config);
        world.step_count = snapshot.step;
        world.accumulator = snapshot.accumulator;
        world.touching = snapshot.touching;
        world.contact_cache = snapshot.contacts;
        world.kept_contacts = snapshot.kept;
        world.axis_cache = snapshot.axes;
        world.bodies = snapshot.bodies;
        world.joints = snapshot.joints;
        world.sensing = snapshot.sensing;
        world.note_controls();
        world.joints_changed();
        Ok(world)
    }

    /// The world as pretty JSON.
    pub fn to_json(&self) -> Result<String, SnapshotError> {
        self.snapshot().to_json()
    }

    /// A world from JSON, checked as [`World::from_snapshot`] does.
    pub fn from_json(text: &str) -> Result<World, SnapshotError> {
        World::from_snapshot(Snapshot::from_json(text)?)
    }

    /// The world in the compact binary form.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        self.snapshot().to_bytes()
    }

    /// A world from the binary form, checked as [`World::from_snapshot`] does.
    pub fn from_bytes(bytes: &[u8]) -> Result<World, SnapshotError> {
        World::from_snapshot(Snapshot::from_bytes(bytes)?)
    }

    /// Saves the world to a file (binary for `.bin`, JSON otherwise).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SnapshotError> {
        self.snapshot().save(path)
    }

    /// Loads a world saved by [`World::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<World, SnapshotError> {
        World::from_snapshot(Snapshot::load(path)?)
    }
}
