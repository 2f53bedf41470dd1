//! Sign and distance on triangle soup (issue targets): a torus, a box with an inner face, with a
//! duplicated face, with a 1 cm hole and with a flipped triangle. Inside points are negative,
//! outside positive, and within the band |error| ≤ half a cell against the brute-force distance
//! to the triangles; the mesh report counts what was found.

use super::tests::Oracle;
use super::*;
use crate::test_util::uniform;

const CELL: f32 = 0.01;
const HALF: f32 = 0.15;

/// A torus about +Y (ring radius `r0`, tube radius `r1`), `nu` × `nv` quads, outward winding.
fn torus(r0: f32, r1: f32, nu: usize, nv: usize) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let tau = std::f32::consts::TAU;
    let mut positions = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            let (u, v) = (i as f32 / nu as f32 * tau, j as f32 / nv as f32 * tau);
            positions.push([(r0 + r1 * v.cos()) * u.cos(), r1 * v.sin(), (r0 + r1 * v.cos()) * u.sin()]);
        }
    }
    let at = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
    let mut triangles = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            triangles.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            triangles.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    (positions, triangles)
}

/// The cube [−0.15, 0.15]³, each face cut into `n` × `n` quads, wound outward; faces in the
/// order −x, +x, −y, +y, −z, +z, each a run of 2n² triangles.
fn cube(n: usize) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    for axis in 0..3 {
        for side in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u32;
            for j in 0..=n {
                for i in 0..=n {
                    let mut p = [0.0; 3];
                    p[axis] = side * HALF;
                    p[u] = -HALF + 2.0 * HALF * i as f32 / n as f32;
                    p[v] = -HALF + 2.0 * HALF * j as f32 / n as f32;
                    positions.push(p);
                }
            }
            let at = |i: usize, j: usize| base + (j * (n + 1) + i) as u32;
            for j in 0..n {
                for i in 0..n {
                    // u × v = +axis: counter-clockwise seen from outside on the + side.
                    let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                    if side > 0.0 {
                        triangles.extend([[a, b, c], [a, c, d]]);
                    } else {
                        triangles.extend([[a, c, b], [a, d, c]]);
                    }
                }
            }
        }
    }
    (positions, triangles)
}

/// Builds the shape and checks 4 000 random points in ±0.4 m (more than a cell from every
/// triangle): the sign against `inside`, and within the band the distance against the oracle.
fn check(name: &str, positions: &[[f32; 3]], triangles: &[[u32; 3]], inside: impl Fn(Vec3) -> bool) -> MeshShapeReport {
    let shape = MeshShape::build(&MeshShapeDesc { positions, triangles, cell_size: CELL, closed: true }).unwrap();
    let oracle = Oracle::new(positions, triangles);
    let mut next = uniform(0x50f7_0001);
    let (mut worst, mut counts) = (0.0f64, [0, 0]);
    for _ in 0..4000 {
        let p = Vec3::new(next(), next(), next()) * 0.4;
        let (exact, _) = oracle.nearest(p);
        if exact < CELL as f64 {
            continue;
        }
        let (d, _) = shape.distance(p);
        let want_inside = inside(p);
        assert_eq!(d < 0.0, want_inside, "{name}: {d} at {p} (exact distance {exact})");
        counts[want_inside as usize] += 1;
        if exact <= (BAND_CELLS * CELL) as f64 {
            worst = worst.max((d.abs() as f64 - exact).abs());
        }
    }
    eprintln!("{name}: worst |error| in the band {worst:.2e} m, {} outside, {} inside, {:?}", counts[0], counts[1], shape.report());
    assert!(worst <= 0.5 * CELL as f64, "{name}: error {worst} m");
    assert!(counts[0] > 100 && counts[1] > 100, "{name}: {counts:?}");
    shape.report()
}

fn in_cube(p: Vec3) -> bool {
    p.abs().max_element() < HALF
}

#[test]
fn a_torus_is_signed_and_exact_in_the_band() {
    let (positions, triangles) = torus(0.25, 0.1, 64, 24);
    let report = check("torus", &positions, &triangles, |p| (Vec3::new(p.x, 0.0, p.z).length() - 0.25).hypot(p.y) < 0.1);
    assert_eq!(report, MeshShapeReport::default());
}

/// The box of the issue: twelve triangles and one inner face from a top diagonal to the bottom
/// centre, whose diagonal becomes an edge of three triangles.
#[test]
fn an_inner_face_does_not_flip_the_inside() {
    let (mut positions, mut triangles) = cube(1);
    let top: Vec<[u32; 3]> = triangles[6..8].to_vec();
    let diagonal: Vec<u32> = top[0].iter().filter(|v| top[1].contains(v)).copied().collect();
    positions.push([0.0, -HALF, 0.0]);
    triangles.push([diagonal[0], diagonal[1], positions.len() as u32 - 1]);
    let report = check("box with an inner face", &positions, &triangles, in_cube);
    assert_eq!(report.non_manifold_edges, 1, "{report:?}");
}

#[test]
fn a_duplicated_face_is_dropped_and_reported() {
    let (positions, mut triangles) = cube(6);
    let twice = triangles[100];
    triangles.push([twice[1], twice[0], twice[2]]);
    let report = check("box with a duplicated face", &positions, &triangles, in_cube);
    assert_eq!((report.duplicate_triangles, report.boundary_edges, report.non_manifold_edges), (1, 0, 0), "{report:?}");
}

/// A 1 cm square hole (one quad of a 30 × 30 face) in the top face.
#[test]
fn a_one_centimetre_hole_keeps_the_sign() {
    let n = 30;
    let (positions, mut triangles) = cube(n);
    let quad = 3 * 2 * n * n + 2 * (15 * n + 15);
    triangles.drain(quad..quad + 2);
    let report = check("box with a 1 cm hole", &positions, &triangles, in_cube);
    assert_eq!(report.boundary_edges, 4, "{report:?}");
}

/// One triangle wound the wrong way, and a whole mesh wound inward: both repaired and counted.
#[test]
fn flipped_triangles_are_turned_outward() {
    let (positions, mut triangles) = cube(4);
    triangles[40].swap(1, 2);
    let report = check("box with a flipped triangle", &positions, &triangles, in_cube);
    assert_eq!(report.flipped_triangles, 1, "{report:?}");
    let inward: Vec<[u32; 3]> = cube(4).1.iter().map(|&[a, b, c]| [a, c, b]).collect();
    let report = check("box wound inward", &positions, &inward, in_cube);
    assert_eq!(report.flipped_triangles as usize, inward.len(), "{report:?}");
}

/// Vertices split at seams (every face its own vertices, as a UV-mapped export has) are welded.
#[test]
fn seams_are_welded_and_counted() {
    let (positions, triangles) = cube(2);
    let report = MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: CELL, closed: true }).unwrap().report();
    // 6 faces of 3 × 3 vertices each; the distinct positions counted independently of the weld.
    let distinct = {
        let mut keys: Vec<[u32; 3]> = positions.iter().map(|p| p.map(f32::to_bits)).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    };
    assert_eq!(report.welded_vertices as usize, positions.len() - distinct, "{report:?}");
    assert_eq!((report.boundary_edges, report.non_manifold_edges), (0, 0), "{report:?}");
}
