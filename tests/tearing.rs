//! Tearing (docs/design.md, "Tearing"): scripted cuts against a cut computed here from the mesh
//! alone, a sheet pulled apart until it tears, the same bits at any thread count, snapshots of a
//! torn cloth, and what a tear does to pressure.

mod common;

use common::grid;
use std::collections::HashMap;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, World, WorldDesc};

/// Union-find root of `k`.
fn root(parent: &mut [usize], mut k: usize) -> usize {
    while parent[k] != k {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    k
}

/// The render mesh a renderer sees: indices (render vertex per triangle corner) and each render
/// vertex's vertex as created.
fn render_mesh(world: &World, cloth: ClothHandle) -> (Vec<[u32; 3]>, Vec<u32>) {
    let c = world.cloth(cloth).unwrap();
    let counts = c.render_counts();
    let mut indices = vec![[0u32; 3]; counts.triangle_count as usize];
    let mut sources = vec![0u32; counts.vertex_count as usize];
    c.read_indices(&mut indices).unwrap();
    c.read_vertex_sources(&mut sources).unwrap();
    (indices, sources)
}

/// The cut computed from the mesh as created and a set of cut edges alone: per triangle corner,
/// the group of the corner's vertex it belongs to, the groups being the triangles around the
/// vertex that a chain of uncut edges at the vertex joins (numbered by their lowest triangle).
fn reference_groups(indices: &[u32], cut: &[[u32; 2]]) -> Vec<[usize; 3]> {
    let triangles: Vec<[u32; 3]> = indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let is_cut = |a: u32, b: u32| cut.iter().any(|&[x, y]| (x == a && y == b) || (x == b && y == a));
    let mut around: HashMap<u32, Vec<usize>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for &v in tri {
            around.entry(v).or_default().push(t);
        }
    }
    let mut groups = vec![[0usize; 3]; triangles.len()];
    for (&v, fan) in &around {
        let mut parent: Vec<usize> = (0..fan.len()).collect();
        for i in 0..fan.len() {
            for j in i + 1..fan.len() {
                // Joined across an edge (v, r) both have, unless it is cut.
                let shared = triangles[fan[i]].iter().any(|&r| r != v && triangles[fan[j]].contains(&r) && !is_cut(v, r));
                if shared {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        for (k, &t) in fan.iter().enumerate() {
            let corner = triangles[t].iter().position(|&c| c == v).unwrap();
            groups[t][corner] = fan[root(&mut parent, k)];
        }
    }
    groups
}

/// The cloth's render mesh agrees with the reference cut of `cut` from the mesh as created
/// (`indices`, every vertex its own particle): each corner's vertex descends from the corner as
/// created; two corners of one vertex as created share a render vertex exactly when the reference
/// puts them in one group; the group of the vertex's lowest triangle keeps the vertex's index; no
/// other render vertex exists.
fn assert_cut_agrees(world: &World, cloth: ClothHandle, indices: &[u32], cut: &[[u32; 2]]) {
    let (now, sources) = render_mesh(world, cloth);
    let groups = reference_groups(indices, cut);
    let mut vertex_of_group: HashMap<(u32, usize), u32> = HashMap::new();
    for (t, tri) in now.iter().enumerate() {
        for k in 0..3 {
            let created = indices[3 * t + k];
            assert_eq!(sources[tri[k] as usize], created, "triangle {t} corner {k}: source");
            let group = groups[t][k];
            let v = *vertex_of_group.entry((created, group)).or_insert(tri[k]);
            assert_eq!(v, tri[k], "triangle {t} corner {k}: the reference's group of vertex {created} has two render vertices");
        }
    }
    // Distinct groups map to distinct render vertices, and the count matches.
    let mut seen: HashMap<u32, (u32, usize)> = HashMap::new();
    for (&key, &v) in &vertex_of_group {
        if let Some(other) = seen.insert(v, key) {
            panic!("render vertex {v} serves two reference groups {other:?} and {key:?}");
        }
    }
    assert_eq!(vertex_of_group.len(), sources.len(), "render vertices beyond the reference's groups");
    // The group holding a vertex's lowest triangle keeps the vertex's own index.
    for (&(created, group), &v) in &vertex_of_group {
        let lowest = (0..indices.len() / 3).find(|&t| indices[3 * t..3 * t + 3].contains(&created)).unwrap();
        if group == lowest {
            assert_eq!(v, created, "vertex {created}: its lowest triangle's group keeps its index");
        }
    }
}

fn one_thread() -> WorldDesc {
    WorldDesc { thread_count: 1, ..WorldDesc::default() }
}

/// A tearable horizontal `n × n` grid of side 1 m, every vertex its own particle.
fn tearable_sheet(world: &mut World, n: usize, params: ClothParams) -> (ClothHandle, Vec<[f32; 3]>, Vec<u32>) {
    let (positions, indices) = grid(n, n, 1.0, 1.0, |u, v| [u, 1.0, v]);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 4 * n as u32;
    desc.params = params;
    let cloth = world.add_cloth(&desc).unwrap();
    (cloth, positions, indices)
}

/// A cut along a row of edges, one `tear` call per edge: after every call the render mesh is the
/// reference cut of the edges cut so far; the last one parts the sheet into the two pieces above
/// and below the row.
#[test]
fn scripted_cuts_along_a_line_agree_with_the_reference_cut() {
    let n = 12;
    let mut world = World::new(one_thread()).unwrap();
    let (cloth, _, indices) = tearable_sheet(&mut world, n, ClothParams::default());
    let row = 5;
    let mut cut = Vec::new();
    for i in 0..n - 1 {
        let (a, b) = ((row * n + i) as u32, (row * n + i + 1) as u32);
        let changed = world.cloth_mut(cloth).unwrap().tear(a, b).unwrap();
        assert!(changed, "edge {a}-{b}");
        cut.push([a, b]);
        assert_cut_agrees(&world, cloth, &indices, &cut);
        assert_eq!(world.cloth(cloth).unwrap().render_counts().topology_version, cut.len() as u32);
    }
    let (now, _) = render_mesh(&world, cloth);
    assert_eq!(pieces(&now).len(), 2, "a cut across the whole sheet parts it in two");
    // Cutting an edge again changes nothing.
    assert!(!world.cloth_mut(cloth).unwrap().tear((row * n) as u32, (row * n + 1) as u32).unwrap());
}

/// The pieces of a render mesh: triangles joined through shared render vertices.
fn pieces(indices: &[[u32; 3]]) -> Vec<Vec<usize>> {
    let vertices = indices.iter().flatten().map(|&v| v as usize + 1).max().unwrap_or(0);
    let mut parent: Vec<usize> = (0..indices.len() + vertices).collect();
    for (t, tri) in indices.iter().enumerate() {
        for &v in tri {
            let (a, b) = (root(&mut parent, t), root(&mut parent, indices.len() + v as usize));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
    for t in 0..indices.len() {
        let r = root(&mut parent, t);
        by_root.entry(r).or_default().push(t);
    }
    by_root.into_values().collect()
}

/// The strains (‖xᵢ − xⱼ‖/L − 1) of every edge of the cloth's mesh now.
fn edge_strains(world: &World, cloth: ClothHandle) -> Vec<f32> {
    let c = world.cloth(cloth).unwrap();
    let (x, view) = (c.particle_positions(), c.stretch_constraints());
    view.edges.iter().zip(view.rest_length).map(|(&[i, j], &l)| x[i as usize].distance(x[j as usize]) / l - 1.0).collect()
}

/// The pieces the cut edges of a render mesh imply: the triangles as created, joined across every
/// edge as created whose two triangles still share both its render vertices now (`now`), grouped.
fn pieces_the_cuts_imply(created: &[u32], now: &[[u32; 3]]) -> Vec<Vec<usize>> {
    let triangles: Vec<[u32; 3]> = created.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let mut by_edge: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(t);
        }
    }
    let corner = |t: usize, v: u32| now[t][triangles[t].iter().position(|&c| c == v).unwrap()];
    let mut parent: Vec<usize> = (0..triangles.len()).collect();
    for (&(a, b), ts) in &by_edge {
        for pair in ts.windows(2) {
            let (s, t) = (pair[0], pair[1]);
            if corner(s, a) == corner(t, a) && corner(s, b) == corner(t, b) {
                let (r, q) = (root(&mut parent, s), root(&mut parent, t));
                parent[r.max(q)] = r.min(q);
            }
        }
    }
    let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
    for t in 0..triangles.len() {
        let r = root(&mut parent, t);
        by_root.entry(r).or_default().push(t);
    }
    let mut out: Vec<Vec<usize>> = by_root.into_values().collect();
    out.sort();
    out
}

/// A vertical 32² sheet of 1 m, held by pins along its top and bottom rows, pulled apart at 0.5 m/s
/// until it tears (tear strain 0.3): it parts into exactly the pieces its cut edges imply (the
/// pieces joined through shared render vertices), both pinned rows in different pieces; nothing
/// goes NaN; after every step no edge is longer than the tear strain allows; every render
/// vertex's source is a vertex as created, and copying each source's UV gives every triangle the
/// UVs it was created with.
#[test]
fn a_sheet_pulled_apart_by_its_pinned_edges_tears_into_the_pieces_its_cuts_imply_with_tear_strain_set() {
    let n = 32;
    let (positions, indices) = grid(n, n, 1.0, 1.0, |u, v| [u, -v, 0.0]);
    let mut world = World::new(one_thread()).unwrap();
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 8 * n as u32;
    desc.params.tear_strain = Some(0.3);
    let cloth = world.add_cloth(&desc).unwrap();
    let top: Vec<u32> = (0..n as u32).collect();
    let bottom: Vec<u32> = ((n * (n - 1)) as u32..(n * n) as u32).collect();
    let c = world.cloth_mut(cloth).unwrap();
    c.set_pinned(&top, None).unwrap();
    c.set_pinned(&bottom, None).unwrap();
    let dt = 1.0 / 60.0;
    let mut drop = 0.0f32;
    let mut torn_at = None;
    for step in 0..240 {
        drop += 0.5 * dt;
        let targets: Vec<[f32; 3]> = bottom.iter().map(|&v| [positions[v as usize][0], -1.0 - drop, 0.0]).collect();
        world.cloth_mut(cloth).unwrap().set_pin_targets(&bottom, &targets).unwrap();
        world.step(dt).unwrap();
        let c = world.cloth(cloth).unwrap();
        assert!(c.particle_positions().iter().all(|p| p.is_finite()), "step {step}: NaN");
        let worst = edge_strains(&world, cloth).into_iter().fold(0.0f32, f32::max);
        assert!(worst <= 0.3 * 1.001, "step {step}: an edge at strain {worst} after the step");
        let (now, _) = render_mesh(&world, cloth);
        if torn_at.is_none() && pieces(&now).len() > 1 {
            torn_at = Some((step, drop));
        }
        if torn_at.is_some_and(|(s, _)| step >= s + 30) {
            break;
        }
    }
    let (step, drop) = torn_at.expect("the sheet never tore");
    // The tethers hold each half within its rest distance of its own pins, so the row where the
    // halves meet takes the whole pull: it tears once that row's edges pass 30 % (a third of the
    // 3.2 cm edge), in one step.
    assert!(drop > 0.3 / 31.0 && drop < 0.1, "tore at step {step} after a drop of {drop} m");
    let (now, sources) = render_mesh(&world, cloth);
    let mut found = pieces(&now);
    found.sort();
    for p in found.iter_mut() {
        p.sort();
    }
    assert_eq!(found, pieces_the_cuts_imply(&indices, &now));
    let piece_of = |vertex: u32| found.iter().position(|p| p.iter().any(|&t| indices[3 * t..3 * t + 3].contains(&vertex))).unwrap();
    assert_ne!(piece_of(top[n / 2]), piece_of(bottom[n / 2]), "the pinned rows are still joined");
    // Sources and UVs.
    let created = positions.len() as u32;
    assert!(sources.iter().all(|&s| s < created));
    let uv: Vec<[f32; 2]> = positions.iter().map(|p| [p[0], -p[1]]).collect();
    let copied: Vec<[f32; 2]> = sources.iter().map(|&s| uv[s as usize]).collect();
    for (t, tri) in now.iter().enumerate() {
        for k in 0..3 {
            assert_eq!(copied[tri[k] as usize], uv[indices[3 * t + k] as usize], "triangle {t} corner {k}");
        }
    }
    let stats = *world.cloth(cloth).unwrap().stats();
    assert_eq!(stats.torn_edges_last_step, 0, "nothing tears once apart");
}

/// Scripted cuts, then steps with strain tearing, in worlds of 1, 2 and 4 threads: the same state
/// hash and the same render mesh.
#[test]
fn torn_cloth_steps_to_the_same_bits_at_1_2_and_4_threads() {
    let run = |threads: u32| {
        let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
        // 96² is split over the threads of a pool (above the split threshold).
        let params = ClothParams { tear_strain: Some(0.2), ..ClothParams::default() };
        let (cloth, positions, _) = tearable_sheet(&mut world, 96, params);
        let n = 96u32;
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, n - 1], None).unwrap();
        for i in 20..60 {
            world.cloth_mut(cloth).unwrap().tear(40 * n + i, 40 * n + i + 1).unwrap();
        }
        let mut hashes = Vec::new();
        for step in 0..40 {
            if step == 10 {
                // A yank: the corners pulled apart fast enough to tear.
                let targets = [[positions[0][0] - 0.15, 1.0, 0.0], [positions[95][0] + 0.15, 1.0, 0.0]];
                world.cloth_mut(cloth).unwrap().set_pin_targets(&[0, n - 1], &targets).unwrap();
            }
            world.step(1.0 / 60.0).unwrap();
            hashes.push(world.cloth(cloth).unwrap().state_hash());
        }
        let torn = world.cloth(cloth).unwrap().render_counts();
        (hashes, render_mesh(&world, cloth), torn)
    };
    let one = run(1);
    assert!(one.2.topology_version > 40, "strain tearing happened too: {:?}", one.2);
    for threads in [2, 4] {
        let other = run(threads);
        assert!(other.0 == one.0, "state hashes differ at {threads} threads");
        assert!(other.1 == one.1, "render meshes differ at {threads} threads");
    }
}

/// A torn cloth as [`topology_and_state`] reads it.
type TornState = (xpbd_cloth::RenderCounts, Vec<[u32; 3]>, Vec<u32>, Vec<u32>, Vec<u32>);

/// Everything that describes a cloth's torn mesh and state, as bits: render counts, indices,
/// vertex sources, the particle map, positions and velocities.
fn topology_and_state(world: &World, cloth: ClothHandle) -> TornState {
    let c = world.cloth(cloth).unwrap();
    let (indices, sources) = render_mesh(world, cloth);
    let bits: Vec<u32> = c.particle_positions().iter().chain(c.particle_velocities()).flat_map(|v| v.to_array().map(f32::to_bits)).collect();
    (c.render_counts(), indices, sources, c.particle_map().to_vec(), bits)
}

/// A torn flag-like sheet: pinned at two corners, cut along a row, then stepped until strain
/// tears it further.
fn torn_sheet(world: &mut World) -> (ClothHandle, Vec<u32>) {
    let n = 20u32;
    let params = ClothParams { tear_strain: Some(0.15), ..ClothParams::default() };
    let (cloth, _, indices) = tearable_sheet(world, n as usize, params);
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, n - 1], None).unwrap();
    for i in 3..12 {
        world.cloth_mut(cloth).unwrap().tear(8 * n + i, 8 * n + i + 1).unwrap();
    }
    for _ in 0..20 {
        world.step(1.0 / 60.0).unwrap();
    }
    (cloth, indices)
}

fn snapshot(world: &World, cloth: ClothHandle) -> Vec<u8> {
    let c = world.cloth(cloth).unwrap();
    let mut buf = vec![0u8; c.state_size()];
    c.save_state(&mut buf).unwrap();
    buf
}

/// A snapshot taken after a tear restores the torn topology bit for bit: into the same cloth after
/// it tore further (the mesh made again from the snapshot's cuts), into a fresh cloth of the same
/// mesh, and back into the cloth with the cuts it has (then the steps after it are those after the
/// save, bit for bit). A snapshot from before the first cut un-tears the cloth.
#[test]
fn a_snapshot_after_a_tear_restores_the_torn_topology_bit_for_bit() {
    let mut world = World::new(one_thread()).unwrap();
    let before_tear = {
        let n = 20;
        let params = ClothParams { tear_strain: Some(0.15), ..ClothParams::default() };
        let (fresh, _, _) = tearable_sheet(&mut world, n, params);
        let s = snapshot(&world, fresh);
        world.remove_cloth(fresh).unwrap();
        s
    };
    let (cloth, indices) = torn_sheet(&mut world);
    let saved = snapshot(&world, cloth);
    let at_save = topology_and_state(&world, cloth);
    assert!(at_save.0.topology_version >= 9, "{:?}", at_save.0);
    // The steps after the save, for the bit-for-bit check of a restore that keeps the cuts.
    let mut after = Vec::new();
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
        after.push(world.cloth(cloth).unwrap().state_hash());
    }
    world.cloth_mut(cloth).unwrap().restore_state(&saved).unwrap();
    for expected in &after {
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(world.cloth(cloth).unwrap().state_hash(), *expected, "steps after a restore with the same cuts");
    }
    // Tear further, then restore: the mesh of the save comes back.
    let n = 20u32;
    for i in 12..18 {
        let (a, b) = (14 * n + i, 14 * n + i + 1);
        world.cloth_mut(cloth).unwrap().tear(a, b).unwrap();
    }
    assert_ne!(topology_and_state(&world, cloth).1, at_save.1);
    world.cloth_mut(cloth).unwrap().restore_state(&saved).unwrap();
    let restored = topology_and_state(&world, cloth);
    assert_eq!((&restored.1, &restored.2, &restored.3, &restored.4), (&at_save.1, &at_save.2, &at_save.3, &at_save.4));
    assert_eq!(restored.0.vertex_count, at_save.0.vertex_count);
    assert!(restored.0.topology_version > at_save.0.topology_version, "a changed mesh has a new version");
    world.step(1.0 / 60.0).unwrap();
    // Into a fresh cloth of the same mesh.
    let params = ClothParams { tear_strain: Some(0.15), ..ClothParams::default() };
    let (fresh, _, _) = tearable_sheet(&mut world, 20, params);
    world.cloth_mut(fresh).unwrap().restore_state(&saved).unwrap();
    let other = topology_and_state(&world, fresh);
    assert_eq!((&other.1, &other.2, &other.3, &other.4), (&at_save.1, &at_save.2, &at_save.3, &at_save.4));
    // From before the first cut: the mesh as created.
    world.cloth_mut(cloth).unwrap().restore_state(&before_tear).unwrap();
    let (untorn, sources) = render_mesh(&world, cloth);
    let created: Vec<[u32; 3]> = indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    assert_eq!(untorn, created);
    assert_eq!(sources, (0..400).collect::<Vec<u32>>());
    world.step(1.0 / 60.0).unwrap();
}

/// Snapshots a cloth cannot take are refused and change nothing: cuts into a cloth that cannot
/// tear, cuts that do not fit the mesh (a forged pair, with a correct checksum), a version-1
/// snapshot (no cuts) of another particle count; a version-1 snapshot of the mesh as created is
/// read.
#[test]
fn snapshots_with_cuts_a_cloth_cannot_make_are_refused() {
    let mut world = World::new(one_thread()).unwrap();
    let (cloth, _) = torn_sheet(&mut world);
    let saved = snapshot(&world, cloth);
    let (positions, indices) = grid(20, 20, 1.0, 1.0, |u, v| [u, 1.0, v]);
    let plain = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let before = topology_and_state(&world, plain);
    let error = world.cloth_mut(plain).unwrap().restore_state(&saved).unwrap_err();
    assert!(error.to_string().contains("cannot make"), "{error}");
    assert_eq!(topology_and_state(&world, plain), before);
    // A forged cut (a particle beyond the mesh), checksum made to match.
    let mut forged = saved.clone();
    let len = forged.len();
    forged[len - 16..len - 12].copy_from_slice(&100_000u32.to_le_bytes());
    let checksum = forged[..len - 8].iter().fold(0xcbf29ce484222325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3));
    forged[len - 8..].copy_from_slice(&checksum.to_le_bytes());
    let torn = topology_and_state(&world, cloth);
    let error = world.cloth_mut(cloth).unwrap().restore_state(&forged).unwrap_err();
    assert!(error.to_string().contains("cannot make"), "{error}");
    assert_eq!(topology_and_state(&world, cloth), torn);
    // Version 1: the same bytes without the cut section.
    let v1 = |buf: &[u8]| {
        let cuts = u32::from_le_bytes(buf[buf.len() - 12..buf.len() - 8].try_into().unwrap()) as usize;
        assert_eq!(cuts, 0);
        let mut out = buf[..buf.len() - 12].to_vec();
        out[8..12].copy_from_slice(&1u32.to_le_bytes());
        let size = out.len() as u64 + 8;
        out[16..24].copy_from_slice(&size.to_le_bytes());
        let checksum = out.iter().fold(0xcbf29ce484222325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3));
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    };
    world.step(1.0 / 60.0).unwrap();
    let plain_v1 = v1(&snapshot(&world, plain));
    let after = topology_and_state(&world, plain);
    world.step(1.0 / 60.0).unwrap();
    world.cloth_mut(plain).unwrap().restore_state(&plain_v1).unwrap();
    assert_eq!(topology_and_state(&world, plain), after);
    // Into the torn cloth (which can tear): version 1 means no cuts, so it un-tears.
    world.cloth_mut(cloth).unwrap().restore_state(&plain_v1).unwrap();
    assert_eq!(world.cloth(cloth).unwrap().render_counts().vertex_count, 400);
}
