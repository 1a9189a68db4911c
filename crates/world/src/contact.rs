//! Contacts between bodies as the world reports them: [`ContactPair`] (this step's contacts),
//! [`ContactEvent`] (which pairs started and stopped touching), and the diff that turns the
//! touching set of one step into the next step's events.

use crate::body::BodyHandle;
use collide::Contact;

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
