//! The box-box kernels allocate nothing: counted with a global allocator (the only unsafe code
//! in the project, and only in this test).

#![allow(unsafe_code)]

mod common;

use collide::{obb_obb_contact, obb_obb_intersects, sphere_obb_contact};
use common::{Rng, random_obb};
use geom::Sphere;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn kernels_do_not_allocate() {
    let mut rng = Rng(5);
    let pairs: Vec<_> = (0..1_000)
        .map(|_| (random_obb(&mut rng), random_obb(&mut rng)))
        .collect();
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut touching = 0usize;
    for (a, b) in &pairs {
        touching += usize::from(obb_obb_intersects(a, b));
        touching += obb_obb_contact(a, b).map_or(0, |c| c.points.len());
        touching += usize::from(sphere_obb_contact(&Sphere::new(a.center, 1.0), b).is_some());
    }
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    assert!(touching > 0);
    assert_eq!(after - before, 0, "the kernels allocated");
}
