//! Asking the processor for memory before it is read: hints, which change nothing but when
//! the lines arrive.
//!
//! A walk over the world's slot maps in handle order (the bodies, the joints) reads records
//! several cache lines apart, each checked against a version kept beside it; the processor
//! does not foresee the next, so every record costs a wait for memory. [`SlotAhead`] asks for
//! the slot some keys ahead (where it lies is learnt from two records: the map does not tell),
//! so that it has arrived when the walk reaches it (the joint grid's store, which writes back
//! 19,800 joints and 10,000 bodies a step, twice as fast).
//!
//! The workspace denies `unsafe`; this module is allowed it for the prefetch instruction,
//! which reads nothing architecturally and never faults, whatever the address.

#![allow(unsafe_code)]

use slotmap::{Key, SlotMap};

/// How many keys ahead of a walk [`SlotAhead`] asks for a slot.
const AHEAD: usize = 8;

/// Asks the processor to bring every cache line of `x` in.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(x: &T) {
    let start = (x as *const T).cast::<u8>();
    for offset in (0..std::mem::size_of::<T>()).step_by(64) {
        prefetch_address(start.wrapping_add(offset));
    }
}

/// Asks the processor to bring the cache line at `address` in.
#[inline(always)]
pub(crate) fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// A walk over `keys` of a slot map, in order, that asks for the slot [`AHEAD`] keys on at
/// each step ([`SlotAhead::at`]).
///
/// A slot map keeps its records in one array, slot `i` holding the key of index `i`'s record
/// and a version, at a stride it does not tell: it is measured from the walk's first and last
/// records (their addresses' difference over their indices'). Where that is not a whole
/// number of bytes per index, or not about a record's size, nothing is asked for.
pub(crate) struct SlotAhead<'a, K> {
    keys: &'a [K],
    /// The address slot 0's record would have (never dereferenced), the stride, and how many
    /// lines a slot spans from the line before its record (where a version placed first lies).
    origin: usize,
    stride: usize,
    lines: usize,
}

impl<'a, K: Key> SlotAhead<'a, K> {
    /// A walk over `keys` (in index order, every one in `map`).
    pub(crate) fn new<V>(map: &SlotMap<K, V>, keys: &'a [K]) -> Self {
        let none = Self {
            keys: &[],
            origin: 0,
            stride: 0,
            lines: 0,
        };
        let record = |key: &K| {
            let at = map.get(*key)? as *const V;
            Some((at as usize, index_of(key)))
        };
        let (Some((a, i)), Some((b, j))) =
            (keys.first().and_then(record), keys.last().and_then(record))
        else {
            return none;
        };
        let (steps, bytes) = (j.wrapping_sub(i), b.wrapping_sub(a));
        let size = std::mem::size_of::<V>();
        if j <= i || b <= a || !bytes.is_multiple_of(steps) {
            return none;
        }
        let stride = bytes / steps;
        if stride < size || stride > size + 64 {
            return none;
        }
        Self {
            keys,
            origin: a.wrapping_sub(i * stride),
            stride,
            lines: stride.div_ceil(64) + 1,
        }
    }

    /// Where `key`'s record lies, as learnt.
    #[inline(always)]
    fn record(&self, key: &K) -> usize {
        self.origin
            .wrapping_add(index_of(key).wrapping_mul(self.stride))
    }

    /// The walk is at key `k` of its keys: asks for the slot of key `k + AHEAD`.
    #[inline(always)]
    pub(crate) fn at(&self, k: usize) {
        let Some(key) = self.keys.get(k + AHEAD) else {
            return;
        };
        let start = self.record(key).wrapping_sub(8);
        for line in 0..self.lines {
            prefetch_address(start.wrapping_add(64 * line) as *const u8);
        }
    }
}

/// A key's index: its slot in the map's array (the low half of its data).
#[inline(always)]
fn index_of<K: Key>(key: &K) -> usize {
    key.data().as_ffi() as u32 as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use slotmap::DefaultKey;

    /// The stride learnt from the first and last record places every record of the walk
    /// where the map keeps it (else the hints ask for the wrong lines: slower, never wrong).
    #[test]
    fn the_slots_learnt_from_two_records_place_every_record() {
        #[derive(Clone, Copy)]
        struct Record([u64; 31]);
        let mut map = SlotMap::new();
        let mut keys: Vec<DefaultKey> = (0..100).map(|k| map.insert(Record([k; 31]))).collect();
        // Some removed and their slots taken again (the same indices, new versions).
        for k in (0..100).step_by(7) {
            map.remove(keys[k]);
            keys[k] = map.insert(Record([0; 31]));
        }
        keys.sort_unstable();
        let walk = SlotAhead::new(&map, &keys);
        assert!(walk.stride >= std::mem::size_of::<Record>());
        for key in &keys {
            let record = &map[*key];
            assert_eq!(walk.record(key), (record as *const Record) as usize);
            assert!(record.0.iter().all(|&x| x == record.0[0]));
        }
        // Fewer than two records, or a key not in the map: nothing asked for.
        assert_eq!(SlotAhead::new(&map, &keys[..1]).lines, 0);
        let gone = keys[50];
        map.remove(gone);
        assert_eq!(SlotAhead::new(&map, &[keys[0], gone]).lines, 0);
        walk.at(0);
    }
}
