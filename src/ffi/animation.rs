//! Character cloth exports: the animated pose (given, or skinned by the library from a skin and
//! joint matrices) and the per-vertex constraints relative to it (docs/c-cpp.md, "Character
//! cloth"; docs/design.md, "Character cloth"). All arrays are in render-vertex order, read during
//! the call only; every call is O(vertices) and never rebuilds the cloth except where noted.

use super::args::{slice_in, vec3_in, vec3_out};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::XpbdClothId;
use super::registry::with_cloth;
use crate::SkinDesc;

/// A skin binding for `xpbd_cloth_set_skin`: the mesh as created is the bind pose.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct XpbdSkinDesc {
    /// Number of joints J (1..=65536).
    pub joint_count: u32,
    /// Inverse bind matrix per joint, `float[16*joint_count]`, column-major (m[12..14] the
    /// translation): mesh space -> the joint's space.
    pub inverse_bind_matrices: *const f32,
    /// Four joint indices per render vertex, `uint32_t[4*vertex_count]`, each < joint_count.
    pub joint_indices: *const u32,
    /// Their weights, `float[4*vertex_count]`, each >= 0, not all 0 (normalised to sum 1).
    pub joint_weights: *const f32,
}

/// A `count`-element array of `[T; N]` from a flat C array (NULL allowed when `count` is 0).
///
/// # Safety
/// `ptr`, when not NULL, holds `N*count` readable elements.
unsafe fn chunks_in<'a, T, const N: usize>(ptr: *const T, count: u32, name: &str) -> Result<&'a [[T; N]], FfiError> {
    // SAFETY: forwarded caller promise; `[T; N]` has T's alignment.
    unsafe { slice_in(ptr.cast::<[T; N]>(), count as usize, name) }
}

/// An optional per-vertex array: NULL -> None.
///
/// # Safety
/// `ptr`, when not NULL, holds `count` readable floats.
unsafe fn optional<'a>(ptr: *const f32, count: u32, name: &str) -> Result<Option<&'a [f32]>, FfiError> {
    // SAFETY: forwarded caller promise.
    if ptr.is_null() { Ok(None) } else { Ok(Some(unsafe { slice_in(ptr, count as usize, name)? })) }
}

/// Bind the cloth's animated pose to a skeleton (linear blend skinning; the mesh as created is the
/// bind pose); `desc` NULL removes the skin. From the next `xpbd_cloth_set_joint_matrices` the
/// library skins the pose at each step's end and carries every vertex over the substeps with its
/// dominant joint (the largest weight), interpolated by translation, rotation (slerp) and scale.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (an array of `desc` NULL), `XPBD_RESULT_INVALID_ARGUMENT`
/// (`joint_count` 0 or above 65536, an inverse bind matrix with a non-finite entry, singular or
/// with a last row other than (0, 0, 0, 1) within 1e-3 (the message names the joint), a joint
/// index >= joint_count,
/// a weight negative or non-finite, a vertex whose weights sum to 0, welded copies of a vertex
/// with different joints or weights; the skin is unchanged), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `desc`, when not NULL, points to an `XpbdSkinDesc` whose arrays hold the sizes it documents.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_skin(cloth: XpbdClothId, desc: *const XpbdSkinDesc) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_skin", || {
        if desc.is_null() {
            return with_cloth(cloth, |c| c.set_skin(None));
        }
        // SAFETY: the caller's promise in `# Safety` above.
        let desc = unsafe { super::args::required(desc, "desc")? };
        with_cloth(cloth, |c| {
            let n = c.vertex_count();
            // SAFETY: the caller's promise in `# Safety` above.
            let skin = unsafe {
                SkinDesc {
                    inverse_bind_matrices: chunks_in::<f32, 16>(desc.inverse_bind_matrices, desc.joint_count, "inverse_bind_matrices")?,
                    joint_indices: chunks_in::<u32, 4>(desc.joint_indices, n, "joint_indices")?,
                    joint_weights: chunks_in::<f32, 4>(desc.joint_weights, n, "joint_weights")?,
                }
            };
            Ok::<_, FfiError>(c.set_skin(Some(&skin))?)
        })
    })
}

/// The joints' world matrices reached by the end of the next step (`float[16*joint_count]`,
/// column-major, m[12..14] the translation within +-1e5 m; rotation, translation and a nonzero
/// scale along the joint's axes, no shear, last row (0, 0, 0, 1)). The step's end pose is skinned
/// from them (LBS); every substep carries each vertex with its dominant joint interpolated from
/// the last step's matrices (the first call: these, and the cloth is put on the pose as
/// `xpbd_cloth_set_animated_pose` describes), exactly for a vertex bound to one joint. Replaces a
/// pose given by `xpbd_cloth_set_animated_pose`.
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`joint_count` not the
/// skin's), `XPBD_RESULT_INVALID_ARGUMENT` (no skin set, or a matrix with a non-finite entry, a
/// translation beyond +-1e5 m, a singular 3x3 part, a shear (columns not orthogonal within 1e-3
/// relative, which f32 round-off of real rotation * scale products stays far below) or a last row
/// other than (0, 0, 0, 1) within 1e-3; the message names the joint and the property); nothing
/// changes on error. `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `matrices` holds `16*joint_count` readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_joint_matrices(cloth: XpbdClothId, matrices: *const f32, joint_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_joint_matrices", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let matrices = unsafe { chunks_in::<f32, 16>(matrices, joint_count, "matrices")? };
        with_cloth(cloth, |c| c.set_joint_matrices(matrices))
    })
}

/// The animated pose reached by the end of the next step, interpolated across its substeps:
/// `positions` in metres (`float[3*vertex_count]`, required) and unit `normals`
/// (`float[3*vertex_count]`; NULL: computed from the animated positions). The first pose is
/// taken as the start too. Until a pose (or skin + matrices) is given, max distances, backstops
/// and the anim drive are stored but inactive. A worn cloth starts on its pose: the first time it
/// has both a pose and one of those constraints (whichever comes last), every vertex that is not
/// pinned is put at its animated position at rest, like a teleport, so a cape created at the
/// origin and posed on a character spawned anywhere starts on the character.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`positions` NULL), `XPBD_RESULT_BUFFER_SIZE_MISMATCH`
/// (`vertex_count` not the cloth's), `XPBD_RESULT_INVALID_ARGUMENT` (a NaN/Inf position or one
/// beyond +-1e5 m, a non-finite normal); nothing changes on error. `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `positions` holds `3*vertex_count` floats; `normals`, when not NULL, too.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_animated_pose(
    cloth: XpbdClothId,
    positions: *const f32,
    normals: *const f32,
    vertex_count: u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_animated_pose", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (positions, normals) = unsafe {
            let normals = if normals.is_null() { None } else { Some(vec3_in(normals, vertex_count, "normals")?) };
            (vec3_in(positions, vertex_count, "positions")?, normals)
        };
        with_cloth(cloth, |c| c.set_animated_pose(positions, normals))
    })
}

/// Per-vertex max distance d in metres (`float[vertex_count]`, each >= 0, INFINITY for none;
/// welded copies must agree), or NULL to clear (`vertex_count` then 0 or the cloth's): after
/// every step each vertex lies within d of its animated position (hard). d = 0 makes the vertex
/// kinematic on the pose, moved exactly as a pinned vertex and anchoring tethers like one.
/// Changing values is O(vertices); changing which vertices have d = 0 rebuilds the tethers as
/// `xpbd_cloth_set_pinned` does. The first limit (max distance, backstop or anim drive) set on a
/// posed cloth puts it on its pose, as `xpbd_cloth_set_animated_pose` describes.
///
/// Errors: `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` not the cloth's),
/// `XPBD_RESULT_INVALID_ARGUMENT` (a NaN or negative distance, welded copies that differ);
/// nothing changes on error. `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `distances`, when not NULL, holds `vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_max_distances(cloth: XpbdClothId, distances: *const f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_max_distances", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let distances = unsafe { optional(distances, vertex_count, "distances")? };
        with_cloth(cloth, |c| {
            check_count(c.vertex_count(), vertex_count, distances.is_none())?;
            Ok::<_, FfiError>(c.set_max_distances(distances)?)
        })
    })
}

/// Per-vertex backstop: distance b in metres (`float[vertex_count]`, finite within +-1e5) and
/// radius r in metres (`float[vertex_count]`, 0..=1e5, 0 = none); both NULL clears
/// (`vertex_count` then 0 or the cloth's). Each vertex stays outside the sphere of radius r
/// centred at a - (b + r)*n behind its animated position a and normal n (hard), so cloth never
/// passes behind the body surface.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (one array NULL, the other not),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` not the cloth's),
/// `XPBD_RESULT_INVALID_ARGUMENT` (an out-of-range value, welded copies that differ); nothing
/// changes on error. `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `distances` and `radii`, when not NULL, hold `vertex_count` floats each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_backstops(
    cloth: XpbdClothId,
    distances: *const f32,
    radii: *const f32,
    vertex_count: u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_backstops", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (b, r) = unsafe { (optional(distances, vertex_count, "distances")?, optional(radii, vertex_count, "radii")?) };
        let backstops = match (b, r) {
            (Some(b), Some(r)) => Some((b, r)),
            (None, None) => None,
            _ => return Err(FfiError::new(XpbdResult::NullPointer, "`distances` and `radii` must both be NULL (clear) or both be given".to_string())),
        };
        with_cloth(cloth, |c| {
            check_count(c.vertex_count(), vertex_count, backstops.is_none())?;
            Ok::<_, FfiError>(c.set_backstops(backstops)?)
        })
    })
}

/// Per-vertex anim drive compliance alpha in m/N (`float[vertex_count]`, 0..=1e20, INFINITY for
/// none; welded copies must agree), or NULL to clear (`vertex_count` then 0 or the cloth's): an
/// XPBD soft attachment C = |x - a| to the animated position (Macklin et al. 2016, eq. 18), the
/// same stiffness at any time step and substep count (a vertex of mass m under gravity g hangs
/// alpha*m*g below its pose).
///
/// Errors: `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` not the cloth's),
/// `XPBD_RESULT_INVALID_ARGUMENT` (an out-of-range or NaN compliance, welded copies that differ);
/// nothing changes on error. `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `compliances`, when not NULL, holds `vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_anim_drive(cloth: XpbdClothId, compliances: *const f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_anim_drive", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let compliances = unsafe { optional(compliances, vertex_count, "compliances")? };
        with_cloth(cloth, |c| {
            check_count(c.vertex_count(), vertex_count, compliances.is_none())?;
            Ok::<_, FfiError>(c.set_anim_drive(compliances)?)
        })
    })
}

/// Write the animated pose the next step reaches (`float[3*vertex_count]`, metres, render-vertex
/// order): the last pose given or skinned; the mesh as created before any. Ownership as
/// `xpbd_cloth_read_positions` (`out` is only written, so it may be uninitialised).
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL with vertex_count > 0),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` not the cloth's; `out` untouched),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_animated_positions(cloth: XpbdClothId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_animated_positions", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        with_cloth(cloth, |c| c.read_animated_positions(out))
    })
}

/// Write the animated pose's unit normals (`float[3*vertex_count]`), as
/// `xpbd_cloth_read_animated_positions` (the rest mesh's normals before any pose).
///
/// Errors: as `xpbd_cloth_read_animated_positions`.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_animated_normals(cloth: XpbdClothId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_animated_normals", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        with_cloth(cloth, |c| c.read_animated_normals(out))
    })
}

/// `vertex_count` as passed must be the cloth's, or 0 with a NULL array (`cleared`), the C way of
/// passing no array; a wrong length is `BUFFER_SIZE_MISMATCH` as for every array of the ABI.
fn check_count(actual: u32, given: u32, cleared: bool) -> Result<(), FfiError> {
    if actual == given || (cleared && given == 0) {
        return Ok(());
    }
    Err(FfiError::new(XpbdResult::BufferSizeMismatch, format!("`vertex_count` is {given}, the cloth has {actual} vertices")))
}

/// The reference frame of local-space inertia (the character's root), reached by the end of the
/// next step: `position` in metres (`float[3]`, each within +-1e5) and `rotation` local -> world
/// (`float[4]`, unit quaternion x, y, z, w, length 1 +- 1e-3). Call it every step; the first call
/// is the start too. With `linear_inertia` / `angular_inertia` (XpbdClothParams) below 1 the
/// free particles are carried each substep by that share of the frame's motion, with no velocity
/// added, and a given animated pose is interpolated in the frame (a snap turn along the arc).
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ARGUMENT` (NaN/Inf or out-of-range
/// position, non-unit rotation; unchanged), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe.
///
/// # Safety
/// `position` holds 3 floats and `rotation` 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_reference_frame(cloth: XpbdClothId, position: *const f32, rotation: *const f32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_reference_frame", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; N]` has f32's alignment.
        let (position, rotation) = unsafe {
            (*super::args::required(position.cast::<[f32; 3]>(), "position")?, *super::args::required(rotation.cast::<[f32; 4]>(), "rotation")?)
        };
        with_cloth(cloth, |c| c.set_reference_frame(position, rotation))
    })
}
