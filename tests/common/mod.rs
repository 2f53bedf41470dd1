//! Mesh builders and helpers shared by the integration tests.
#![allow(dead_code)]

use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Material, Pose, Vec3, World, WorldDesc};

/// A regular grid of `nx × ny` vertices spanning `width × height` metres. `at(u, v)` maps the
/// grid coordinates (u along the width, v along the height, both in metres) to a position.
/// Quads are split along alternating diagonals so the mesh has no preferred direction.
pub fn grid(nx: usize, ny: usize, width: f32, height: f32, at: impl Fn(f32, f32) -> [f32; 3]) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut positions = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            positions.push(at(width * i as f32 / (nx - 1) as f32, height * j as f32 / (ny - 1) as f32));
        }
    }
    let mut indices = Vec::with_capacity((nx - 1) * (ny - 1) * 6);
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = (j * nx + i) as u32;
            let (b, c, d) = (a + 1, a + nx as u32, a + nx as u32 + 1);
            if (i + j) % 2 == 0 {
                indices.extend_from_slice(&[a, c, b, b, c, d]);
            } else {
                indices.extend_from_slice(&[a, c, d, a, d, b]);
            }
        }
    }
    (positions, indices)
}

/// A vertical sheet in the x–y plane, `n × n` vertices, side `size` m, top row at y = 0.
/// Vertex 0 and `n − 1` are the top corners.
pub fn vertical_sheet(n: usize, size: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    grid(n, n, size, size, |u, v| [u, -v, 0.0])
}

/// A horizontal sheet in the x–z plane at height `y`, `n × n` vertices, side `size` m.
/// Vertex 0 and `n − 1` are the corners of the z = 0 edge.
pub fn horizontal_sheet(n: usize, size: f32, y: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    grid(n, n, size, size, |u, v| [u, y, v])
}

/// The bench's tablecloth scene, which the tests step too ([`tablecloth_on_its_table`]).
pub struct TableclothScene {
    /// Render vertex positions [m], `[f32; 3] × 14 161`.
    pub positions: Vec<[f32; 3]>,
    /// Triangle vertex indices, `u32 × 3 × 27 848`.
    pub indices: Vec<u32>,
    /// The table top it was modelled on: a rounded box collider.
    pub table: ColliderDesc,
}

/// The first mesh of the OBJ file at `path`: positions [m] (`[f32; 3]` per vertex) and triangle
/// vertex indices (`u32 × 3` per triangle), as the file lists them (faces not triangulated: the
/// bundled meshes are triangles). Errors: the file cannot be read or holds no mesh (the message
/// names the path).
pub fn load_obj(path: &std::path::Path) -> Result<(Vec<[f32; 3]>, Vec<u32>), String> {
    let options = tobj::LoadOptions { single_index: false, triangulate: false, ignore_points: true, ignore_lines: true };
    let (models, _) = tobj::load_obj(path, &options).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mesh = &models.first().ok_or_else(|| format!("{} has no mesh", path.display()))?.mesh;
    Ok((mesh.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect(), mesh.indices.clone()))
}

/// `data/tablecloth.obj` and its table top. Errors: those of [`load_obj`].
pub fn tablecloth_on_its_table() -> Result<TableclothScene, String> {
    let (positions, indices) = load_obj(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tablecloth.obj"))?;
    let table = ColliderDesc { pose: Pose::at([-0.13, 0.9525, 0.0]), radius: 0.005, ..ColliderDesc::cuboid([0.223, 0.0075, 0.355]) };
    Ok(TableclothScene { positions, indices, table })
}

/// The light, stiff cloth of the validation tests and the bench: 1 kg/m², stretch α = 0,
/// bending α = 1e-5 rad/(N·m), tethers on, undamped (the hardest case for the solver: nothing
/// takes out the energy of its errors).
pub fn light_stiff_params() -> ClothParams {
    ClothParams {
        material: Material { areal_density: 1.0, ..Material::default() },
        stretch_compliance: Some(0.0),
        bend_compliance: Some(1e-5),
        enable_tethers: true,
        linear_damping: 0.0,
        ..ClothParams::default()
    }
}

/// Create a world with `substeps`/`iterations` and one cloth.
pub fn world_with_cloth(
    world_desc: WorldDesc,
    positions: &[[f32; 3]],
    indices: &[u32],
    params: ClothParams,
) -> (World, ClothHandle) {
    let mut world = World::new(world_desc).expect("valid world");
    let mut desc = ClothDesc::new(positions, indices);
    desc.params = params;
    let cloth = world.add_cloth(&desc).expect("valid cloth");
    (world, cloth)
}

/// Positions of a cloth in render order.
pub fn positions(world: &World, cloth: ClothHandle) -> Vec<[f32; 3]> {
    let c = world.cloth(cloth).unwrap();
    let mut out = vec![[0.0; 3]; c.vertex_count() as usize];
    c.read_positions(&mut out).unwrap();
    out
}

/// True if every coordinate of every particle is finite.
pub fn all_finite(world: &World, cloth: ClothHandle) -> bool {
    world.cloth(cloth).unwrap().particle_positions().iter().all(|p| p.is_finite())
}

/// Gravity of the default world.
pub fn gravity() -> Vec3 {
    Vec3::from_array(WorldDesc::default().gravity)
}

/// A closed sphere of radius `radius` m around `centre`, wound outward: an icosahedron whose
/// triangles are split in four `subdivisions` times, the vertices pushed onto the sphere
/// (10·4^s + 2 vertices: 642 for s = 3, 2 562 for s = 4).
pub fn icosphere(radius: f32, centre: [f32; 3], subdivisions: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut v: Vec<Vec3> = [
        [-1.0, t, 0.0], [1.0, t, 0.0], [-1.0, -t, 0.0], [1.0, -t, 0.0],
        [0.0, -1.0, t], [0.0, 1.0, t], [0.0, -1.0, -t], [0.0, 1.0, -t],
        [t, 0.0, -1.0], [t, 0.0, 1.0], [-t, 0.0, -1.0], [-t, 0.0, 1.0],
    ]
    .iter()
    .map(|p| Vec3::from_array(*p).normalize())
    .collect();
    let mut f: Vec<[u32; 3]> = vec![
        [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
        [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut middle = std::collections::HashMap::new();
        let mut mid = |a: u32, b: u32, v: &mut Vec<Vec3>| -> u32 {
            *middle.entry((a.min(b), a.max(b))).or_insert_with(|| {
                v.push(((v[a as usize] + v[b as usize]) * 0.5).normalize());
                v.len() as u32 - 1
            })
        };
        let mut next = Vec::with_capacity(4 * f.len());
        for &[a, b, c] in &f {
            let (ab, bc, ca) = (mid(a, b, &mut v), mid(b, c, &mut v), mid(c, a, &mut v));
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        f = next;
    }
    let centre = Vec3::from_array(centre);
    (v.iter().map(|p| (centre + *p * radius).to_array()).collect(), f.into_iter().flatten().collect())
}
