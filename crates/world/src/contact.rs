//! Contacts between bodies: [`ContactPair`] (this step's contacts, as the world reports them),
//! [`ContactEvent`] (which pairs started and stopped touching, and the diff that makes them), and
//! the persistent contact set ([`CachedContact`]: last step's impulses, per pair and point, which
//! warm start the solver).

use crate::body::BodyHandle;
use crate::error::WorldError;
use crate::limits::{self, Range};
use arrayvec::ArrayVec;
use collide::{Contact, FeatureId};
use geom::{Real, Vector3, validate};
use serde::{Deserialize, Serialize};

/// Two bodies in contact during the last step. `a < b` in handle order; the contact's normal
/// points from `a` toward `b`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactPair {
    /// The first body.
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// How they touch (before the response moved them), world space.
    pub contact: Contact,
}

/// A change in which bodies touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactEvent {
    /// The two bodies (in handle order) began touching this step.
    Started(BodyHandle, BodyHandle),
    /// The two bodies stopped touching this step, or one of them was removed.
    Stopped(BodyHandle, BodyHandle),
}

/// Appends to `events` the pairs in `now` but not in `before` (started) and those in `before`
/// but not in `now` (stopped), merging the two sorted lists so that events come in pair order.
pub(crate) fn diff_events(
    before: &[(BodyHandle, BodyHandle)],
    now: &[(BodyHandle, BodyHandle)],
    events: &mut Vec<ContactEvent>,
) {
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(old), Some(new)) if old == new => {
                i += 1;
                j += 1;
            }
            (Some(old), Some(new)) if old < new => {
                events.push(ContactEvent::Stopped(old.0, old.1));
                i += 1;
            }
            (Some(old), None) => {
                events.push(ContactEvent::Stopped(old.0, old.1));
                i += 1;
            }
            (_, Some(new)) => {
                events.push(ContactEvent::Started(new.0, new.1));
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// The impulses the solver applied at one contact point in the last step, kept for warm
/// starting the next: matched to next step's point of the same pair by its [`FeatureId`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CachedPoint {
    /// The features that meet at the point.
    pub id: FeatureId,
    /// The accumulated normal impulse (newton seconds, `>= 0`).
    pub normal_impulse: Real,
}

/// One pair's entry in the persistent contact set: simulation state, saved in snapshots and
/// hashed, so that a world restored mid-contact steps exactly as the original.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedContact {
    /// The first body (`a < b` in handle order).
    pub a: BodyHandle,
    /// The second body.
    pub b: BodyHandle,
    /// Up to four points with their normal impulses.
    pub points: ArrayVec<CachedPoint, 4>,
    /// The accumulated friction impulse at the friction centre, world space (newton seconds):
    /// a vector, so that it carries over when the next step's tangents differ.
    pub friction_impulse: Vector3,
    /// The accumulated twist friction impulse about the normal (newton metre seconds).
    pub twist_impulse: Real,
    /// The accumulated angular impulse that holds the bodies' relative tilt, world space
    /// (newton metre seconds).
    pub tilt_impulse: Vector3,
}

impl CachedContact {
    /// Checks the entry read from a snapshot; the error names `field`'s bad part.
    pub(crate) fn validate(&self, field: &str) -> Result<(), WorldError> {
        for (i, point) in self.points.iter().enumerate() {
            let name = format!("{field}.points[{i}]");
            limits::within(
                &format!("{name}.normal_impulse"),
                point.normal_impulse,
                Range::Between(0.0, limits::MAX_IMPULSE, "N s"),
            )?;
        }
        validate::finite_vector3(&format!("{field}.friction_impulse"), &self.friction_impulse)?;
        limits::components_within(
            || format!("{field}.friction_impulse"),
            &self.friction_impulse,
            Range::AtMost(limits::MAX_IMPULSE, "N s"),
        )?;
        validate::finite_vector3(&format!("{field}.tilt_impulse"), &self.tilt_impulse)?;
        limits::components_within(
            || format!("{field}.tilt_impulse"),
            &self.tilt_impulse,
            Range::AtMost(limits::MAX_IMPULSE, "N m s"),
        )?;
        validate::finite(&format!("{field}.twist_impulse"), self.twist_impulse)?;
        limits::within(
            &format!("{field}.twist_impulse"),
            self.twist_impulse,
            Range::Between(-limits::MAX_IMPULSE, limits::MAX_IMPULSE, "N m s"),
        )?;
        Ok(())
    }
}
