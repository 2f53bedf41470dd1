//! Errors returned by the Rust API. The C ABI maps each variant to an `XpbdResult` code and its
//! `Display` text to `xpbd_last_error_message`.

use std::fmt;

/// Everything that can go wrong when creating, configuring or stepping a cloth.
///
/// Every variant names the offending index or argument so that an engine programmer can find the
/// bad vertex or triangle in their own data. A function that returns an error leaves all state as
/// it was before the call.
#[derive(Clone, Debug, PartialEq)]
pub enum ClothError {
    /// The mesh has no vertices (`vertex_count == 0`). Zero *triangles* are allowed.
    EmptyMesh,
    /// More than 2²⁸ vertices (`mesh::MAX_VERTICES`), or more indices than `u32` can
    /// address.
    MeshTooLarge {
        /// Number of vertices or indices passed.
        count: usize,
    },
    /// The index array length is not a multiple of 3 (triangles only).
    IndexCountNotMultipleOfThree {
        /// Length of the index array.
        len: usize,
    },
    /// A triangle corner refers to a vertex that does not exist.
    IndexOutOfRange {
        /// Triangle number (index / 3).
        triangle: u32,
        /// The out-of-range vertex index.
        index: u32,
        /// Number of vertices in the mesh.
        vertex_count: u32,
    },
    /// A vertex position has a NaN or infinite coordinate, or one beyond ±`MAX_COORDINATE` (1e5 m).
    NonFiniteVertex {
        /// Render vertex index.
        vertex: u32,
    },
    /// A triangle has (near) zero area, or two of its corners weld to the same particle.
    DegenerateTriangle {
        /// Triangle number (index / 3).
        triangle: u32,
    },
    /// A line (extra edge) refers to a vertex that does not exist.
    LineIndexOutOfRange {
        /// Line number (index into the pair list).
        line: u32,
        /// The out-of-range vertex index.
        index: u32,
        /// Number of vertices in the mesh.
        vertex_count: u32,
    },
    /// A line's two vertices are the same particle (same index, or welded together).
    DegenerateLine {
        /// Line number (index into the pair list).
        line: u32,
    },
    /// The per-vertex inverse mass array has the wrong length.
    InverseMassCountMismatch {
        /// Number of render vertices.
        expected: usize,
        /// Length passed.
        got: usize,
    },
    /// An inverse mass is negative, NaN or infinite.
    InvalidInverseMass {
        /// Render vertex index.
        vertex: u32,
        /// The rejected value \[1/kg\].
        value: f32,
    },
    /// A scalar parameter is out of its allowed range (negative compliance, zero substeps, NaN...).
    InvalidParameter {
        /// Field name as in the descriptor.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What the field accepts.
        expected: &'static str,
    },
    /// A time step is zero, negative, NaN or above 1 s.
    InvalidTimeStep {
        /// The rejected step \[s\].
        dt: f32,
    },
    /// A handle refers to an object that does not exist (destroyed, never created, or forged).
    InvalidHandle,
    /// A render vertex index (e.g. in a pin list) is out of range.
    VertexOutOfRange {
        /// Position in the caller's list.
        position: u32,
        /// The rejected vertex index.
        vertex: u32,
        /// Number of render vertices.
        vertex_count: u32,
    },
    /// `set_pin_targets` named a vertex that is not pinned.
    VertexNotPinned {
        /// The render vertex index.
        vertex: u32,
    },
    /// A pin target has a NaN or infinite coordinate, or one beyond ±`MAX_COORDINATE` (1e5 m).
    NonFiniteTarget {
        /// Position in the caller's list.
        position: u32,
    },
    /// Two lists that must have the same length do not (e.g. pins and their targets), or an
    /// output buffer does not match the mesh.
    BufferSizeMismatch {
        /// What the call needs.
        expected: usize,
        /// What was passed.
        got: usize,
    },
    /// A step left one or more cloths non-finite or beyond their displacement bound (see
    /// [`crate::cloth::guard`]). Every cloth was stepped; the unstable ones were put back as their
    /// [`crate::UnstableRecovery`] says and their [`crate::ClothStatus`] records why.
    SimulationUnstable {
        /// The first unstable cloth (lowest slot).
        cloth: crate::ClothHandle,
        /// What its guard found.
        instability: crate::Instability,
        /// How many cloths of the world became unstable in this step (≥ 1).
        unstable_cloths: u32,
    },
    /// A state snapshot passed to [`crate::Cloth::restore_state`] was rejected (state unchanged).
    InvalidSnapshot(crate::cloth::SnapshotProblem),
}

impl fmt::Display for ClothError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ClothError::*;
        match self {
            EmptyMesh => write!(f, "mesh has no vertices"),
            MeshTooLarge { count } => write!(f, "mesh too large: {count} vertices or indices (at most 2^28 vertices and 2^32 - 1 indices)"),
            IndexCountNotMultipleOfThree { len } => {
                write!(f, "index count {len} is not a multiple of 3")
            }
            IndexOutOfRange { triangle, index, vertex_count } => write!(
                f,
                "triangle {triangle} refers to vertex {index}, but the mesh has {vertex_count} vertices"
            ),
            NonFiniteVertex { vertex } => write!(f, "vertex {vertex} has a NaN, infinite or out-of-range coordinate (limit ±1e5 m)"),
            DegenerateTriangle { triangle } => write!(
                f,
                "triangle {triangle} is degenerate (zero area, or corners welded together)"
            ),
            LineIndexOutOfRange { line, index, vertex_count } => write!(
                f,
                "line {line} refers to vertex {index}, but the mesh has {vertex_count} vertices"
            ),
            DegenerateLine { line } => write!(f, "line {line} joins a vertex to itself (or to a vertex welded onto it)"),
            InverseMassCountMismatch { expected, got } => write!(
                f,
                "inverse mass array has {got} entries, expected one per vertex ({expected})"
            ),
            InvalidInverseMass { vertex, value } => write!(
                f,
                "inverse mass of vertex {vertex} is {value}; must be finite and >= 0"
            ),
            InvalidParameter { name, value, expected } => {
                write!(f, "parameter `{name}` = {value} is invalid: expected {expected}")
            }
            InvalidTimeStep { dt } => write!(f, "time step {dt} s is invalid: expected 1e-5 <= dt <= 1"),
            InvalidHandle => write!(f, "handle is null, stale (destroyed) or forged"),
            VertexOutOfRange { position, vertex, vertex_count } => write!(
                f,
                "vertex index {vertex} at list position {position} is out of range (vertex count {vertex_count})"
            ),
            VertexNotPinned { vertex } => write!(f, "vertex {vertex} is not pinned"),
            NonFiniteTarget { position } => {
                write!(f, "target at list position {position} has a NaN, infinite or out-of-range coordinate (limit ±1e5 m)")
            }
            BufferSizeMismatch { expected, got } => {
                write!(f, "buffer size mismatch: expected {expected}, got {got}")
            }
            SimulationUnstable { cloth, instability, unstable_cloths } => {
                let name = format!("cloth (slot {}, generation {})", cloth.index, cloth.generation);
                f.write_str(&unstable_message(&name, instability, *unstable_cloths))
            }
            InvalidSnapshot(problem) => write!(f, "snapshot rejected: {problem}"),
        }
    }
}

impl std::error::Error for ClothError {}

/// The text of `SimulationUnstable` with the first unstable cloth called `cloth` (the C ABI names
/// it by its id instead of its slot).
pub(crate) fn unstable_message(cloth: &str, instability: &crate::Instability, unstable_cloths: u32) -> String {
    format!("{cloth}: {instability}; {unstable_cloths} cloth(s) of the world became unstable in this step")
}

/// Check a rotation given as a quaternion `[x, y, z, w]`: finite with length 1 ± 1e-3. Returns it
/// renormalised. Errors: `InvalidParameter` named `name`.
pub(crate) fn check_unit_quaternion(name: &'static str, rotation: [f32; 4]) -> Result<glam::Quat, ClothError> {
    let q = glam::Quat::from_array(rotation);
    let len = if rotation.iter().all(|c| c.is_finite()) { q.length() } else { f32::NAN };
    check_range(name, len, 1.0 - 1e-3, 1.0 + 1e-3, "unit quaternion [x, y, z, w] (|q| = 1 ± 1e-3)")?;
    Ok(q / len)
}

/// Check a count field (substeps, iterations, threads): inside `[min, max]`. Not through
/// [`check_range`]: as `f32`, 4 294 967 295 is 4 294 967 296, and the message gave that value.
pub(crate) fn check_count(name: &'static str, value: u32, min: u32, max: u32, expected: &'static str) -> Result<(), ClothError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ClothError::InvalidParameter { name, value: value as f64, expected })
    }
}

/// Check a scalar descriptor field: finite and inside `[min, max]`.
pub(crate) fn check_range(
    name: &'static str,
    value: f32,
    min: f32,
    max: f32,
    expected: &'static str,
) -> Result<(), ClothError> {
    if value.is_finite() && value >= min && value <= max {
        Ok(())
    } else {
        Err(ClothError::InvalidParameter { name, value: value as f64, expected })
    }
}
