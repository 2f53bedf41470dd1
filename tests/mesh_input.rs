//! Render-mesh input: welding of split seams and every validation error.

mod common;
use common::*;
use xpbd_cloth::{ClothDesc, ClothError, ClothParams, World, WorldDesc};

// ---------------------------------------------------------------- 8. welding

/// Positions and indices of the sheet, then of the split sheet, then (copy, original) pairs.
type SplitSheet = (Vec<[f32; 3]>, Vec<u32>, Vec<[f32; 3]>, Vec<u32>, Vec<(u32, u32)>);

/// The 9 × 9 vertical sheet with its middle column duplicated as an engine splits a UV seam: the
/// copies are appended after the original vertices, and the triangles right of the seam use them.
fn split_sheet() -> SplitSheet {
    let n = 9usize;
    let (positions, indices) = vertical_sheet(n, 1.0);
    let seam = n / 2;
    let mut split_positions = positions.clone();
    let mut copies = Vec::new(); // (original, copy)
    for j in 0..n {
        let original = (j * n + seam) as u32;
        copies.push((original, split_positions.len() as u32));
        split_positions.push(positions[original as usize]);
    }
    let copy_of = |v: u32| copies.iter().find(|(o, _)| *o == v).map(|(_, c)| *c);
    let mut split_indices = indices.clone();
    for tri in split_indices.chunks_exact_mut(3) {
        // A triangle is right of the seam if any corner's column is greater than the seam's.
        if tri.iter().any(|&v| v as usize % n > seam) {
            for v in tri.iter_mut() {
                if let Some(c) = copy_of(*v) {
                    *v = c;
                }
            }
        }
    }
    (positions, indices, split_positions, split_indices, copies)
}

#[test]
fn split_seam_simulates_exactly_like_the_unsplit_grid() {
    let (positions, indices, split_positions, split_indices, copies) = split_sheet();
    let params = ClothParams { external_acceleration: [0.0, 0.0, 3.0], ..ClothParams::default() };
    let run = |p: &[[f32; 3]], i: &[u32]| {
        let (mut world, cloth) = world_with_cloth(WorldDesc::default(), p, i, params);
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 8], None).unwrap();
        for _ in 0..90 {
            world.step(1.0 / 60.0).unwrap();
        }
        let c = world.cloth(cloth).unwrap();
        let mut normals = vec![[0.0; 3]; c.vertex_count() as usize];
        c.read_normals(&mut normals).unwrap();
        (common::positions(&world, cloth), normals, c.particle_count(), c.particle_map().to_vec())
    };
    let (unsplit, unsplit_normals, unsplit_particles, _) = run(&positions, &indices);
    let (split, split_normals, split_particles, map) = run(&split_positions, &split_indices);
    assert_eq!(split_particles, unsplit_particles, "the seam copies must weld");
    assert_eq!(&split[..positions.len()], &unsplit[..], "welded mesh must simulate bit for bit like the unsplit one");
    for (original, copy) in copies {
        assert_eq!(map[copy as usize], map[original as usize]);
        assert_eq!(split[copy as usize], split[original as usize], "both copies read the same position");
        assert_eq!(split_normals[copy as usize], split_normals[original as usize], "normals smooth across the seam");
    }
    assert_eq!(&split_normals[..positions.len()], &unsplit_normals[..]);
}

#[test]
fn zero_weld_tolerance_keeps_the_seam_open() {
    let (_, _, split_positions, split_indices, _) = split_sheet();
    let mut world = World::new(WorldDesc::default()).unwrap();
    let mut desc = ClothDesc::new(&split_positions, &split_indices);
    desc.weld_tolerance = 0.0;
    let cloth = world.add_cloth(&desc).unwrap();
    assert_eq!(world.cloth(cloth).unwrap().particle_count() as usize, split_positions.len());
}

#[test]
fn normals_are_unit_and_follow_the_winding() {
    // Counter-clockwise seen from +z: the vertical sheet's triangles face +z or −z consistently.
    let (positions, indices) = vertical_sheet(5, 1.0);
    let (world, cloth) = world_with_cloth(WorldDesc::default(), &positions, &indices, ClothParams::default());
    let mut normals = vec![[0.0; 3]; positions.len()];
    world.cloth(cloth).unwrap().read_normals(&mut normals).unwrap();
    let [a, b, c] = [0, 1, 2].map(|k| xpbd_cloth::Vec3::from(positions[indices[k] as usize]));
    let face = (b - a).cross(c - a).normalize();
    for n in normals {
        let n = xpbd_cloth::Vec3::from(n);
        assert!((n.length() - 1.0).abs() < 1e-5);
        assert!((n - face).length() < 1e-5, "normal {n} vs face {face}");
    }
}

// ---------------------------------------------------------------- 9. validation errors

fn create(positions: &[[f32; 3]], indices: &[u32], tweak: impl FnOnce(&mut ClothDesc)) -> Result<(), ClothError> {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let mut desc = ClothDesc::new(positions, indices);
    tweak(&mut desc);
    let result = world.add_cloth(&desc).map(|_| ());
    if result.is_err() {
        assert_eq!(world.cloth_count(), 0, "a rejected cloth must not be half-created");
    }
    result
}

const TRI: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

#[test]
fn each_validation_error_comes_from_a_minimal_bad_mesh() {
    use ClothError::*;
    assert_eq!(create(&[], &[], |_| {}), Err(EmptyMesh));
    assert_eq!(create(&TRI, &[0, 1], |_| {}), Err(IndexCountNotMultipleOfThree { len: 2 }));
    assert_eq!(
        create(&TRI, &[0, 1, 2, 0, 2, 7], |_| {}),
        Err(IndexOutOfRange { triangle: 1, index: 7, vertex_count: 3 })
    );
    let nan = [[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert_eq!(create(&nan, &[0, 1, 2], |_| {}), Err(NonFiniteVertex { vertex: 1 }));
    let inf = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, f32::INFINITY, 0.0]];
    assert_eq!(create(&inf, &[0, 1, 2], |_| {}), Err(NonFiniteVertex { vertex: 2 }));
    // Finite but beyond ±1e5 m: edge lengths would overflow in a step (found by the ABI fuzzer:
    // such a mesh was accepted and turned into NaN). The bound itself is accepted.
    let far = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0e30]];
    assert_eq!(create(&far, &[0, 1, 2], |_| {}), Err(NonFiniteVertex { vertex: 2 }));
    let at_bound = [[1.0e5, 0.0, 0.0], [1.0e5 - 1.0, 0.0, 0.0], [1.0e5, 1.0, 0.0]];
    assert!(create(&at_bound, &[0, 1, 2], |_| {}).is_ok());
    // More than 2^28 vertices: the sweeps address a particle's row by 16 × index in a u32. The
    // zeroed array is never touched (its pages are never mapped): the count is checked first.
    let huge = vec![[0.0f32; 3]; xpbd_cloth::mesh::MAX_VERTICES + 1];
    assert_eq!(create(&huge, &[], |_| {}), Err(MeshTooLarge { count: (1 << 28) + 1 }));
    drop(huge);
    let collinear = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    assert_eq!(create(&collinear, &[0, 1, 2], |_| {}), Err(DegenerateTriangle { triangle: 0 }));
    assert_eq!(create(&TRI, &[0, 1, 2, 0, 0, 1], |_| {}), Err(DegenerateTriangle { triangle: 1 }));
    // Two corners closer than the weld tolerance become one particle: degenerate after welding.
    let welded = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1e-7, 0.0]];
    assert_eq!(create(&welded, &[0, 1, 2], |_| {}), Err(DegenerateTriangle { triangle: 0 }));
    assert_eq!(
        create(&TRI, &[0, 1, 2], |d| d.inverse_masses = Some(&[1.0, 1.0])),
        Err(InverseMassCountMismatch { expected: 3, got: 2 })
    );
    assert!(matches!(
        create(&TRI, &[0, 1, 2], |d| d.inverse_masses = Some(&[1.0, -1.0, 1.0])),
        Err(InvalidInverseMass { vertex: 1, .. })
    ));
    assert_eq!(
        create(&TRI, &[0, 1, 2], |d| d.lines = &[[0, 1], [2, 9]]),
        Err(LineIndexOutOfRange { line: 1, index: 9, vertex_count: 3 })
    );
    assert_eq!(create(&TRI, &[0, 1, 2], |d| d.lines = &[[1, 1]]), Err(DegenerateLine { line: 0 }));
    for (name, tweak) in [
        ("stretch_compliance", Box::new(|d: &mut ClothDesc| d.params.stretch_compliance = Some(-1.0)) as Box<dyn FnOnce(&mut ClothDesc)>),
        ("bend_compliance", Box::new(|d: &mut ClothDesc| d.params.bend_compliance = Some(f32::NAN))),
        // Above `MAX_COMPLIANCE` α/h² overflows to ∞ and the first projection gives NaN.
        ("tether_compliance", Box::new(|d: &mut ClothDesc| d.params.tether_compliance = 1.0e21)),
        ("stretch_compliance", Box::new(|d: &mut ClothDesc| d.params.stretch_compliance = Some(f32::MAX))),
        ("tether_slack", Box::new(|d: &mut ClothDesc| d.params.tether_slack = 0.5)),
        ("weld_tolerance", Box::new(|d: &mut ClothDesc| d.weld_tolerance = -1.0)),
        ("areal_density", Box::new(|d: &mut ClothDesc| d.params.material.areal_density = 0.0)),
        ("substeps", Box::new(|d: &mut ClothDesc| d.params.substeps = 100_000)),
    ] {
        match create(&TRI, &[0, 1, 2], tweak) {
            Err(InvalidParameter { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    // Messages name the offending index.
    assert!(IndexOutOfRange { triangle: 1, index: 7, vertex_count: 3 }.to_string().contains("triangle 1"));
}

#[test]
fn unusual_but_valid_meshes_are_accepted() {
    // Zero triangles: free particles that fall.
    let (mut world, cloth) = world_with_cloth(WorldDesc::default(), &TRI, &[], ClothParams::default());
    world.step(0.1).unwrap();
    let fallen = positions(&world, cloth);
    assert!(fallen.iter().zip(&TRI).all(|(p, p0)| p[1] - p0[1] < -0.04), "{fallen:?}");
    // All vertices pinned: nothing moves, nothing is NaN.
    let (mut world, cloth) = world_with_cloth(WorldDesc::default(), &TRI, &[0, 1, 2], ClothParams::default());
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 1, 2], None).unwrap();
    world.step(0.1).unwrap();
    assert_eq!(positions(&world, cloth), TRI.to_vec());
    // A vertex used by no triangle is a free particle with the mean mass.
    let four = [TRI[0], TRI[1], TRI[2], [5.0, 5.0, 5.0]];
    let (world, cloth) = world_with_cloth(WorldDesc::default(), &four, &[0, 1, 2], ClothParams::default());
    let c = world.cloth(cloth).unwrap();
    assert_eq!(c.info().isolated_particles, 1);
    let w = c.particle_inverse_masses();
    assert!((w[3] - w[0]).abs() < 1e-3 * w[0]);
}

#[test]
fn non_manifold_edges_keep_stretch_and_lose_bending() {
    let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]];
    let (world, cloth) = world_with_cloth(WorldDesc::default(), &p, &[0, 1, 2, 1, 0, 3, 0, 1, 4], ClothParams::default());
    let info = world.cloth(cloth).unwrap().info();
    assert_eq!((info.non_manifold_edges, info.edge_count, info.hinge_count), (1, 7, 0));
}

#[test]
fn bad_pins_and_steps_leave_state_unchanged() {
    let (mut world, cloth) = world_with_cloth(WorldDesc::default(), &TRI, &[0, 1, 2], ClothParams::default());
    let c = world.cloth_mut(cloth).unwrap();
    assert_eq!(
        c.set_pinned(&[0, 5], None),
        Err(ClothError::VertexOutOfRange { position: 1, vertex: 5, vertex_count: 3 })
    );
    assert_eq!(c.set_pinned(&[0], Some(&[[f32::NAN, 0.0, 0.0]])), Err(ClothError::NonFiniteTarget { position: 0 }));
    // A finite target at 1e30 m used to be accepted and made the next step NaN (ABI fuzzer).
    assert_eq!(
        c.set_pinned(&[1, 0], Some(&[[0.0; 3], [1.0e30, 0.0, 0.0]])),
        Err(ClothError::NonFiniteTarget { position: 1 })
    );
    assert_eq!(c.set_pinned(&[0, 1], Some(&[[0.0; 3]])), Err(ClothError::BufferSizeMismatch { expected: 2, got: 1 }));
    assert!(c.pinned_particles().is_empty(), "a rejected pin call changed the pins");
    assert_eq!(c.set_pin_targets(&[2], &[[0.0; 3]]), Err(ClothError::VertexNotPinned { vertex: 2 }));
    let mut short = vec![[0.0; 3]; 2];
    assert_eq!(c.read_positions(&mut short), Err(ClothError::BufferSizeMismatch { expected: 3, got: 2 }));
    for dt in [0.0, -1.0, f32::NAN, 1.5] {
        assert!(matches!(world.step(dt), Err(ClothError::InvalidTimeStep { .. })));
    }
    assert_eq!(positions(&world, cloth), TRI.to_vec());
    let stale = cloth;
    world.remove_cloth(cloth).unwrap();
    assert_eq!(world.cloth(stale).err(), Some(ClothError::InvalidHandle));
    assert!(world.remove_cloth(stale).is_err(), "double remove");
    let reused = world.add_cloth(&ClothDesc::new(&TRI, &[0, 1, 2])).unwrap();
    assert_eq!(reused.index, stale.index);
    assert!(world.cloth(stale).is_err(), "a stale handle must not reach the slot's new cloth");
}

#[test]
fn moved_pins_arrive_at_the_end_of_the_step_without_teleporting() {
    let (mut world, cloth) = world_with_cloth(
        WorldDesc { gravity: [0.0; 3], substeps: 4, ..WorldDesc::default() },
        &TRI,
        &[0, 1, 2],
        ClothParams::default(),
    );
    world.cloth_mut(cloth).unwrap().set_pinned(&[0], None).unwrap();
    world.cloth_mut(cloth).unwrap().set_pin_targets(&[0], &[[0.4, 0.0, 0.0]]).unwrap();
    world.step(0.1).unwrap();
    let c = world.cloth(cloth).unwrap();
    assert_eq!(positions(&world, cloth)[0], [0.4, 0.0, 0.0]);
    // Moved 0.4 m over 4 substeps of 0.025 s, 0.1 m each: the kinematic velocity is 4 m/s, not
    // the 16 m/s a jump in the last substep would give.
    let v = c.particle_velocities()[0];
    assert!((v.x - 4.0).abs() < 1e-3, "pin velocity {v}");
}
