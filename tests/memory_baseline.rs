//! Creating and destroying 10 000 cloths returns memory to its baseline (docs/robustness.md,
//! "Memory"), through the Rust API and through the C ABI. A counting global allocator keeps the net
//! bytes (allocated − freed) of the test's own thread, so the harness's threads do not count; the
//! worlds have one thread, so everything a cloth allocates is allocated and freed on the test
//! thread. One test function, so that no other test runs in this process at the same time.

mod common;
mod ffi_common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, World, WorldDesc};

/// The system allocator, keeping per-thread net allocated bytes.
struct CountingAllocator;

thread_local! {
    // Const-initialised, no destructor: reading it never allocates, so the allocator may use it.
    static NET_BYTES: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = NET_BYTES.try_with(|n| n.set(n.get() + bytes));
}

fn net_bytes() -> isize {
    NET_BYTES.with(Cell::get)
}

// SAFETY: forwards every call unchanged to `System`, which upholds the `GlobalAlloc` contract.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        // SAFETY: the caller's `alloc` contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        // SAFETY: `ptr` came from `System.alloc` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's `realloc` contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const CLOTHS: usize = 10_000;

#[test]
fn creating_and_destroying_10000_cloths_returns_memory_to_baseline() {
    let (positions, indices) = common::vertical_sheet(6, 1.0);

    // Rust API: one world, cloths created, stepped, snapshotted and removed one after the other.
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut held = 0;
    let mut cycle = |world: &mut World| {
        let before = net_bytes();
        let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        held = net_bytes() - before;
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 5], None).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let mut buf = vec![0u8; world.cloth(cloth).unwrap().state_size()];
        world.cloth(cloth).unwrap().save_state(&mut buf).unwrap();
        world.remove_cloth(cloth).unwrap();
    };
    cycle(&mut world); // the world's slot table gets its first slot
    let baseline = net_bytes();
    for _ in 0..CLOTHS {
        cycle(&mut world);
    }
    let rust_growth = net_bytes() - baseline;
    println!("Rust API: {CLOTHS} cloths of {held} bytes each, net growth {rust_growth} bytes");
    // The counter sees the cloths (a 6 × 6 cloth holds kilobytes), and all of them came back.
    assert!(held > 1000, "{held}");
    assert_eq!(rust_growth, 0);
    drop(world);

    // C ABI: the same, ids and all.
    let world = ffi_common::c_world(1);
    let c_cycle = || {
        let cloth = ffi_common::c_hanging_cloth(world, 6);
        ffi_common::ok(xpbd_world_step(world, 1.0 / 60.0));
        ffi_common::ok(xpbd_cloth_destroy(cloth));
    };
    // Twice: each step copies the reads into the one of the two buffers the reads do not use, so
    // the second buffer gets its copy in the second cycle.
    c_cycle();
    c_cycle();
    let baseline = net_bytes();
    for _ in 0..CLOTHS {
        c_cycle();
    }
    let c_growth = net_bytes() - baseline;
    println!("C ABI: {CLOTHS} cloths, net growth {c_growth} bytes");
    assert_eq!(c_growth, 0);
    ffi_common::ok(xpbd_world_destroy(world));
}
