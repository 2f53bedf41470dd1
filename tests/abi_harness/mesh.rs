//! Small render meshes for the call-sequence harness: valid grids (sometimes split along UV-seam
//! style duplicates, sometimes with extra lines, sometimes free particles) and the same meshes
//! with exactly one defect that `xpbd_cloth_create` must answer with `XPBD_RESULT_INVALID_MESH`.

use super::input::Input;

/// A mesh to pass to `xpbd_cloth_create` and whether it has a defect.
pub struct MeshCase {
    pub positions: Vec<[f32; 3]>,
    /// `3*triangle_count` render vertex indices.
    pub indices: Vec<u32>,
    /// `2*line_count` render vertex indices.
    pub lines: Vec<u32>,
    /// One of: an index or line end out of range, a NaN/Inf coordinate, a triangle or line using
    /// one vertex twice, no vertices.
    pub mesh_error: bool,
}

/// An nx × ny grid (2..=4 each) with spacing 0.1–1 m, vertical or horizontal, plus variations.
/// Spacing ≥ 0.1 m keeps distinct vertices far beyond every weld tolerance the harness uses
/// (≤ 0.01 m), so only the deliberate duplicates weld.
pub fn small_mesh(r: &mut Input) -> MeshCase {
    let (nx, ny) = (2 + r.below(3), 2 + r.below(3));
    let spacing = r.pick(&[0.1, 0.25, 1.0]);
    let vertical = r.chance(50);
    let origin = [r.tame_f32(), r.tame_f32(), r.tame_f32()];
    let mut positions = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let (a, b) = (i as f32 * spacing, j as f32 * spacing);
            let local = if vertical { [a, -b, 0.0] } else { [a, 0.0, b] };
            positions.push([origin[0] + local[0], origin[1] + local[1], origin[2] + local[2]]);
        }
    }
    let mut indices = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = j * nx + i;
            indices.extend_from_slice(&[a, a + nx, a + 1, a + 1, a + nx, a + nx + 1]);
        }
    }
    let n = positions.len() as u32;
    if r.chance(30) {
        // A seam: every vertex duplicated, odd triangles use the copies (welding joins them
        // again; with weld tolerance 0 the cloth falls apart into pieces, which is valid too).
        positions.extend_from_within(..);
        for (t, tri) in indices.chunks_mut(3).enumerate() {
            if t % 2 == 1 {
                tri.iter_mut().for_each(|v| *v += n);
            }
        }
    }
    if r.chance(10) {
        indices.clear(); // free particles (lines only, if any)
    }
    let mut lines = Vec::new();
    if r.chance(25) {
        lines.extend_from_slice(&[0, n - 1]);
    }
    let vc = positions.len() as u32;
    let mut mesh_error = true;
    match r.below(40) {
        0 if !indices.is_empty() => {
            let k = r.below(indices.len() as u32) as usize;
            indices[k] = r.pick(&[vc, vc + 1, u32::MAX]);
        }
        1 => {
            let v = r.below(vc) as usize;
            positions[v][r.below(3) as usize] = r.pick(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
        }
        2 if !indices.is_empty() => {
            let t = 3 * r.below(indices.len() as u32 / 3) as usize;
            indices[t + 1] = indices[t];
        }
        3 => {
            let v = r.below(vc);
            lines.extend_from_slice(&[v, v]);
        }
        4 => lines.extend_from_slice(&[0, r.pick(&[vc, u32::MAX])]),
        5 => {
            positions.clear();
            indices.clear();
            lines.clear();
        }
        _ => mesh_error = false,
    }
    MeshCase { positions, indices, lines, mesh_error }
}

/// Fuzz target (a) and its property test: a mesh read from arbitrary bytes — counts, indices
/// (mostly in range, sometimes any value), coordinates (tame, special: NaN, ±Inf, huge, denormal,
/// or any bit pattern), weld tolerance, inverse masses — created through `xpbd_cloth_create` in a
/// fresh world. The result must be the documented code (the checks the ABI makes before welding
/// are predicted exactly; after welding only degenerate triangles and lines may still fail, with
/// `XPBD_RESULT_INVALID_MESH`). A created cloth must report consistent counts and map, read back
/// its input positions, accept pins read from the input (or reject them as documented), step and
/// read back; destroying the world must leave nothing alive.
pub fn check_arbitrary_mesh(bytes: &[u8]) -> super::Harness {
    use super::{Harness, live_counts, outcome};
    use XpbdResult::{InvalidArgument, InvalidMesh, Ok as OK};
    use xpbd_cloth::ffi::*;

    let mut h = Harness::default();
    let r = &mut Input::new(bytes);
    let vertex_count = match r.below(8) {
        0 => 0,
        1 => r.below(1024),
        _ => 1 + r.below(24),
    };
    let coordinate_mode = r.below(4);
    let positions: Vec<[f32; 3]> = (0..vertex_count)
        .map(|_| {
            [0; 3].map(|_| match coordinate_mode {
                0 => r.raw_f32(),
                1 => r.wild_f32(),
                _ if r.chance(2) => r.wild_f32(),
                _ => r.tame_f32(),
            })
        })
        .collect();
    let triangle_count = match r.below(8) {
        0 => r.below(512),
        _ => r.below(2 * vertex_count + 1),
    };
    let indices: Vec<u32> = (0..3 * triangle_count)
        .map(|_| match r.below(32) {
            0 => r.u32(),
            1 => vertex_count,
            _ => r.below(vertex_count),
        })
        .collect();
    let line_count = if r.chance(20) { r.below(8) } else { 0 };
    let lines: Vec<u32> = (0..2 * line_count).map(|_| r.below(vertex_count + 1)).collect();
    let inverse_masses: Option<Vec<f32>> = r.chance(30).then(|| {
        (0..vertex_count).map(|_| if r.chance(5) { r.wild_f32() } else { r.pick(&[1.0, 0.0, 3.0, 1e-20]) }).collect()
    });
    let weld_tolerance = match r.below(4) {
        0 => r.wild_f32(),
        1 => r.pick(&[0.0, 1.0, 1e-30, 0.5]),
        _ => r.pick(&[1e-6, 1e-3, 0.05]),
    };

    let mut desc = xpbd_default_cloth_desc();
    desc.positions = positions.as_ptr().cast();
    desc.vertex_count = vertex_count;
    desc.indices = indices.as_ptr();
    desc.triangle_count = triangle_count;
    desc.lines = lines.as_ptr();
    desc.line_count = line_count;
    desc.inverse_masses = inverse_masses.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
    desc.weld_tolerance = weld_tolerance;
    desc.substeps = 2;

    let world_desc = XpbdWorldDesc { thread_count: 1, ..xpbd_default_world_desc() };
    let mut world = XpbdWorldId::default();
    // SAFETY: valid descriptor and out-parameter.
    let got = unsafe { xpbd_world_create(&world_desc, &mut world) };
    h.expect("xpbd_world_create", format_args!("thread_count 1"), got, OK);
    // Known to the harness so that a failed check destroys it (Harness's Drop).
    h.worlds.push(super::WorldModel { id: world, cloths: Vec::new(), colliders: Vec::new() });

    // The checks before welding, in the order the core makes them.
    let bad_weld = !(0.0..=1.0).contains(&weld_tolerance);
    let bad_position = vertex_count == 0 || positions.iter().flatten().any(|c| !(c.abs() <= 1.0e5));
    let bad_index = indices.iter().any(|&i| i >= vertex_count);
    let bad_mass = inverse_masses.as_ref().is_some_and(|m| m.iter().any(|w| !(w.is_finite() && *w >= 0.0)));
    let want =
        outcome(&[(bad_weld, InvalidArgument), (bad_position || bad_index, InvalidMesh), (bad_mass, InvalidArgument)]);
    let mut cloth = XpbdClothId::default();
    // SAFETY: every array holds the count `desc` gives for it.
    let got = unsafe { xpbd_cloth_create(world, &desc, &mut cloth) };
    // After welding: degenerate triangles (incl. corners welded together) and lines.
    let want = if want == OK && got == InvalidMesh { InvalidMesh } else { want };
    let args = format_args!(
        "{vertex_count} vertices, {triangle_count} triangles, {line_count} lines, weld {weld_tolerance:e}"
    );
    h.expect("xpbd_cloth_create", args, got, want);
    if live_counts() != [1, (got == OK) as u32, 0] {
        panic!("after xpbd_cloth_create -> {got:?}: live counts {:?}", live_counts());
    }
    if got == OK {
        check_created(&mut h, r, cloth, &positions, weld_tolerance);
    }
    let got = xpbd_world_destroy(world);
    h.expect("xpbd_world_destroy", format_args!("{:#x}", world.id), got, OK);
    h.worlds.clear();
    assert_eq!(live_counts(), [0; 3], "objects left after destroying the world");
    h
}

/// The checks on a cloth that `check_arbitrary_mesh` created.
fn check_created(
    h: &mut super::Harness,
    r: &mut Input,
    cloth: xpbd_cloth::ffi::XpbdClothId,
    positions: &[[f32; 3]],
    weld: f32,
) {
    use XpbdResult::{InvalidArgument, Ok as OK};
    use xpbd_cloth::ffi::*;

    let vc = positions.len() as u32;
    let (mut vertices, mut particles) = (0, 0);
    let mut map = vec![u32::MAX; positions.len()];
    let mut read = vec![[f32::NAN; 3]; positions.len()];
    // SAFETY: valid out-parameters; `map` and `read` hold vc elements.
    let codes = unsafe {
        [
            xpbd_cloth_vertex_count(cloth, &mut vertices),
            xpbd_cloth_particle_count(cloth, &mut particles),
            xpbd_cloth_read_particle_map(cloth, map.as_mut_ptr(), vc),
            xpbd_cloth_read_positions(cloth, read.as_mut_ptr().cast(), vc),
        ]
    };
    assert_eq!(codes, [OK; 4], "reading a new cloth: {}", super::last_error());
    assert_eq!(vertices, vc);
    assert!(particles >= 1 && particles <= vc, "{particles} particles for {vc} vertices");
    assert!(map.iter().all(|&p| p < particles), "particle map out of range: {map:?}");
    for (v, (got, given)) in read.iter().zip(positions).enumerate() {
        // Without welding every vertex reads back exactly; with it, its particle's position,
        // which is one of the welded input positions (all finite here).
        if weld == 0.0 {
            assert_eq!(got.map(f32::to_bits), given.map(f32::to_bits), "vertex {v} read back");
        } else {
            assert!(got.iter().all(|c| c.is_finite()), "vertex {v} reads {got:?}");
        }
    }
    // Pins from the input: some in range, maybe one not; targets NULL, tame or wild.
    let pins: Vec<u32> = (0..r.below(6)).map(|_| if r.chance(10) { vc + r.below(3) } else { r.below(vc) }).collect();
    let targets: Option<Vec<[f32; 3]>> = r
        .chance(50)
        .then(|| pins.iter().map(|_| [0; 3].map(|_| if r.chance(10) { r.wild_f32() } else { r.tame_f32() })).collect());
    let bad = pins.iter().any(|&v| v >= vc) || targets.iter().flatten().flatten().any(|c| !(c.abs() <= 1.0e5));
    let tptr = targets.as_ref().map_or(std::ptr::null(), |t| t.as_ptr().cast::<f32>());
    // SAFETY: `pins` holds count u32s, `targets` NULL or 3*count floats.
    let got = unsafe { xpbd_cloth_set_pinned(cloth, pins.as_ptr(), pins.len() as u32, tptr) };
    let want = if bad { InvalidArgument } else { OK };
    h.expect("xpbd_cloth_set_pinned", format_args!("{pins:?}, {targets:?}"), got, want);
    let world = XpbdWorldId { id: cloth.id & 0xFFFF_FFFF };
    for step in 0..r.below(4) {
        // Pin targets up to 1e5 m away can drag the cloth beyond its explosion guard's bound in
        // the steps after the jump (as in `op_world_step`): SIMULATION_UNSTABLE, cloth restored.
        let got = xpbd_world_step(world, 1.0 / 60.0);
        let want = if got == XpbdResult::SimulationUnstable { got } else { OK };
        h.expect("xpbd_world_step", format_args!("step {step}"), got, want);
    }
    let mut normals = vec![[0f32; 3]; positions.len()];
    let mut hash = 0;
    // SAFETY: `read`/`normals` hold vc 3-vectors; valid out-parameter.
    let codes = unsafe {
        [
            xpbd_cloth_read_positions(cloth, read.as_mut_ptr().cast(), vc),
            xpbd_cloth_read_normals(cloth, normals.as_mut_ptr().cast(), vc),
            xpbd_cloth_state_hash(cloth, &mut hash),
        ]
    };
    assert_eq!(codes, [OK; 3], "reading after steps: {}", super::last_error());
    assert!(read.iter().flatten().all(|c| c.is_finite()), "positions after steps: {read:?}");
}
