//! A torn cloth's render mesh back into Godot surface arrays: when the core's topology version
//! changes (a cut added vertices), the surface is rebuilt with the core's vertex count, each
//! per-vertex array (UVs, colours, tangents, custom channels) taken from the vertex each render
//! vertex was split from (`Cloth::read_vertex_sources`), and the core's triangles in Godot's
//! winding (the inverse of [`super::surface::core_triangles`]).

use std::fmt;

/// A per-vertex array that does not fit the mesh it is copied for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TornError {
    /// The array's length is not `per_vertex` times the vertex count of the mesh as created.
    Length {
        /// Its length.
        len: usize,
        /// Values per vertex.
        per_vertex: usize,
        /// Vertices of the mesh as created.
        vertices: usize,
    },
    /// A render vertex names a source beyond the mesh as created.
    Source {
        /// The render vertex.
        vertex: usize,
        /// Its source.
        source: u32,
    },
}

impl fmt::Display for TornError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TornError::Length { len, per_vertex, vertices } => {
                write!(f, "a surface array of {len} values is not {per_vertex} per vertex of {vertices} vertices")
            }
            TornError::Source { vertex, source } => write!(f, "render vertex {vertex} descends from vertex {source}, beyond the surface"),
        }
    }
}

impl std::error::Error for TornError {}

/// The per-vertex array `values` (`per_vertex` values for each of the mesh's vertices as created)
/// for the torn mesh: for each render vertex v of `sources` (its vertex as created), the values of
/// `sources[v]`. Errors: `Length`, `Source`.
pub fn by_source<T: Copy>(values: &[T], per_vertex: usize, created_vertices: usize, sources: &[u32]) -> Result<Vec<T>, TornError> {
    if per_vertex == 0 || values.len() != per_vertex * created_vertices {
        return Err(TornError::Length { len: values.len(), per_vertex, vertices: created_vertices });
    }
    let mut out = Vec::with_capacity(per_vertex * sources.len());
    for (vertex, &source) in sources.iter().enumerate() {
        let s = source as usize;
        if s >= created_vertices {
            return Err(TornError::Source { vertex, source });
        }
        out.extend_from_slice(&values[per_vertex * s..per_vertex * (s + 1)]);
    }
    Ok(out)
}

/// The core's triangles (`[u32; 3]` each, counter-clockwise from the front in world space) as a
/// Godot index array (clockwise front), for a mesh instance that `mirrored` (see
/// [`super::surface::is_mirroring`]): the inverse of [`super::surface::core_triangles`].
pub fn godot_indices(core: &[[u32; 3]], mirrored: bool) -> Vec<i32> {
    core.iter().flat_map(|&[a, b, c]| if mirrored { [a, b, c] } else { [a, c, b] }).map(|i| i as i32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::surface::core_triangles;

    /// Godot indices → core triangles → Godot indices gives the indices back, mirrored or not.
    #[test]
    fn core_triangles_go_back_to_the_godot_order() {
        let godot = [0, 1, 2, 2, 1, 3, 4, 5, 6];
        for mirrored in [false, true] {
            let core: Vec<[u32; 3]> = core_triangles(Some(&godot), 7, mirrored).unwrap().chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
            assert_eq!(godot_indices(&core, mirrored), godot);
        }
    }

    /// Each render vertex takes its source's values, whole (UVs: 2 per vertex; colours: 4), in order.
    #[test]
    fn arrays_follow_each_vertex_to_its_source() {
        let uv = [0.0f32, 0.1, 1.0, 1.1, 2.0, 2.1];
        let sources = [0, 1, 2, 1, 1];
        assert_eq!(by_source(&uv, 2, 3, &sources).unwrap(), vec![0.0, 0.1, 1.0, 1.1, 2.0, 2.1, 1.0, 1.1, 1.0, 1.1]);
        assert_eq!(by_source(&uv, 2, 4, &sources), Err(TornError::Length { len: 6, per_vertex: 2, vertices: 4 }));
        assert_eq!(by_source(&uv, 2, 3, &[0, 3]), Err(TornError::Source { vertex: 1, source: 3 }));
    }

    /// The whole path on a real torn cloth: a cut through a Godot-wound quad grid, its render mesh
    /// read back and turned into Godot arrays: every triangle's UVs are those it had as created.
    #[test]
    fn a_torn_grid_keeps_its_uvs_in_godot_order() {
        let n = 6usize;
        let positions: Vec<[f32; 3]> = (0..n * n).map(|k| [(k % n) as f32 * 0.1, 0.0, (k / n) as f32 * 0.1]).collect();
        let uv: Vec<[f32; 2]> = (0..n * n).map(|k| [(k % n) as f32, (k / n) as f32]).collect();
        let mut godot = Vec::new();
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let a = (j * n + i) as i32;
                let (b, c, d) = (a + 1, a + n as i32, a + n as i32 + 1);
                godot.extend([a, b, c, b, d, c]);
            }
        }
        let core = core_triangles(Some(&godot), n * n, false).unwrap();
        let mut desc = xpbd_cloth::ClothDesc::new(&positions, &core);
        desc.max_extra_vertices = 16;
        let mut world = xpbd_cloth::World::new(xpbd_cloth::WorldDesc { thread_count: 1, ..Default::default() }).unwrap();
        let handle = world.add_cloth(&desc).unwrap();
        let cloth = world.cloth_mut(handle).unwrap();
        for i in 0..n as u32 - 1 {
            assert!(cloth.tear(2 * n as u32 + i, 2 * n as u32 + i + 1).unwrap());
        }
        let counts = cloth.render_counts();
        let mut triangles = vec![[0u32; 3]; counts.triangle_count as usize];
        let mut sources = vec![0u32; counts.vertex_count as usize];
        cloth.read_indices(&mut triangles).unwrap();
        cloth.read_vertex_sources(&mut sources).unwrap();
        assert_eq!(counts.vertex_count as usize, n * n + n);
        let torn_uv = by_source(uv.as_flattened(), 2, n * n, &sources).unwrap();
        let torn_indices = godot_indices(&triangles, false);
        for (k, (&now, &created)) in torn_indices.iter().zip(&godot).enumerate() {
            let (a, b) = (&torn_uv[2 * now as usize..2 * now as usize + 2], &uv[created as usize]);
            assert_eq!(a, b, "corner {k}");
        }
    }
}
