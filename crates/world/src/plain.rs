//! Lists of plain data emptied without a pass over them.
//!
//! A contact and a contact set's entry own nothing, but each holds an `ArrayVec`, whose drop
//! sets its length: `Vec::clear` then writes to every element, which for a list made a step
//! ago (out of the cache by now) costs a cache miss per element. Over the large pyramid's
//! 15,000 contacts that was 0.06 to 0.13 ms a step for the contacts, and 0.1 ms for the
//! contact set, a fifth of the store.
//!
//! The workspace denies `unsafe`; this module is allowed it for the one `set_len` below, sound
//! for any element type (forgetting is safe); [`OwnsNothing`] keeps it from leaking.

#![allow(unsafe_code)]

use crate::contact::{CachedContact, CachedPoint, ContactPair};

/// A type whose values own nothing (no heap memory, nothing to release), so that forgetting
/// one instead of dropping it leaks nothing: every field plain data or an `ArrayVec` of plain
/// data (asserted below of the fields' types). Leaking is safe, so this is a promise about
/// waste, not about soundness.
pub(crate) trait OwnsNothing {}

/// Two handles and a contact: a vector, a number and an `ArrayVec` of points (a position, a
/// number and a feature id).
impl OwnsNothing for ContactPair {}
/// Two handles, vectors, numbers and an `ArrayVec` of `CachedPoint`s.
impl OwnsNothing for CachedContact {}

const _: () = {
    use std::mem::needs_drop;
    assert!(!needs_drop::<crate::body::BodyHandle>());
    assert!(!needs_drop::<collide::ContactPoint>());
    assert!(!needs_drop::<CachedPoint>());
    assert!(!needs_drop::<geom::Vector3>());
};

/// Empties `items` without dropping its elements one by one (see the module documentation).
#[inline]
pub(crate) fn forget_all<T: OwnsNothing>(items: &mut Vec<T>) {
    // SAFETY: a length of zero is within any capacity, and the elements past it are never read
    // again: they are forgotten, never dropped, which is safe (and leaks nothing: they own
    // nothing, `OwnsNothing`).
    unsafe { items.set_len(0) };
}
