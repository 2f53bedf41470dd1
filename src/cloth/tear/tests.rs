//! What a cut repairs in place equals what building from scratch gives for the torn mesh: the
//! edges and hinges of its triangles (without the hinges of cut edges), each particle's
//! triangles, the areas and masses, the layout's edges, hinges and tethers.

use super::super::Cloth;
use super::super::model::ClothModel;
use super::topology::edge_bit;
use crate::constraints::TetherConstraints;
use crate::mesh::{MeshTopology, ParticleTriangles};
use crate::test_util::grid;
use crate::{ClothDesc, ClothParams};
use std::collections::BTreeSet;

/// Edges of a list as sorted pairs.
fn edge_set(edges: &[[u32; 2]]) -> BTreeSet<[u32; 2]> {
    edges.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect()
}

/// A hinge as (its edge sorted, its two opposite corners sorted).
fn hinge_key(h: [u32; 4]) -> ([u32; 2], [u32; 2]) {
    ([h[2].min(h[3]), h[2].max(h[3])], [h[0].min(h[1]), h[0].max(h[1])])
}

/// The model of `cloth` against a topology built from its torn triangles.
fn assert_model_rebuilds(cloth: &Cloth) {
    let m: &ClothModel = &cloth.model;
    let topo = m.tear.as_ref().unwrap();
    let fresh = MeshTopology::build(&m.triangles, &[], &m.rest);
    assert_eq!(edge_set(&m.constraints.edges), edge_set(&fresh.edges), "edges");
    assert_eq!(m.constraints.edges.len(), fresh.edges.len(), "an edge twice");
    // Hinges: those of the fresh topology whose edge is not cut.
    let cut = |a: u32, b: u32| {
        m.triangles.iter().enumerate().any(|(t, tri)| tri.contains(&a) && tri.contains(&b) && topo.cut[t] & edge_bit(*tri, a, b) != 0)
    };
    let expected: BTreeSet<_> = fresh.hinges.iter().copied().filter(|h| !cut(h[2], h[3])).map(hinge_key).collect();
    let got: BTreeSet<_> = m.constraints.hinges.iter().copied().map(hinge_key).collect();
    assert_eq!(got, expected, "hinges");
    assert_eq!(m.constraints.hinges.len(), expected.len());
    let rows = ParticleTriangles::build(&m.triangles, m.rest.len());
    for p in 0..m.rest.len() {
        assert_eq!(m.particle_triangles.of(p), rows.of(p), "triangles of particle {p}");
    }
    // Per edge, the rest area of its triangles.
    for (e, &[a, b]) in m.constraints.edges.iter().enumerate() {
        let f = fresh.edges.iter().position(|&[c, d]| [c.min(d), c.max(d)] == [a.min(b), a.max(b)]).unwrap();
        let (got, want) = (m.edge_adjacent_area[e], fresh.edge_adjacent_area[f]);
        assert!((got - want).abs() <= 1e-6 * want.max(1e-6), "edge {e}: area {got} vs {want}");
    }
    // Particle areas: a third of each triangle's.
    let mut area = vec![0.0f32; m.rest.len()];
    for (tri, a) in m.triangles.iter().zip(&fresh.triangle_area) {
        for &p in tri {
            area[p as usize] += a / 3.0;
        }
    }
    for (p, (&got, &want)) in m.particle_area.iter().zip(&area).enumerate() {
        assert!((got - want).abs() <= 1e-6 * want.max(1e-6), "particle {p}: area {got} vs {want}");
    }
    // Render triangles name the particles of their simulated triangles.
    for r in &m.render_triangles {
        let mut key = r.map(|v| m.particle_of_vertex[v as usize]);
        key.sort_unstable();
        assert!(m.triangles.iter().any(|t| {
            let mut k = *t;
            k.sort_unstable();
            k == key
        }), "render triangle {r:?}");
    }
}

/// The layout of `cloth` against the model: its edges and hinges are the model's, each stored
/// once, the colouring valid, the edges at each particle listed, and the tethers those a search
/// from scratch finds.
fn assert_layout_follows(cloth: &Cloth) {
    let (m, l) = (&cloth.model, &cloth.layout);
    assert_eq!(edge_set(l.stretch.edges()), edge_set(&m.constraints.edges));
    assert_eq!(l.stretch.edges().len(), m.constraints.edges.len());
    for (k, &c) in l.edge_creation.iter().enumerate() {
        assert_eq!(l.stretch.edges()[k], m.constraints.edges[c as usize]);
        assert_eq!(l.stretch.rest_length()[k].to_bits(), m.constraints.rest_length[c as usize].to_bits());
    }
    for (k, &h) in l.hinge_creation.iter().enumerate() {
        assert_eq!(l.bending.hinges()[k], m.constraints.hinges[h as usize]);
    }
    assert_eq!(l.bending.hinges().len(), m.constraints.hinges.len());
    let n = m.rest.len();
    if !l.stretch.colour_start().is_empty() {
        assert!(crate::constraints::colouring::colouring_is_valid(l.stretch.edges(), l.stretch.colour_start(), n), "stretch colours");
        assert!(crate::constraints::colouring::colouring_is_valid(l.bending.hinges(), l.bending.colour_start(), n), "bending colours");
    }
    for p in 0..n {
        let listed: Vec<usize> = l.edges_at(p).map(|(e, _)| e).collect();
        let expected: Vec<usize> = (0..l.stretch.edges().len()).filter(|&e| l.stretch.edges()[e].contains(&(p as u32))).collect();
        assert_eq!(listed, expected, "edges at particle {p}");
    }
    let mut fresh = TetherConstraints::build(n, &m.constraints.distance_links, &m.constraints.distance_length, &cloth.config.w);
    if m.constraints.planar {
        fresh.straighten(&m.constraints.positions);
    }
    fresh.put_straight_groups_first(&cloth.state.x);
    assert_eq!(l.tethers.particle(), fresh.particle(), "tether particles");
    assert_eq!(l.tethers.anchor(), fresh.anchor(), "tether anchors");
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(l.tethers.geodesic_distance()), bits(fresh.geodesic_distance()), "tether distances");
    assert_eq!(l.tethers.full_groups_end(), fresh.full_groups_end());
    assert_eq!(cloth.scratch.stretch_lambda.len(), l.stretch.edges().len());
    assert_eq!(cloth.scratch.bend_lambda.len(), l.bending.hinges().len());
    assert_eq!(cloth.scratch.tether_lambda.len(), l.tethers.particle().len());
    assert_eq!(cloth.config.stretch_compliance.len(), l.stretch.edges().len());
    // Masses from the torn areas.
    let mut w = vec![0.0; n];
    m.free_inverse_masses(&cloth.config.params.material, &mut w);
    assert_eq!(bits(&w), bits(&cloth.config.w_free));
}

/// A tearable 16² grid pinned at two corners with tethers.
fn tearable(coloured: bool) -> Cloth {
    let (positions, indices) = grid(16, 0.05, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 200;
    desc.params = ClothParams { enable_tethers: true, ..ClothParams::default() };
    let mut cloth = Cloth::new(&desc).unwrap();
    cloth.set_pinned(&[0, 15], None).unwrap();
    cloth.set_constraint_colouring(coloured);
    cloth.settle_layout();
    cloth
}

/// Cuts along a row, a column into it, a zig-zag and a cut to the boundary, checked after each.
#[test]
fn cuts_repair_the_model_and_layout_to_what_a_build_from_scratch_gives() {
    for coloured in [true, false] {
        let mut cloth = tearable(coloured);
        let n = 16u32;
        let mut cuts: Vec<[u32; 2]> = (3..11).map(|i| [7 * n + i, 7 * n + i + 1]).collect();
        cuts.extend((2..7).map(|j| [j * n + 6, (j + 1) * n + 6]));
        cuts.extend([[10 * n + 2, 10 * n + 3], [10 * n + 3, 11 * n + 3], [11 * n + 3, 11 * n + 4], [11 * n + 4, 12 * n + 4]]);
        cuts.extend((0..4).map(|i| [13 * n + i, 13 * n + i + 1]));
        for [a, b] in cuts {
            // The render vertices of the edge now: the cut may have split them.
            let (a, b) = now_of(&cloth, a, b);
            cloth.tear(a, b).unwrap();
            assert_model_rebuilds(&cloth);
            assert_layout_follows(&cloth);
        }
    }
}

/// Render vertices (as created `a`, `b`, or one split from them) that are the two ends of an
/// edge now.
fn now_of(cloth: &Cloth, a: u32, b: u32) -> (u32, u32) {
    let m = &cloth.model;
    let t = m.tear.as_ref().unwrap();
    for r in &m.render_triangles {
        for k in 0..3 {
            let (u, v) = (r[k], r[(k + 1) % 3]);
            if (t.source_of(u), t.source_of(v)) == (a, b) {
                return (u, v);
            }
            if (t.source_of(u), t.source_of(v)) == (b, a) {
                return (v, u);
            }
        }
    }
    panic!("no edge {a}-{b}");
}

/// A tearable 5² grid asked for 1 << 28 extra vertices reserves only what cuts can reach (the
/// request would be tens of GB): its room starts at 3 × 32 triangles − 25 vertices = 71, and
/// cutting every inner edge, which leaves every triangle corner its own vertex, uses exactly that
/// without a capacity error.
#[test]
fn room_beyond_what_cuts_can_reach_is_not_reserved_and_a_shattered_sheet_uses_all_of_it() {
    let (positions, indices) = grid(5, 0.1, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 1 << 28;
    let mut cloth = Cloth::new(&desc).unwrap();
    let triangles = indices.len() / 3;
    assert_eq!(cloth.extra_vertices_left() as usize, 3 * triangles - positions.len());
    let edges: BTreeSet<[u32; 2]> = indices.chunks_exact(3).flat_map(|t| (0..3).map(move |k| [t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3])])).collect();
    for [a, b] in edges {
        let (a, b) = now_of(&cloth, a, b);
        cloth.tear(a, b).unwrap();
    }
    assert_eq!(cloth.render_counts().vertex_count as usize, 3 * triangles, "every corner its own vertex");
    assert_eq!(cloth.extra_vertices_left(), 0);
}
