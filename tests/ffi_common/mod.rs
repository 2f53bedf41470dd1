//! Scenes shared by the C ABI tests.
#![allow(dead_code)] // each test file uses a different part

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::PathBuf;
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ColliderDesc, World, WorldDesc};

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

/// A cloth of the default settings in `world` from render vertices and triangle indices, through
/// the C ABI.
pub fn c_cloth(world: XpbdWorldId, positions: &[[f32; 3]], indices: &[u32]) -> XpbdClothId {
    let desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        ..xpbd_default_cloth_desc()
    };
    let mut cloth = XpbdClothId::default();
    // SAFETY: the arrays outlive the call and hold the counts passed; valid out-parameter.
    ok(unsafe { xpbd_cloth_create(world, &desc, &mut cloth) });
    cloth
}

/// A `n × n` hanging grid in `world`, pinned at its two top corners, through the C ABI.
pub fn c_hanging_cloth(world: XpbdWorldId, n: usize) -> XpbdClothId {
    let (positions, indices) = hanging_grid(n);
    let cloth = c_cloth(world, &positions, &indices);
    let corners = [0, n as u32 - 1];
    // SAFETY: the array outlives the call and holds the count passed.
    ok(unsafe { xpbd_cloth_set_pinned(cloth, corners.as_ptr(), 2, std::ptr::null()) });
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

/// The statistics of the cloth's last step, read through the C ABI, field by field as the Rust
/// API's (so that a field the ABI drops or swaps shows in a comparison with it).
pub fn c_stats(cloth: XpbdClothId) -> xpbd_cloth::ClothStats {
    let mut stats = std::mem::MaybeUninit::<XpbdClothStats>::uninit();
    // SAFETY: valid out-parameter, fully written on success (`ok` panics otherwise).
    let s = unsafe {
        ok(xpbd_cloth_get_stats(cloth, stats.as_mut_ptr()));
        stats.assume_init()
    };
    let c = |c: XpbdConstraintStats| xpbd_cloth::ConstraintStats {
        count: c.count,
        mean_abs_c: c.mean_abs_c,
        p95_abs_c: c.p95_abs_c,
        max_abs_c: c.max_abs_c,
        min_force: c.min_force,
        max_force: c.max_force,
    };
    xpbd_cloth::ClothStats {
        stretch: c(s.stretch),
        bending: c(s.bending),
        tether: c(s.tether),
        max_edge_strain: s.max_edge_strain,
        substeps: s.substeps,
        iterations: s.iterations,
        contact_count: s.contact_count,
        max_penetration: s.max_penetration,
        self_pairs_tested: s.self_pairs_tested,
        self_contact_count: s.self_contact_count,
        inter_cloth_pairs_tested: s.inter_cloth_pairs_tested,
        strain_p50: s.strain_p50,
        strain_p95: s.strain_p95,
        strain_p99: s.strain_p99,
        pin_strain: s.pin_strain,
        torn_edges_last_step: s.torn_edges_last_step,
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

/// What `examples/c/drape_on_sphere.c` ends with, through the Rust API.
pub struct DrapeOnSphere {
    /// Every position [m] in render order.
    pub positions: Vec<[f32; 3]>,
    /// The vertex over the sphere's top [m] (vertex (16, 16) of 32 × 32).
    pub top: [f32; 3],
    /// y [m] of the lowest vertex.
    pub lowest: f32,
    /// The reported max penetration [m] of the last step.
    pub penetration: f32,
    /// The reported contact count of the last step.
    pub contacts: u32,
    /// `Cloth::state_hash` at the end.
    pub state_hash: u64,
}

/// The C sphere example's scene through the Rust API: a 32 × 32 cloth (1 m) 0.3 m above a sphere
/// of radius 0.3 m at the origin, default parameters, 120 steps at 60 Hz.
pub fn rust_drape_on_sphere() -> DrapeOnSphere {
    let (n, radius) = (32, 0.3);
    let (positions, indices) = flat_grid(n, 1.0, 2.0 * radius);
    let mut world = World::new(WorldDesc::default()).unwrap();
    world.add_collider(&ColliderDesc::sphere(radius)).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let mut out = vec![[0.0f32; 3]; positions.len()];
    c.read_positions(&mut out).unwrap();
    DrapeOnSphere {
        top: out[n / 2 * n + n / 2],
        lowest: out.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min),
        penetration: c.stats().max_penetration,
        contacts: c.stats().contact_count,
        state_hash: c.state_hash(),
        positions: out,
    }
}

/// This thread's last error message from the library (up to 1 023 bytes).
pub fn last_message() -> String {
    let mut buf = vec![0 as std::ffi::c_char; 1024];
    // SAFETY: buf holds 1024 writable bytes; the library NUL-terminates within them.
    unsafe {
        xpbd_last_error_message(buf.as_mut_ptr(), buf.len());
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

/// The cloth's state hash, read through the C ABI.
pub fn state_hash(cloth: XpbdClothId) -> u64 {
    let mut h = 0;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_state_hash(cloth, &mut h) });
    h
}
