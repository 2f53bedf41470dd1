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
    /// A mesh shape was queried while it builds ([`crate::World::create_mesh_shape_async`]).
    MeshShapeNotReady {
        /// Build progress in 0..=1.
        progress: f32,
    },
    /// A mesh shape was given no triangles (a collider needs a surface; a cloth may have none).
    NoTriangles,
    /// A mesh shape has more triangles than `collision::MAX_MESH_SHAPE_TRIANGLES` (2²⁴).
    TooManyTriangles {
        /// Number of triangles passed.
        count: usize,
    },
    /// Every triangle of a mesh shape has zero area (corners at one position, or collinear).
    NoTriangleWithArea {
        /// Number of triangles passed.
        triangles: u32,
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
    /// A render vertex index given as a single argument (`vertex` of a grab, `a` or `b` of a
    /// cut) is out of range.
    VertexArgumentOutOfRange {
        /// The argument's name.
        name: &'static str,
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
    /// `move_grab` or `release` named a vertex that is not grabbed.
    VertexNotGrabbed {
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
        cloth: crate::handle::ClothHandle,
        /// What its guard found.
        instability: Instability,
        /// How many cloths of the world became unstable in this step (≥ 1).
        unstable_cloths: u32,
    },
    /// A value in a list the caller passed is outside what the call accepts (a NaN, infinite or
    /// too large particle position or velocity).
    InvalidValue {
        /// The argument's name.
        name: &'static str,
        /// Position in the caller's list.
        position: u32,
        /// What the argument accepts.
        expected: &'static str,
    },
    /// [`crate::World::remove_mesh_shape`] of a shape that colliders still use (destroy them first).
    MeshShapeInUse {
        /// How many colliders use it.
        colliders: usize,
    },
    /// A [`crate::VertexLayout`] that skips both attributes: nothing to write.
    NoVertexAttribute,
    /// A render proxy's vertex lies farther than its `max_distance` from every simulated
    /// triangle ([`crate::World::add_render_proxy`]).
    ProxyVertexTooFar {
        /// Render vertex index of the proxy mesh.
        vertex: u32,
        /// Its distance from the nearest simulated triangle at rest \[m\] (infinite: the cloth
        /// has no triangles).
        distance: f32,
        /// The limit \[m\].
        max_distance: f32,
    },
    /// A state snapshot passed to [`crate::Cloth::restore_state`] was rejected (state unchanged).
    InvalidSnapshot(SnapshotProblem),
    /// [`crate::SharedWorld::step_end`] without a begin since the last end, or
    /// [`crate::SharedWorld::advance_end`] without an `advance_begin`.
    StepNotBegun,
    /// A step, advance or begin of a [`crate::SharedWorld`] between a begin and its end (nothing
    /// starts; end it first).
    StepInProgress,
    /// A panic while a [`crate::SharedWorld`] was being changed or stepped: its state cannot be
    /// trusted, and only dropping it works.
    WorldPoisoned,
    /// The asynchronous step of a [`crate::SharedWorld`] panicked (a bug in xpbd_cloth): reported
    /// once by `step_end`; the world is poisoned from then on.
    StepPanicked {
        /// The panic's message.
        message: String,
    },
    /// A setting or read that needs a mesh enclosing a volume (`pressure`, the volume) on one that
    /// encloses none: an open sheet, inconsistent winding, a non-manifold edge, or a closed mesh
    /// after a tear opened it.
    NotClosed {
        /// The field or call (`pressure`, `volume`).
        field: &'static str,
        /// The value given (0 for a read).
        value: f32,
        /// What keeps the mesh from enclosing a volume.
        closure: crate::cloth::pressure::Closure,
    },
    /// [`crate::Cloth::tear`] of two render vertices that are not the ends of a triangle edge
    /// (nothing changed).
    NotAnEdge {
        /// The first render vertex.
        a: u32,
        /// The second render vertex.
        b: u32,
    },
    /// A cut of a cloth created without `max_extra_vertices` (it cannot tear).
    NotTearable,
    /// A cut that needs more render vertices or particles than the cloth has left of its
    /// `max_extra_vertices` (nothing changed; the cloth tears no further).
    TearCapacityExceeded {
        /// What the cut needs at most.
        needed: u32,
        /// What is left.
        left: u32,
    },
    /// A cut of a cloth the library skins (`set_skin`): the skin binding does not follow cuts.
    TearOfSkinnedCloth,
}

impl fmt::Display for ClothError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ClothError::*;
        match self {
            EmptyMesh => write!(f, "mesh has no vertices"),
            MeshShapeNotReady { progress } => write!(
                f,
                "the mesh shape is still building ({:.0} % done): poll xpbd_mesh_shape_is_ready until it says 1",
                progress * 100.0
            ),
            NoTriangles => write!(f, "mesh shape has no triangles (triangle_count = 0): a collider needs a surface"),
            TooManyTriangles { count } => write!(f, "mesh shape has {count} triangles; at most 2^24 (16777216)"),
            NoTriangleWithArea { triangles } => write!(
                f,
                "every triangle of the mesh shape ({triangles} given) has zero area (corners at one position or on one line): nothing to collide with"
            ),
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
                write!(f, "parameter `{name}` = {} is invalid: expected {expected}", readable(*value))
            }
            InvalidTimeStep { dt } => write!(f, "time step {dt} s is invalid: expected 1e-5 <= dt <= 1"),
            InvalidHandle => write!(f, "handle is null, stale (destroyed) or forged"),
            VertexOutOfRange { position, vertex, vertex_count } => write!(
                f,
                "vertex index {vertex} at list position {position} is out of range (vertex count {vertex_count})"
            ),
            VertexArgumentOutOfRange { name, vertex, vertex_count } => {
                write!(f, "`{name}` = {vertex} is out of range: expected a vertex index below {vertex_count}")
            }
            VertexNotPinned { vertex } => write!(f, "vertex {vertex} is not pinned"),
            VertexNotGrabbed { vertex } => write!(f, "vertex {vertex} is not grabbed (grab it first; a release ends a grab)"),
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
            InvalidValue { name, position, expected } => {
                write!(f, "`{name}` at list position {position} is invalid: expected {expected}")
            }
            MeshShapeInUse { colliders } => {
                write!(f, "the mesh shape is in use by {colliders} collider(s): destroy them (or give them another shape) first")
            }
            ProxyVertexTooFar { vertex, distance, max_distance } if distance.is_infinite() => write!(
                f,
                "render vertex {vertex} has no simulated triangle to bind to (the cloth has none; max_distance {max_distance} m)"
            ),
            ProxyVertexTooFar { vertex, distance, max_distance } => write!(
                f,
                "render vertex {vertex} lies {distance} m from the simulated surface, farther than max_distance {max_distance} m (is the render mesh in the cloth's rest frame and scale?)"
            ),
            NoVertexAttribute => write!(
                f,
                "both `position_offset` and `normal_offset` are skipped (-1): nothing to write, give at least one"
            ),
            InvalidSnapshot(problem) => write!(f, "snapshot rejected: {problem}"),
            StepNotBegun => write!(f, "no step was begun: call step_begin before step_end, advance_begin before advance_end"),
            StepInProgress => write!(f, "a step or advance was begun and not ended: call step_end first (advance_end after advance_begin)"),
            WorldPoisoned => write!(f, "the world was poisoned by an earlier panic while it was being changed; only destroying it works"),
            StepPanicked { message } => write!(f, "internal panic in the asynchronous step ({message}); this is a bug in xpbd_cloth, please report it"),
            NotClosed { field, value, closure } => {
                let c = closure;
                let needs = "a closed, consistently wound mesh (every edge shared by two triangles running it in opposite directions)";
                let has = format!(
                    "this one has {} boundary edge(s), {} non-manifold edge(s) and {} edge(s) whose two triangles run the same way",
                    c.boundary_edges, c.non_manifold_edges, c.same_way_edges
                );
                match *field {
                    "volume" => write!(f, "the volume needs {needs}: {has}"),
                    field => write!(f, "`{field}` = {} needs {needs}: {has}", readable(*value as f64)),
                }
            }
            NotAnEdge { a, b } => write!(f, "render vertices {a} and {b} are not the two ends of a triangle edge"),
            NotTearable => write!(f, "the cloth was created with max_extra_vertices = 0: it cannot tear"),
            TearCapacityExceeded { needed, left } => write!(
                f,
                "the cut needs up to {needed} more vertices but only {left} of the cloth's max_extra_vertices are left"
            ),
            TearOfSkinnedCloth => write!(f, "the cloth is skinned by the library (set_skin): its skin binding does not follow cuts"),
        }
    }
}

impl std::error::Error for ClothError {}

/// The text of `SimulationUnstable` with the first unstable cloth called `cloth` (the C ABI names
/// it by its id instead of its slot).
pub(crate) fn unstable_message(cloth: &str, instability: &Instability, unstable_cloths: u32) -> String {
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

/// Snapshot format version written by this library (see `crate::cloth::snapshot`); it also reads
/// version 1, written before cuts (tearing) existed.
pub const SNAPSHOT_VERSION: u32 = 2;

/// What the guard does with a cloth whose step failed the check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnstableRecovery {
    /// Put back the positions, velocities and pin positions it had before the failed step (the last
    /// state that passed the check). Pin targets stay, so the next step tries the same pin motion
    /// again: teleport the cloth (or change the targets) if that motion was the cause. If that
    /// step fails too and nothing changed the cloth in between (no pin, setting, particle write,
    /// teleport or [`crate::Cloth::wake`]), it would fail at every retry (a step is
    /// deterministic: a vertex written metres away snaps back faster than `max_particle_speed`
    /// every time), so the rest pose is put back instead, as [`Self::RestPose`], and reported so.
    #[default]
    LastGoodState,
    /// Put every free particle back at its creation position (moved by all teleports since),
    /// with zero velocity; pinned particles stay at their pins.
    RestPose,
    /// No check, no copy: the cloth keeps whatever the step produced (the status stays clear).
    Disabled,
}

/// Why a step failed the guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstabilityKind {
    /// A position or velocity became NaN or infinite.
    NonFinite,
    /// A particle moved farther than the bound in one step.
    DisplacementBound,
}

/// One failed step: what the guard saw and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instability {
    /// Why.
    pub kind: InstabilityKind,
    /// The first offending particle (particle order; see [`crate::Cloth::particle_map`]).
    pub particle: u32,
    /// How far that particle moved in the step \[m\] (NaN or infinite when non-finite).
    pub displacement: f32,
    /// The displacement bound D_max of that step \[m\].
    pub bound: f32,
    /// How the cloth was put back.
    pub recovery: UnstableRecovery,
}

impl fmt::Display for Instability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (particle, d, bound) = (self.particle, self.displacement, self.bound);
        match self.kind {
            InstabilityKind::NonFinite => write!(f, "particle {particle} became NaN or infinite")?,
            InstabilityKind::DisplacementBound => {
                write!(f, "particle {particle} moved {d} m in one step, beyond the bound of {bound} m")?
            }
        }
        match self.recovery {
            UnstableRecovery::LastGoodState => write!(f, "; restored to its last good state"),
            UnstableRecovery::RestPose => write!(f, "; restored to its rest pose"),
            UnstableRecovery::Disabled => Ok(()),
        }
    }
}


/// Why a snapshot was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotProblem {
    /// Shorter than the smallest snapshot (header + rest frame + checksum).
    TooShort {
        /// Bytes passed.
        len: usize,
    },
    /// The buffer does not start with the snapshot magic `XPBDSNAP`.
    NotASnapshot,
    /// Written by a library with another snapshot format.
    UnsupportedVersion {
        /// The version in the buffer.
        found: u32,
    },
    /// The header's total size differs from the buffer's size.
    SizeMismatch {
        /// Size recorded in the header.
        recorded: u64,
        /// Size of the buffer passed.
        len: usize,
    },
    /// The checksum does not match, or a field is impossible (changed or corrupted bytes).
    Corrupted,
    /// The snapshot belongs to a cloth of another mesh.
    OtherMesh,
    /// The snapshot holds a NaN or infinite value, or a rest rotation that is not a unit quaternion.
    NonFiniteState,
    /// The snapshot was saved after cuts (tearing) that this cloth cannot make: it cannot tear, or
    /// its `max_extra_vertices` leave no room for them, or they do not apply to its mesh.
    CutsDoNotApply {
        /// Cuts in the snapshot.
        cuts: u32,
    },
}

impl fmt::Display for SnapshotProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SnapshotProblem::*;
        match self {
            TooShort { len } => write!(f, "{len} bytes is shorter than any snapshot"),
            NotASnapshot => write!(f, "not a cloth snapshot (no XPBDSNAP magic)"),
            UnsupportedVersion { found } => {
                write!(f, "snapshot format version {found}; this library reads versions 1 to {SNAPSHOT_VERSION}")
            }
            SizeMismatch { recorded, len } => {
                write!(f, "the snapshot is {recorded} bytes but the buffer passed is {len} bytes")
            }
            Corrupted => write!(f, "checksum mismatch or impossible field: the snapshot was changed or corrupted"),
            OtherMesh => write!(f, "the snapshot was saved from a cloth of another mesh"),
            NonFiniteState => write!(f, "the snapshot holds a NaN or infinite value"),
            CutsDoNotApply { cuts } => write!(
                f,
                "the snapshot was saved after {cuts} cut(s) that this cloth cannot make (it cannot tear, has too few max_extra_vertices left, or the cuts do not fit its mesh)"
            ),
        }
    }
}

/// `value` as a message shows it: as the f32 it came from when it is one (-0.1, not
/// -0.10000000149011612), in scientific notation when tiny or beyond any count (-1e-30, not
/// thirty zeros; a count up to 1e15 keeps every digit).
fn readable(value: f64) -> String {
    let magnitude = value.abs();
    let scientific = magnitude != 0.0 && magnitude.is_finite() && !(1e-4..1e15).contains(&magnitude);
    let single = value as f32;
    match (single as f64 == value, scientific) {
        (true, true) => format!("{single:e}"),
        // A whole number (an integer argument) with every digit: f32's shortest form would
        // round i32::MIN to -2147483600.
        (true, false) if value.fract() == 0.0 => format!("{value}"),
        (true, false) => format!("{single}"),
        (false, true) => format!("{value:e}"),
        (false, false) => format!("{value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn values_read_as_written() {
        let cases = [
            (-0.1f32 as f64, "-0.1"),
            (-1.0, "-1"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-inf"),
            (-1e-30f32 as f64, "-1e-30"),
            (3.4e38f32 as f64, "3.4e38"),
            (0.25e-8, "2.5e-9"),
            (1234.5, "1234.5"),
            (u32::MAX as f64, "4294967295"),
            (i32::MIN as f64, "-2147483648"),
            (1e7, "10000000"),
            (0.0, "0"),
        ];
        for (value, shown) in cases {
            assert_eq!(readable(value), shown, "{value:?}");
        }
    }
}
