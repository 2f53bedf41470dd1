//! Scenes shared by the C ABI tests.
#![allow(dead_code)] // each test file uses a different part

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::PathBuf;
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, World, WorldDesc};

/// An n × n grid of render vertices spanning 1 m, vertical in the x–y plane with its top row at
/// y = 1 m, two triangles per quad: the scene of `examples/c/hanging_cloth.c` and `examples/hang.rs`.
pub fn hanging_grid(n: usize) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut positions = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            positions.push([i as f32 / (n - 1) as f32, 1.0 - j as f32 / (n - 1) as f32, 0.0]);
        }
    }
    (positions, grid_indices(n))
}

/// An n × n grid of render vertices spanning `size` metres, horizontal in the x–z plane at height
/// `y`, centred on the y axis, two triangles per quad, counter-clockwise seen from above; with
/// `size` 1 the scene of `examples/c/drape_on_sphere.c` (which computes the same positions).
pub fn flat_grid(n: usize, size: f32, y: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut positions = Vec::with_capacity(n * n);
    let at = |k: usize| (k as f32 / (n - 1) as f32 - 0.5) * size;
    for j in 0..n {
        for i in 0..n {
            positions.push([at(i), y, at(j)]);
        }
    }
    (positions, grid_indices(n))
}

/// Two triangles per quad of a row-major n × n vertex grid: (a, c, b) and (b, c, d) with b the
/// next vertex in the row and c the one in the next row.
fn grid_indices(n: usize) -> Vec<u32> {
    let mut indices = Vec::with_capacity(6 * (n - 1) * (n - 1));
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    indices
}

/// Panic with the library's message unless `result` is OK.
pub fn ok(result: XpbdResult) {
    if result != XpbdResult::Ok {
        let mut buf = vec![0 as std::ffi::c_char; 512];
        // SAFETY: buf holds 512 writable bytes.
        unsafe { xpbd_last_error_message(buf.as_mut_ptr(), buf.len()) };
        // SAFETY: the library NUL-terminates within the capacity.
        let msg = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        panic!("{result:?}: {}", msg.to_string_lossy());
    }
}

/// A world created through the C ABI.
pub fn c_world(thread_count: u32) -> XpbdWorldId {
    let desc = XpbdWorldDesc { thread_count, ..xpbd_default_world_desc() };
    let mut world = XpbdWorldId::default();
    // SAFETY: valid descriptor and out-parameter.
    ok(unsafe { xpbd_world_create(&desc, &mut world) });
    world
}

/// A `n × n` hanging grid in `world`, pinned at its two top corners, through the C ABI.
pub fn c_hanging_cloth(world: XpbdWorldId, n: usize) -> XpbdClothId {
    let (positions, indices) = hanging_grid(n);
    let desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        ..xpbd_default_cloth_desc()
    };
    let mut cloth = XpbdClothId::default();
    let corners = [0, n as u32 - 1];
    // SAFETY: the arrays outlive the calls and hold the counts passed.
    unsafe {
        ok(xpbd_cloth_create(world, &desc, &mut cloth));
        ok(xpbd_cloth_set_pinned(cloth, corners.as_ptr(), 2, std::ptr::null()));
    }
    cloth
}

/// Positions [m] in render order, read through the C ABI.
pub fn c_positions(cloth: XpbdClothId) -> Vec<[f32; 3]> {
    let mut count = 0;
    // SAFETY: valid out-parameter, and a buffer of exactly `count` 3-vectors.
    unsafe {
        ok(xpbd_cloth_vertex_count(cloth, &mut count));
        let mut out = vec![[0.0f32; 3]; count as usize];
        ok(xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), count));
        out
    }
}

/// Bit patterns, so that comparisons are exact and print readably.
pub fn bits(positions: &[[f32; 3]]) -> Vec<[u32; 3]> {
    positions.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// The statistics of the cloth's last step, read through the C ABI.
pub fn c_stats(cloth: XpbdClothId) -> xpbd_cloth::ClothStats {
    let mut stats = std::mem::MaybeUninit::<xpbd_cloth::ClothStats>::uninit();
    // SAFETY: valid out-parameter, fully written on success (`ok` panics otherwise).
    unsafe {
        ok(xpbd_cloth_get_stats(cloth, stats.as_mut_ptr()));
        stats.assume_init()
    }
}

/// `target/<profile>/deps`, next to this test binary: `cargo test` builds the package's cdylib
/// there for this run (it copies it up to `target/<profile>` only for `cargo build`, so that copy
/// may be stale).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().expect("target/<profile>/deps/<test>").to_path_buf();
    let lib = dir.join(format!("{DLL_PREFIX}xpbd_cloth{DLL_SUFFIX}"));
    assert!(lib.exists(), "{} is missing: cargo builds the cdylib before the tests", lib.display());
    dir
}

/// The C example's scene through the Rust API: the final positions [m] in render order, the
/// bottom-edge midpoint [m] (mean of the two middle bottom vertices) and the max edge strain.
pub fn rust_hanging_cloth_positions() -> (Vec<[f32; 3]>, [f32; 3], f32) {
    let n = 32;
    let (positions, indices) = hanging_grid(n);
    let mut world = World::new(WorldDesc::default()).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let mut out = vec![[0.0f32; 3]; positions.len()];
    c.read_positions(&mut out).unwrap();
    let (left, right) = (out[(n - 1) * n + n / 2 - 1], out[(n - 1) * n + n / 2]);
    let mid = [0, 1, 2].map(|k| 0.5 * (left[k] + right[k]));
    (out, mid, c.stats().max_edge_strain)
}

/// `rust_hanging_cloth_positions` without the positions: what `examples/c/hanging_cloth.c` prints.
pub fn rust_hanging_cloth() -> ([f32; 3], f32) {
    let (_, mid, strain) = rust_hanging_cloth_positions();
    (mid, strain)
}
