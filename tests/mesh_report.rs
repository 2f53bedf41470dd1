//! What creation makes of a mesh (`Cloth::info`, `xpbd_cloth_get_mesh_report`) and the mass
//! reads, on the bundled meshes and on meshes built to have each defect: welded seams, duplicate
//! (double-sided) triangles, mixed winding, non-manifold edges.

mod common;
mod ffi_common;

use std::path::Path;
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ClothParams, World, WorldDesc};

/// Every object of an OBJ file in one vertex and index list (tobj, positions only).
fn load_all(path: &str) -> (Vec<[f32; 3]>, Vec<u32>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let options = tobj::LoadOptions { single_index: false, triangulate: true, ignore_points: true, ignore_lines: true };
    let (models, _) = tobj::load_obj(&path, &options).unwrap();
    let (mut positions, mut indices) = (Vec::new(), Vec::new());
    for m in &models {
        let base = positions.len() as u32;
        positions.extend(m.mesh.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
        indices.extend(m.mesh.indices.iter().map(|i| i + base));
    }
    (positions, indices)
}

fn world() -> World {
    World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap()
}

/// The mannequin's engine vertex buffer: 7 609 vertices share a position with another, and the
/// welded mesh has 3 non-manifold edges and 42 edges of inconsistent winding (the facts measured
/// on the file with other tools, data/README.md); after creation no edge is inconsistent.
#[test]
fn the_mannequin_reports_its_seams_non_manifold_edges_and_winding() {
    let (positions, indices) = load_all("data/mannequin_engine_split.obj");
    let mut w = world();
    let cloth = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let info = w.cloth(cloth).unwrap().info();
    println!("mannequin: {info:?}");
    assert_eq!(info.vertex_count, 12597);
    assert_eq!(info.welded_vertices, 7609);
    assert_eq!(info.non_manifold_edges, 3);
    assert_eq!(info.inconsistent_winding_edges, 42);
    assert!(info.flipped_triangles > 0 && info.flipped_triangles < info.triangle_count / 2);
    // Two of its triangles are copies of others (the non-manifold edges' third triangles): dropped,
    // every interior edge of the repaired mesh has a hinge.
    assert_eq!(info.duplicate_triangles, 2);
    assert_eq!(info.skipped_hinges, 0);
}

/// The bundled sheets: nothing welded (shared OBJ positions), nothing to repair, every interior
/// edge a hinge; the flag grid's mass is its areal density times its 1 m².
#[test]
fn the_bundled_sheets_need_no_repair_and_weigh_their_area() {
    for (file, area) in [("data/plane_50x50.obj", Some(1.0f32)), ("data/tablecloth.obj", None)] {
        let (positions, indices) = load_all(file);
        let mut w = world();
        let cloth = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        let c = w.cloth(cloth).unwrap();
        let info = c.info();
        println!("{file}: {info:?}, mass {} kg", c.total_mass());
        assert_eq!((info.welded_vertices, info.duplicate_triangles, info.inconsistent_winding_edges, info.flipped_triangles), (0, 0, 0, 0));
        assert_eq!((info.non_manifold_edges, info.skipped_hinges), (0, 0));
        assert_eq!(info.hinge_count, info.edge_count - info.boundary_edges);
        if let Some(area) = area {
            let expected = ClothParams::default().material.areal_density * area;
            assert!((c.total_mass() - expected).abs() < 1e-4 * expected, "{} kg, expected {expected}", c.total_mass());
        }
    }
}

/// A double-sided sheet (every triangle again, reversed, on copies of the vertices that weld
/// onto the originals) becomes the one-sided sheet: the duplicates are dropped, so it has the
/// same mass, hinges and motion (state hash after 1 s) as the sheet itself.
#[test]
fn a_double_sided_sheet_simulates_as_the_sheet() {
    let (positions, indices) = common::vertical_sheet(12, 0.5);
    let n = positions.len() as u32;
    let mut two_positions = positions.clone();
    two_positions.extend_from_slice(&positions);
    let mut two_indices = indices.clone();
    two_indices.extend(indices.chunks_exact(3).flat_map(|t| [t[0] + n, t[2] + n, t[1] + n]));
    let run = |p: &[[f32; 3]], i: &[u32]| {
        let mut w = world();
        let cloth = w.add_cloth(&ClothDesc::new(p, i)).unwrap();
        w.cloth_mut(cloth).unwrap().set_pinned(&[0, 11], None).unwrap();
        for _ in 0..60 {
            w.step(1.0 / 60.0).unwrap();
        }
        let c = w.cloth(cloth).unwrap();
        (c.info(), c.total_mass(), c.state_hash())
    };
    let (one, two) = (run(&positions, &indices), run(&two_positions, &two_indices));
    assert_eq!(two.0.duplicate_triangles, one.0.triangle_count);
    assert_eq!(two.0.welded_vertices, 2 * n);
    // As given, every interior edge had four triangles; after dropping the copies each has a hinge.
    assert_eq!((two.0.triangle_count, two.0.hinge_count, two.0.skipped_hinges), (one.0.triangle_count, one.0.hinge_count, 0));
    assert_eq!(two.0.non_manifold_edges, one.0.hinge_count);
    assert_eq!(two.1, one.1, "the same mass");
    assert_eq!(two.2, one.2, "the same motion, bit for bit");
}

/// A sheet with every third triangle's winding reversed is made consistent with the majority at
/// creation and then simulates bit for bit as the consistent sheet (the mixed winding used to
/// change the result by 0.3 mm in 2 s).
#[test]
fn mixed_winding_is_made_consistent_and_simulates_as_the_consistent_mesh() {
    let (positions, indices) = common::vertical_sheet(16, 0.5);
    let mixed: Vec<u32> = indices.chunks_exact(3).enumerate().flat_map(|(k, t)| if k % 3 == 0 { [t[0], t[2], t[1]] } else { [t[0], t[1], t[2]] }).collect();
    let run = |i: &[u32]| {
        let mut w = world();
        let cloth = w.add_cloth(&ClothDesc::new(&positions, i)).unwrap();
        w.cloth_mut(cloth).unwrap().set_pinned(&[0, 15], None).unwrap();
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        let c = w.cloth(cloth).unwrap();
        (c.info(), c.state_hash())
    };
    let (consistent, repaired) = (run(&indices), run(&mixed));
    assert_eq!((consistent.0.inconsistent_winding_edges, consistent.0.flipped_triangles), (0, 0));
    assert_eq!(repaired.0.flipped_triangles, (indices.len() / 3).div_ceil(3) as u32);
    assert!(repaired.0.inconsistent_winding_edges > 100);
    assert_eq!(repaired.1, consistent.1, "bit for bit");
}

/// Three triangles on one edge (a fin): one non-manifold edge, no hinge on it.
#[test]
fn a_fin_has_one_non_manifold_edge_and_skips_its_hinge() {
    let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.5, -1.0, 0.0], [0.5, 0.0, 1.0]];
    let indices = [0, 1, 2, 1, 0, 3, 0, 1, 4];
    let mut w = world();
    let cloth = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let info = w.cloth(cloth).unwrap().info();
    assert_eq!((info.non_manifold_edges, info.hinge_count, info.skipped_hinges), (1, 0, 1));
}

/// The masses per render vertex: a welded copy reads its particle's mass, a vertex given inverse
/// mass 0 reads infinity and is left out of the total, and pinning changes no mass; through the C
/// ABI, the report and masses equal the Rust values and bad calls are refused with `out` untouched.
#[test]
fn masses_and_the_report_read_the_same_through_the_c_abi() {
    let (mut positions, mut indices) = common::vertical_sheet(6, 0.5);
    positions.push(positions[7]);
    indices.extend_from_slice(&[36, 8, 13]);
    let mut inverse = vec![10.0f32; positions.len()];
    inverse[3] = 0.0;
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.inverse_masses = Some(&inverse);
    let mut w = world();
    let cloth = w.add_cloth(&desc).unwrap();
    w.cloth_mut(cloth).unwrap().set_pinned(&[0], None).unwrap();
    let c = w.cloth(cloth).unwrap();
    let mut masses = vec![0.0f32; positions.len()];
    c.read_vertex_masses(&mut masses).unwrap();
    assert_eq!(masses[36], masses[7], "a welded copy reads its particle");
    assert_eq!(masses[3], f32::INFINITY);
    assert!(masses.iter().enumerate().all(|(v, &m)| v == 3 || m == 0.1));
    assert!((c.total_mass() - 0.1 * 35.0).abs() < 1e-5, "{}", c.total_mass());
    assert!(c.read_vertex_masses(&mut [0.0; 3]).is_err());

    let world_id = ffi_common::c_world(1);
    let mut id = XpbdClothId::default();
    let c_desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        inverse_masses: inverse.as_ptr(),
        ..xpbd_default_cloth_desc()
    };
    // SAFETY: the arrays outlive the calls and hold the counts passed; out-parameters are valid.
    unsafe {
        ffi_common::ok(xpbd_cloth_create(world_id, &c_desc, &mut id));
        let mut report = XpbdMeshReport::default();
        ffi_common::ok(xpbd_cloth_get_mesh_report(id, &mut report));
        let info = w.cloth(cloth).unwrap().info();
        assert_eq!((report.vertex_count, report.particle_count, report.welded_vertices), (info.vertex_count, info.particle_count, 2));
        assert_eq!((report.triangle_count, report.hinge_count, report.edge_count), (info.triangle_count, info.hinge_count, info.edge_count));
        assert_eq!(report.total_mass, w.cloth(cloth).unwrap().total_mass());
        let mut c_masses = vec![-1.0f32; positions.len()];
        ffi_common::ok(xpbd_cloth_read_vertex_masses(id, c_masses.as_mut_ptr(), positions.len() as u32));
        assert_eq!(c_masses, masses);
        let mut short = [-1.0f32; 4];
        assert_eq!(xpbd_cloth_read_vertex_masses(id, short.as_mut_ptr(), 4), XpbdResult::BufferSizeMismatch);
        assert_eq!(short, [-1.0; 4]);
        assert_eq!(xpbd_cloth_get_mesh_report(id, std::ptr::null_mut()), XpbdResult::NullPointer);
        assert_eq!(xpbd_cloth_read_vertex_masses(id, std::ptr::null_mut(), 37), XpbdResult::NullPointer);
        assert_eq!(xpbd_world_destroy(world_id), XpbdResult::Ok);
    }
}
