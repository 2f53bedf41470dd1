//! The link between the cloth and the MeshInstance3D it drives: reading the first surface once,
//! giving the instance its own runtime copy of the mesh (a shared mesh resource would otherwise
//! deform in every scene that uses it), and writing positions/normals into that copy's vertex
//! buffer in place every frame (`RenderingServer.mesh_surface_update_vertex_region`).

use crate::convert::torn::by_source;
use crate::convert::vertex_buffer::{VertexLayout, VertexWriter};
use glam::Vec3;
use godot::builtin::{
    Aabb, Color, PackedByteArray, PackedColorArray, PackedFloat32Array, PackedInt32Array, PackedVector2Array, PackedVector3Array, Variant, VarArray,
    Vector2, Vector3,
};
use godot::meta::ToGodot;
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::rendering_server::{ArrayFormat, ArrayType as RsArrayType};
use godot::classes::{ArrayMesh, Mesh, MeshInstance3D, RenderingServer};
use godot::obj::{EngineBitfield, EngineEnum, Gd, NewGd, Singleton};

/// The first surface's arrays as plain data (local space of the mesh instance).
pub struct SurfaceArrays {
    /// Vertex positions [m].
    pub positions: Vec<[f32; 3]>,
    /// Index array (Godot order), `None` for a non-indexed surface.
    pub indices: Option<Vec<i32>>,
    /// Vertex colours `[r, g, b, a]`, if the surface has them.
    pub colors: Option<Vec<[f32; 4]>>,
    /// Tangents `[x, y, z, binormal sign]`, if the surface has them.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// `ARRAY_BONES` (4 or 8 bind indices per vertex), if the surface is skinned.
    pub bones: Option<Vec<i32>>,
    /// `ARRAY_WEIGHTS` (same layout), if the surface is skinned.
    pub weights: Option<Vec<f32>>,
    /// The Godot arrays themselves, to build the runtime copy.
    pub arrays: VarArray,
}

fn array_at(arrays: &VarArray, kind: ArrayType) -> Option<Variant> {
    arrays.get(kind.ord() as usize).filter(|v| !v.is_nil())
}

/// Read surface 0 of `mesh`. Errors: a readable message (no surface, not triangles, no vertices).
pub fn read_first_surface(mesh: &Gd<Mesh>) -> Result<SurfaceArrays, String> {
    if mesh.get_surface_count() < 1 {
        return Err("the mesh has no surface".into());
    }
    // Primitive meshes (PlaneMesh, …) are always triangles; an ArrayMesh says what it holds.
    if let Ok(array_mesh) = mesh.clone().try_cast::<ArrayMesh>()
        && array_mesh.surface_get_primitive_type(0) != PrimitiveType::TRIANGLES
    {
        return Err("surface 0 is not PRIMITIVE_TRIANGLES".into());
    }
    let arrays = mesh.surface_get_arrays(0);
    let v3 = |v: &Vector3| [v.x as f32, v.y as f32, v.z as f32];
    let positions: Vec<[f32; 3]> = array_at(&arrays, ArrayType::VERTEX)
        .and_then(|v| v.try_to::<godot::builtin::PackedVector3Array>().ok())
        .ok_or("surface 0 has no 3-D vertex array")?
        .as_slice()
        .iter()
        .map(v3)
        .collect();
    let indices = array_at(&arrays, ArrayType::INDEX)
        .and_then(|v| v.try_to::<godot::builtin::PackedInt32Array>().ok())
        .map(|a| a.as_slice().to_vec());
    let colors = array_at(&arrays, ArrayType::COLOR)
        .and_then(|v| v.try_to::<godot::builtin::PackedColorArray>().ok())
        .map(|a| a.as_slice().iter().map(|c| [c.r, c.g, c.b, c.a]).collect());
    let tangents = array_at(&arrays, ArrayType::TANGENT)
        .and_then(|v| v.try_to::<godot::builtin::PackedFloat32Array>().ok())
        .map(|a| a.as_slice().chunks_exact(4).map(|t| [t[0], t[1], t[2], t[3]]).collect());
    let bones = array_at(&arrays, ArrayType::BONES)
        .and_then(|v| v.try_to::<godot::builtin::PackedInt32Array>().ok())
        .map(|a| a.as_slice().to_vec());
    let weights = array_at(&arrays, ArrayType::WEIGHTS)
        .and_then(|v| v.try_to::<godot::builtin::PackedFloat32Array>().ok())
        .map(|a| a.as_slice().to_vec());
    Ok(SurfaceArrays { positions, indices, colors, tangents, bones, weights, arrays })
}

/// The surface of a torn cloth: `original` (the surface as read at setup) with one vertex per
/// render vertex of the torn mesh, each taking the values of its source (`sources`, the vertex of
/// the original it was split from): positions, normals, tangents, colours, both UV channels; the
/// index array `indices` (Godot order, [`crate::convert::torn::godot_indices`]). Bones, weights
/// and custom channels are dropped (a skinned cloth does not tear). Errors: a readable message.
pub fn torn_surface(original: &SurfaceArrays, sources: &[u32], indices: &[i32]) -> Result<SurfaceArrays, String> {
    let n = original.positions.len();
    let mut arrays = original.arrays.duplicate_shallow();
    let slot = |kind: ArrayType| kind.ord() as usize;
    let err = |e: crate::convert::torn::TornError| e.to_string();
    let positions = by_source(&original.positions, 1, n, sources).map_err(err)?;
    let v3 = |p: &[f32; 3]| Vector3::new(p[0] as _, p[1] as _, p[2] as _);
    arrays.set(slot(ArrayType::VERTEX), &PackedVector3Array::from(positions.iter().map(v3).collect::<Vec<_>>().as_slice()).to_variant());
    if let Some(normals) = array_at(&original.arrays, ArrayType::NORMAL).and_then(|v| v.try_to::<PackedVector3Array>().ok()) {
        let torn = by_source(normals.as_slice(), 1, n, sources).map_err(err)?;
        arrays.set(slot(ArrayType::NORMAL), &PackedVector3Array::from(torn.as_slice()).to_variant());
    }
    let tangents = match &original.tangents {
        Some(t) => Some(by_source(t, 1, n, sources).map_err(err)?),
        None => None,
    };
    if let Some(t) = &tangents {
        let flat: Vec<f32> = t.iter().flatten().copied().collect();
        arrays.set(slot(ArrayType::TANGENT), &PackedFloat32Array::from(flat.as_slice()).to_variant());
    }
    let colors = match &original.colors {
        Some(c) => Some(by_source(c, 1, n, sources).map_err(err)?),
        None => None,
    };
    if let Some(c) = &colors {
        let godot: Vec<Color> = c.iter().map(|c| Color::from_rgba(c[0], c[1], c[2], c[3])).collect();
        arrays.set(slot(ArrayType::COLOR), &PackedColorArray::from(godot.as_slice()).to_variant());
    }
    for uv in [ArrayType::TEX_UV, ArrayType::TEX_UV2] {
        if let Some(values) = array_at(&original.arrays, uv).and_then(|v| v.try_to::<PackedVector2Array>().ok()) {
            let torn: Vec<Vector2> = by_source(values.as_slice(), 1, n, sources).map_err(err)?;
            arrays.set(slot(uv), &PackedVector2Array::from(torn.as_slice()).to_variant());
        }
    }
    for dropped in [ArrayType::BONES, ArrayType::WEIGHTS, ArrayType::CUSTOM0, ArrayType::CUSTOM1, ArrayType::CUSTOM2, ArrayType::CUSTOM3] {
        if slot(dropped) < arrays.len() {
            arrays.set(slot(dropped), &Variant::nil());
        }
    }
    arrays.set(slot(ArrayType::INDEX), &PackedInt32Array::from(indices).to_variant());
    Ok(SurfaceArrays { positions, indices: Some(indices.to_vec()), colors, tangents, bones: None, weights: None, arrays })
}

/// The runtime copy of the mesh, its vertex buffer layout and the preallocated bytes.
pub struct SurfaceLink {
    mesh: Gd<ArrayMesh>,
    writer: VertexWriter,
    buffer: PackedByteArray,
    local_positions: Vec<Vec3>,
    local_normals: Vec<Vec3>,
}

impl SurfaceLink {
    /// Give `instance` an uncompressed, dynamically updatable copy of `surface` (keeping the
    /// source surface's material; without bones and weights when `unskinned`, as a worn cloth
    /// draws its simulated vertices itself) and prepare its vertex buffer. Errors: a readable message.
    pub fn attach(instance: &mut Gd<MeshInstance3D>, source: &Gd<Mesh>, surface: &SurfaceArrays, unskinned: bool) -> Result<Self, String> {
        let mut mesh = ArrayMesh::new_gd();
        let mut arrays = surface.arrays.duplicate_shallow(); // Godot arrays are shared: leave the source's alone
        if unskinned {
            for kind in [ArrayType::BONES, ArrayType::WEIGHTS] {
                if (kind.ord() as usize) < arrays.len() {
                    arrays.set(kind.ord() as usize, &Variant::nil());
                }
            }
        }
        // No attribute compression (positions stay plain floats the writer can fill); dynamic
        // update tells the Compatibility renderer the buffer changes every frame.
        mesh.add_surface_from_arrays_ex(PrimitiveType::TRIANGLES, &arrays)
            .flags(godot::classes::mesh::ArrayFormat::FLAG_USE_DYNAMIC_UPDATE)
            .done();
        if mesh.get_surface_count() != 1 {
            return Err("Godot rejected the surface arrays (see the error above)".into());
        }
        if let Some(material) = source.surface_get_material(0) {
            mesh.surface_set_material(0, &material);
        }
        let n = surface.positions.len();
        let format = ArrayFormat::try_from_ord(mesh.surface_get_format(0).ord()).unwrap_or_default();
        let mut rs = RenderingServer::singleton();
        let count = i32::try_from(n).map_err(|_| "too many vertices".to_string())?;
        let has = |f: ArrayFormat| format.ord() & f.ord() != 0;
        let offset = |a: RsArrayType| rs.mesh_surface_get_format_offset(format, count, a.ord()) as usize;
        let layout = VertexLayout {
            vertex_count: n,
            position_offset: offset(RsArrayType::VERTEX),
            position_stride: rs.mesh_surface_get_format_vertex_stride(format, count) as usize,
            normal_offset: has(ArrayFormat::NORMAL).then(|| offset(RsArrayType::NORMAL)),
            tangent_offset: has(ArrayFormat::TANGENT).then(|| offset(RsArrayType::TANGENT)),
            normal_stride: rs.mesh_surface_get_format_normal_tangent_stride(format, count) as usize,
            buffer_len: 0,
        };
        // The real vertex buffer, whose bytes outside positions/normals/tangents must survive.
        let data = rs.mesh_get_surface(mesh.get_rid(), 0);
        let buffer: PackedByteArray = data.get("vertex_data").and_then(|v| v.try_to().ok()).unwrap_or_default();
        let layout = VertexLayout { buffer_len: buffer.len(), ..layout };
        let writer = VertexWriter::new(layout, surface.tangents.as_deref()).map_err(|e| e.to_string())?;
        instance.set_mesh(&mesh);
        Ok(SurfaceLink { mesh, writer, buffer, local_positions: vec![Vec3::ZERO; n], local_normals: vec![Vec3::Y; n] })
    }

    /// Scratch for the caller to fill with local positions [m] and unit normals, `vertex_count` each.
    pub fn scratch(&mut self) -> (&mut [Vec3], &mut [Vec3]) {
        (&mut self.local_positions, &mut self.local_normals)
    }

    /// Write the scratch into the vertex buffer, upload it in place and refresh the culling box.
    pub fn upload(&mut self) {
        let (lo, hi) = self.writer.write(self.buffer.as_mut_slice(), &self.local_positions, &self.local_normals);
        let mut rs = RenderingServer::singleton();
        let rid = self.mesh.get_rid();
        rs.mesh_surface_update_vertex_region(rid, 0, 0, &self.buffer);
        // Straight to the server: `ArrayMesh.custom_aabb` would also emit `changed` every frame.
        let v = |p: Vec3| Vector3::new(p.x as _, p.y as _, p.z as _);
        rs.mesh_set_custom_aabb(rid, Aabb::new(v(lo), v(hi - lo)));
    }
}
