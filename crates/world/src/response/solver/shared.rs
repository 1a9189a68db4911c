//! A slice that the threads of a crew (`crew`) share while each writes its own part: the
//! group's bodies, batches and per-slot buffers during its solve.
//!
//! Rust's borrows cannot say "each batch of this colour writes only its own bodies", which is
//! what the colouring guarantees (`color`), so the solve reaches them through raw pointers and
//! these rules, which every `unsafe` block below relies on:
//!
//! - a stage's blocks touch disjoint elements, except fixed bodies (static, sleeping or
//!   kinematic: zero inverse mass), which several may read and none writes (`Moved::store`);
//! - a stage of one block (the overflow, the joints) is the only one running and may touch
//!   every element;
//! - stages are separated by the crew's wait (an acquire of every block's release), so what
//!   one stage wrote is seen by the next, whichever thread wrote it.
//!
//! This module, the crew's program (`substeps`), the colour stages (`schedule`) and
//! `Moved::store` are the only places of the workspace allowed `unsafe` (the workspace denies
//! it): each block says which rule it relies on. (And `crate::ahead`, whose prefetch hints
//! rely on none: a prefetch never faults.)

#![allow(unsafe_code)]

use super::body::SolverBody;
use std::marker::PhantomData;
use std::ops::Range;

/// A mutable slice lent to several threads at once; who touches what is up to the caller (the
/// rules above).
pub(crate) struct Shared<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// The threads of a crew reach disjoint elements (the rules above); `T: Send` because an element
// is written on a thread other than its owner's.
unsafe impl<T: Send> Send for Shared<'_, T> {}
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    pub(crate) fn new(items: &'a mut [T]) -> Self {
        Self {
            ptr: items.as_mut_ptr(),
            len: items.len(),
            _borrow: PhantomData,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements `range`, to write.
    ///
    /// # Safety
    /// No other thread touches them until the stage ends (the rules above).
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice(&self, range: Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }

    /// Every element, to write (a stage of one block).
    ///
    /// # Safety
    /// As [`Shared::slice`], for all of them.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn all(&self) -> &mut [T] {
        // SAFETY: the caller's promise.
        unsafe { self.slice(0..self.len) }
    }

    /// Every element, to read (a stage that writes none of them).
    ///
    /// # Safety
    /// No thread writes any of them until the stage ends.
    #[inline]
    pub(crate) unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: the pointer and length of a live slice; not written meanwhile by the caller's
        // promise.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Element `i`, to read.
    ///
    /// # Safety
    /// No thread writes it until the stage ends.
    #[inline(always)]
    pub(crate) unsafe fn get(&self, i: usize) -> &T {
        assert!(i < self.len);
        // SAFETY: in bounds (checked); not written meanwhile by the caller's promise.
        unsafe { &*self.ptr.add(i) }
    }

    /// Asks for element `i`'s first cache line to be brought in (a hint: reads nothing; out
    /// of bounds, nothing).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        if i < self.len {
            crate::ahead::prefetch_address(self.ptr.wrapping_add(i).cast_const().cast());
        }
    }

    /// Element `i`, to write.
    ///
    /// # Safety
    /// No other thread reads or writes it until the stage ends.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get_mut(&self, i: usize) -> &mut T {
        assert!(i < self.len);
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }
}

/// The bodies a contact stage reads: a plain slice, or the group's bodies shared by a crew.
pub(crate) trait Bodies {
    fn body(&self, i: usize) -> &SolverBody;
}

impl Bodies for [SolverBody] {
    #[inline(always)]
    fn body(&self, i: usize) -> &SolverBody {
        &self[i]
    }
}

impl Bodies for Shared<'_, SolverBody> {
    /// A body of the batch being solved: within a colour no other batch writes it, or it is
    /// fixed and nobody does (the rules above).
    #[inline(always)]
    fn body(&self, i: usize) -> &SolverBody {
        // SAFETY: the colouring (the rules above).
        unsafe { self.get(i) }
    }
}
