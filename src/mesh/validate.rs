//! Input checks that run before anything is allocated for a cloth, each failure a distinct
//! [`ClothError`] variant naming the offending vertex or triangle.

use crate::error::ClothError;

/// Largest accepted coordinate magnitude \[m\] of a vertex position or pin target (±100 km). Float
/// spacing there is 8 mm, already coarse for cloth; beyond it edge lengths and their squares
/// overflow towards infinity and a step would turn the cloth into NaN. Colliders and teleports use
/// the same bound.
pub const MAX_COORDINATE: f32 = 1.0e5;

/// True when every coordinate is finite and within ±[`MAX_COORDINATE`].
pub fn is_valid_point(p: &[f32; 3]) -> bool {
    p.iter().all(|c| c.abs() <= MAX_COORDINATE)
}

/// Most vertices a mesh may have (2²⁸ = 268 435 456): the sweeps address a particle's row by its
/// byte offset, 16 × index, held in a `u32` (`constraints::access::row_offsets_below`).
pub const MAX_VERTICES: usize = 1 << 28;

/// Vertex count is non-zero and at most [`MAX_VERTICES`]; every coordinate is finite and within
/// ±[`MAX_COORDINATE`] m.
pub fn validate_positions(positions: &[[f32; 3]]) -> Result<(), ClothError> {
    if positions.is_empty() {
        return Err(ClothError::EmptyMesh);
    }
    if positions.len() > MAX_VERTICES {
        return Err(ClothError::MeshTooLarge { count: positions.len() });
    }
    match positions.iter().position(|p| !is_valid_point(p)) {
        Some(v) => Err(ClothError::NonFiniteVertex { vertex: v as u32 }),
        None => Ok(()),
    }
}

/// Index count is a multiple of 3 and every index is below `vertex_count`.
pub fn validate_indices(indices: &[u32], vertex_count: usize) -> Result<(), ClothError> {
    if !indices.len().is_multiple_of(3) {
        return Err(ClothError::IndexCountNotMultipleOfThree { len: indices.len() });
    }
    if indices.len() >= u32::MAX as usize {
        return Err(ClothError::MeshTooLarge { count: indices.len() });
    }
    match indices.iter().position(|&i| i as usize >= vertex_count) {
        Some(k) => Err(ClothError::IndexOutOfRange {
            triangle: (k / 3) as u32,
            index: indices[k],
            vertex_count: vertex_count as u32,
        }),
        None => Ok(()),
    }
}

/// Relative area threshold: a triangle is degenerate when twice its area is below this fraction of
/// its longest edge squared, i.e. its smallest height is below 1e-6 of its longest edge. Slivers
/// far thinner than any real mesh has (real engine meshes have many with angles < 5°) still pass.
const DEGENERATE_RELATIVE_AREA: f64 = 1e-6;

/// Reject triangles with (near) zero area or with two corners welded into one particle.
/// `triangles` are particle triangles, `positions` particle positions (finite).
pub fn validate_triangle_areas(
    triangles: &[[u32; 3]],
    positions: &[glam::Vec3],
) -> Result<(), ClothError> {
    for (t, tri) in triangles.iter().enumerate() {
        let degenerate = tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] || {
            let [a, b, c] = tri.map(|i| positions[i as usize].as_dvec3());
            let twice_area = (b - a).cross(c - a).length();
            let longest2 = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared());
            !(twice_area > DEGENERATE_RELATIVE_AREA * longest2) || longest2 == 0.0
        };
        if degenerate {
            return Err(ClothError::DegenerateTriangle { triangle: t as u32 });
        }
    }
    Ok(())
}

/// Extra line edges (pairs of render vertex indices): in range, and not welded into a single
/// particle (a zero-length distance constraint has no gradient). `line_particles` are the pairs
/// mapped to particles.
pub fn validate_lines(lines: &[[u32; 2]], line_particles: &[[u32; 2]], vertex_count: usize) -> Result<(), ClothError> {
    for (e, (pair, particles)) in lines.iter().zip(line_particles).enumerate() {
        if let Some(&index) = pair.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(ClothError::LineIndexOutOfRange { line: e as u32, index, vertex_count: vertex_count as u32 });
        }
        if particles[0] == particles[1] {
            return Err(ClothError::DegenerateLine { line: e as u32 });
        }
    }
    Ok(())
}
