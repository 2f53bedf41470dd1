//! Mesh shape accuracy against an independent brute-force oracle (exact point–triangle distance,
//! generalized winding number for the sign), bad input, sparsity.

use super::*;
use crate::test_util::uniform;

/// Positions and triangles of a bundled OBJ in data/ (`v` and `f` lines; polygons as fans; the
/// `v/vt/vn` forms take the position index).
pub(crate) fn load_obj(name: &str) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let path = format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let c: Vec<f32> = words.take(3).map(|w| w.parse().unwrap()).collect();
                positions.push([c[0], c[1], c[2]]);
            }
            Some("f") => {
                let corners: Vec<u32> = words.map(|w| w.split('/').next().unwrap().parse::<u32>().unwrap() - 1).collect();
                for k in 1..corners.len() - 1 {
                    triangles.push([corners[0], corners[k], corners[k + 1]]);
                }
            }
            _ => {}
        }
    }
    (positions, triangles)
}

/// The oracle: exact distance to the nearest triangle by brute force (an independent
/// barycentric-projection implementation), the closest point, and the winding number.
pub(crate) struct Oracle {
    tris: Vec<[glam::DVec3; 3]>,
}

impl Oracle {
    pub fn new(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Oracle {
        let at = |i: u32| Vec3::from_array(positions[i as usize]).as_dvec3();
        Oracle { tris: triangles.iter().map(|t| [at(t[0]), at(t[1]), at(t[2])]).collect() }
    }

    /// Closest point on triangle [a, b, c] to p: the projection onto the plane if inside,
    /// otherwise the nearest of the three edge segments.
    fn closest(p: glam::DVec3, [a, b, c]: [glam::DVec3; 3]) -> glam::DVec3 {
        let n = (b - a).cross(c - a);
        let q = p - n * (p - a).dot(n) / n.length_squared();
        let inside = [(a, b), (b, c), (c, a)].iter().all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            return q;
        }
        let segment = |u: glam::DVec3, v: glam::DVec3| u + (v - u) * ((p - u).dot(v - u) / (v - u).length_squared()).clamp(0.0, 1.0);
        [segment(a, b), segment(b, c), segment(c, a)].into_iter().min_by(|x, y| x.distance(p).total_cmp(&y.distance(p))).unwrap()
    }

    /// (unsigned distance, closest point).
    pub fn nearest(&self, p: Vec3) -> (f64, glam::DVec3) {
        let p = p.as_dvec3();
        self.tris.iter().map(|&t| Self::closest(p, t)).map(|q| (q.distance(p), q)).min_by(|x, y| x.0.total_cmp(&y.0)).unwrap()
    }

    /// Generalized winding number (Jacobson et al. 2013): Σ solid angles / 4π, the solid angle
    /// from the l'Huilier-free formula Ω = 2·atan2(det, ...) written again here.
    pub fn winding(&self, p: Vec3) -> f64 {
        let p = p.as_dvec3();
        let total: f64 = self
            .tris
            .iter()
            .map(|&[a, b, c]| {
                let (a, b, c) = (a - p, b - p, c - p);
                let (la, lb, lc) = (a.length(), b.length(), c.length());
                2.0 * a.dot(b.cross(c)).atan2(la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb)
            })
            .sum();
        total / (4.0 * std::f64::consts::PI)
    }
}

fn sphere_shape(cell: f32) -> (MeshShape, Oracle, Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let (positions, triangles) = load_obj("sphere.obj");
    let shape = MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: cell, closed: true }).unwrap();
    (shape, Oracle::new(&positions, &triangles), positions, triangles)
}

/// Points whose distance from the unit sphere's surface is within `reach` (uniform direction
/// and radius).
fn shell_points(n: usize, reach: f32, seed: u32) -> Vec<Vec3> {
    let mut next = uniform(seed);
    (0..n)
        .map(|_| loop {
            let d = Vec3::new(next(), next(), next());
            if d.length() > 0.1 && d.length() <= 1.0 {
                break d.normalize() * (1.0 + reach * next());
            }
        })
        .collect()
}

/// Accuracy on sphere.obj at 10 000 points within 0.2 m of the surface: within the band
/// ([`BAND_CELLS`] cells) the distance is within half a cell of the exact signed distance to the
/// triangles; beyond it the value is a lower bound in magnitude (never nearer than the band, never
/// farther than the truth plus half a cell) with the right sign. Normals outside, from three cells
/// to the band's edge, within 7° of the direction from the closest point on the mesh; nearer,
/// within 16°: around an edge that direction turns by the dihedral angle (about 18° on sphere.obj)
/// across a wedge d·18° wide, one to four cells in the band, which the trilinear gradient spreads.
#[test]
fn sphere_distances_are_within_half_a_cell_in_the_band_and_lower_bounds_beyond() {
    let cell = 0.02;
    let (shape, oracle, ..) = sphere_shape(cell);
    let band = (BAND_CELLS * cell) as f64;
    let half = 0.5 * cell as f64;
    let (mut worst, mut worst_angle, mut worst_near, mut outside, mut beyond) = (0.0f64, 0.0f64, 0.0f64, 0, 0);
    for p in shell_points(10_000, 0.2, 0x5eed_0032) {
        let (d, n) = shape.distance(p);
        let (d, (exact, q)) = (d as f64, oracle.nearest(p));
        let exact = if oracle.winding(p) > 0.5 { -exact } else { exact };
        if exact.abs() > band {
            beyond += 1;
            assert_eq!(d < 0.0, exact < 0.0, "sign at {p}: {d} for {exact}");
            assert!(d.abs() <= exact.abs() + half && d.abs() >= band.min(exact.abs() - half), "at {p}: {d} for {exact}");
            continue;
        }
        worst = worst.max((d - exact).abs());
        if exact > 0.0 {
            outside += 1;
            let want = (p.as_dvec3() - q).normalize();
            let angle = n.as_dvec3().dot(want).clamp(-1.0, 1.0).acos().to_degrees();
            if exact >= 3.0 * cell as f64 {
                worst_angle = worst_angle.max(angle);
            } else {
                worst_near = worst_near.max(angle);
            }
        }
    }
    eprintln!(
        "sphere.obj, cell {cell} m, {} bricks, {} bytes: worst distance error in the band {worst:.2e} m, worst normal {worst_angle:.2}° \
         (within three cells of the surface: {worst_near:.2}°; {outside} outside in the band, {beyond} beyond it)",
        shape.stored_bricks(),
        shape.memory_bytes()
    );
    assert!(worst <= half, "distance error {worst} m");
    assert!(worst_angle <= 7.0, "normal off by {worst_angle}°");
    assert!(worst_near <= 16.0, "normal off by {worst_near}° near the surface");
    assert!(outside > 1000 && beyond > 1000, "{outside} outside, {beyond} beyond");
}

/// Sign on the sphere with holes: three triangles removed, the sign of 10 000 points
/// more than two cells from the surface still matches the brute-force winding number of the
/// complete sphere, and the holes make their neighbourhood use winding numbers.
#[test]
fn a_few_holes_do_not_flip_the_inside() {
    let (positions, mut triangles) = load_obj("sphere.obj");
    let oracle = Oracle::new(&positions, &triangles);
    for k in [700, 350, 20] {
        triangles.remove(k);
    }
    let cell = 0.03;
    let shape = MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: cell, closed: true }).unwrap();
    let mut next = uniform(0x00c0_ffee);
    let mut checked = 0;
    for _ in 0..10_000 {
        let p = Vec3::new(next(), next(), next()) * 1.4;
        let (exact, _) = oracle.nearest(p);
        if exact < 2.0 * cell as f64 {
            continue;
        }
        let inside = oracle.winding(p) > 0.5;
        assert_eq!(shape.distance(p).0 < 0.0, inside, "at {p}");
        checked += 1;
    }
    assert!(checked > 8000, "{checked}");
}

/// Sign on spot.obj (the cow) and table.obj: inside negative, outside positive, on
/// 10 000 samples in the bounding box more than a cell from the surface, against the winding
/// number.
#[test]
fn sign_matches_the_winding_number_on_spot_and_the_table() {
    for (name, samples) in [("spot.obj", 5000), ("table.obj", 5000)] {
        let (positions, triangles) = load_obj(name);
        let shape = MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.0, closed: true }).unwrap();
        let oracle = Oracle::new(&positions, &triangles);
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for p in &positions {
            (lo, hi) = (lo.min(Vec3::from_array(*p)), hi.max(Vec3::from_array(*p)));
        }
        let mut next = uniform(0x7ab1_e000);
        let (mut inside, mut outside) = (0, 0);
        for _ in 0..samples {
            let t = Vec3::new(next(), next(), next()) * 0.5 + 0.5;
            let p = lo + (hi - lo) * t;
            let (exact, _) = oracle.nearest(p);
            if exact < shape.cell_size() as f64 {
                continue;
            }
            let want = oracle.winding(p) > 0.5;
            assert_eq!(shape.distance(p).0 < 0.0, want, "{name} at {p}");
            if want { inside += 1 } else { outside += 1 }
        }
        eprintln!("{name}: cell {} m, {inside} inside, {outside} outside checked", shape.cell_size());
        assert!(inside > 10 && outside > 100, "{name}: {inside} inside, {outside} outside");
    }
}

/// An open mesh is two-sided: positive on both sides, the distance to the sheet.
#[test]
fn open_meshes_are_two_sided() {
    let positions = [[-1.0, 0.0, -1.0], [1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]];
    let triangles = [[0, 2, 1], [0, 3, 2]];
    let shape = MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.01, closed: false }).unwrap();
    for y in [0.03f32, -0.03, 0.001, -0.001] {
        let (d, n) = shape.distance(Vec3::new(0.2, y, -0.3));
        assert!((d - y.abs()).abs() < 1e-4, "at y = {y}: {d}");
        assert!((n - Vec3::Y * y.signum()).length() < 1e-3, "at y = {y}: {n}");
    }
    // Far away: a lower bound, never above the true distance.
    assert!(shape.distance(Vec3::new(0.0, 5.0, 0.0)).0 <= 5.0);
    assert!(shape.distance(Vec3::new(0.0, 0.5, 0.0)).0 <= 0.5 + 1e-4);
}

/// Memory follows the surface: halving the cell size multiplies the stored bricks by about
/// four (not eight).
#[test]
fn memory_follows_the_surface_area() {
    let (coarse, ..) = sphere_shape(0.04);
    let (fine, ..) = sphere_shape(0.02);
    let ratio = fine.stored_bricks() as f64 / coarse.stored_bricks() as f64;
    assert!((2.5..6.0).contains(&ratio), "{ratio}: {} vs {} bricks", fine.stored_bricks(), coarse.stored_bricks());
}

/// Every malformed mesh gets its own mesh error naming the triangle or vertex and the fault (the
/// errors a cloth mesh gets); a bad cell size is a parameter error naming `cell_size`.
#[test]
fn bad_meshes_get_specific_errors() {
    let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let triangles = [[0u32, 1, 2]];
    let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.0, closed: true };
    let error = |d: MeshShapeDesc| MeshShape::build(&d).expect_err("a bad mesh must fail");
    assert!(MeshShape::build(&desc).is_ok());
    assert_eq!(error(MeshShapeDesc { triangles: &[], ..desc }), ClothError::NoTriangles);
    assert_eq!(
        error(MeshShapeDesc { triangles: &[[0, 1, 2], [0, 1, 3]], ..desc }),
        ClothError::IndexOutOfRange { triangle: 1, index: 3, vertex_count: 3 }
    );
    let nan = [[0.0, 0.0, 0.0], [1.0, f32::NAN, 0.0], [0.0, 1.0, 0.0]];
    assert_eq!(error(MeshShapeDesc { positions: &nan, ..desc }), ClothError::NonFiniteVertex { vertex: 1 });
    let far = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2e5, 0.0]];
    assert_eq!(error(MeshShapeDesc { positions: &far, ..desc }), ClothError::NonFiniteVertex { vertex: 2 });
    let cell_name = |d: MeshShapeDesc| match MeshShape::build(&d) {
        Err(ClothError::InvalidParameter { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    for cell in [-0.01, f32::NAN, f32::INFINITY, 2e3] {
        assert_eq!(cell_name(MeshShapeDesc { cell_size: cell, ..desc }), "cell_size", "{cell}");
    }
    // A cell size that would need more than the memory bound.
    assert_eq!(cell_name(MeshShapeDesc { cell_size: 1e-5, ..desc }), "cell_size");
    // Only zero-area triangles: two of them, one collinear, one with two corners welded.
    let line = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let error = error(MeshShapeDesc { positions: &line, triangles: &[[0, 1, 2], [0, 1, 3]], ..desc });
    assert_eq!(error, ClothError::NoTriangleWithArea { triangles: 2 });
    assert!(error.to_string().contains("(2 given) has zero area"), "{error}");
}

/// The build on the calling thread alone (a world of one thread) gives the field the parallel
/// build gives, bit for bit: every node is computed on its own.
#[test]
fn the_serial_build_equals_the_parallel_one() {
    let (positions, triangles) = load_obj("spot.obj");
    let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.03, closed: true };
    let (serial, parallel) = (MeshShape::build_on(&desc, false).unwrap(), MeshShape::build_on(&desc, true).unwrap());
    assert!(serial.stored_bricks() > 0);
    assert_eq!(serial.brick_slot, parallel.brick_slot);
    assert_eq!(serial.fine, parallel.fine);
    assert_eq!(serial.coarse.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), parallel.coarse.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}
