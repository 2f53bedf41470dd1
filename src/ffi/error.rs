//! Result codes, the error every export carries internally, and the calling thread's last error
//! message (`xpbd_last_error_message`).

use super::boundary::ffi_boundary_or;
use crate::cloth::SnapshotProblem;
use crate::error::ClothError;
use std::cell::RefCell;
use std::ffi::c_char;

/// Result of every fallible `xpbd_*` function (an `int32_t`). `XPBD_RESULT_OK` (0) is success;
/// every other value is an error, and `xpbd_last_error_message` returns its readable text (naming
/// the function, the argument and the offending index) on the same thread. A call that fails
/// changes nothing. Values are fixed forever: new codes are only appended.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XpbdResult {
    /// Success.
    Ok = 0,
    /// A required pointer is NULL, or an array pointer is NULL while its count is non-zero.
    NullPointer = 1,
    /// An id is null, stale (its object was destroyed), of another kind, or forged.
    InvalidId = 2,
    /// An argument or descriptor field is outside its documented range (negative or NaN
    /// compliance, zero substeps, flag not 0/1, dt < 1e-5 s / NaN / > 1 s, NaN target, pin vertex out
    /// of range, vertex not pinned, misaligned pointer, ...).
    InvalidArgument = 3,
    /// The mesh cannot be simulated: no vertices, triangle index out of range, NaN/Inf position,
    /// degenerate (zero-area) triangle, more indices than 32 bits address. For a mesh shape: no
    /// triangles, an index out of range, a NaN/Inf position, only zero-area triangles (single
    /// ones are dropped).
    InvalidMesh = 4,
    /// A caller buffer's element count differs from the one the object needs (e.g. the
    /// `vertex_count` passed to a read differs from the cloth's render vertex count).
    BufferSizeMismatch = 5,
    /// `xpbd_world_step`: one or more cloths failed their explosion guard in this step (a NaN or
    /// infinite position or velocity, or a particle that moved farther than its bound; see
    /// `XpbdClothDesc.max_particle_speed`). Every cloth was stepped; the unstable ones were put back
    /// as their `unstable_recovery` says. The message names the first unstable cloth's id;
    /// `xpbd_cloth_get_status` tells each cloth's story.
    SimulationUnstable = 6,
    /// The library panicked: a bug in xpbd_cloth, please report it with the message. If the panic
    /// happened while a world was being changed, that world is now poisoned.
    Panic = 7,
    /// The world was poisoned by an earlier panic while it was being changed; its state cannot be
    /// trusted. Every call on it (and on its cloths) returns this code except `xpbd_world_destroy`.
    WorldPoisoned = 8,
    /// Too many objects alive at once: 65 536 worlds, or 16 384 cloths, 32 768 colliders, 16 384
    /// render proxies or 256 mesh shapes in one world; or a cut needs more vertices than are left
    /// of the cloth's `max_extra_vertices`.
    CapacityExceeded = 9,
    /// `xpbd_cloth_restore_state`: the buffer is not a snapshot this cloth accepts: no snapshot
    /// magic, another format version, a checksum mismatch (changed or corrupted bytes), a snapshot
    /// of another mesh, or non-finite values. The message says which; the cloth is unchanged.
    InvalidSnapshot = 10,
    /// `xpbd_world_step_end` without an `xpbd_world_step_begin` or `xpbd_world_advance_begin`
    /// since the last end; `xpbd_world_advance_end` without an `xpbd_world_advance_begin`.
    StepNotBegun = 11,
    /// `xpbd_world_step_begin`, `xpbd_world_advance_begin`, `xpbd_world_step` or
    /// `xpbd_world_advance` between a begin and its end: nothing starts; end it first.
    StepInProgress = 12,
    /// A mesh shape from `xpbd_mesh_shape_create_async` was queried before its build ended (poll
    /// `xpbd_mesh_shape_is_ready`). After a failed build the query returns the build's error.
    NotReady = 13,
    /// `xpbd_cloth_grab_move` or `xpbd_cloth_release` named a vertex that is not grabbed (never
    /// grabbed, or already released); nothing changes.
    NotGrabbed = 14,
}

/// An error on its way out through the boundary: the code to return and the message to store.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FfiError {
    pub code: XpbdResult,
    pub message: String,
}

impl FfiError {
    pub fn new(code: XpbdResult, message: impl Into<String>) -> Self {
        FfiError { code, message: message.into() }
    }
}

/// The C code for each core error. Exhaustive on purpose: a new `ClothError` variant must be given
/// a code here before the crate compiles.
pub(crate) fn result_code(error: &ClothError) -> XpbdResult {
    use ClothError::*;
    match error {
        EmptyMesh
        | MeshTooLarge { .. }
        | IndexCountNotMultipleOfThree { .. }
        | IndexOutOfRange { .. }
        | NonFiniteVertex { .. }
        | DegenerateTriangle { .. }
        | LineIndexOutOfRange { .. }
        | DegenerateLine { .. }
        | NoTriangles
        | TooManyTriangles { .. }
        | NoTriangleWithArea { .. }
        | ProxyVertexTooFar { .. } => XpbdResult::InvalidMesh,
        MeshShapeNotReady { .. } => XpbdResult::NotReady,
        VertexNotGrabbed { .. } => XpbdResult::NotGrabbed,
        InverseMassCountMismatch { .. } | BufferSizeMismatch { .. } => XpbdResult::BufferSizeMismatch,
        InvalidInverseMass { .. }
        | InvalidParameter { .. }
        | InvalidTimeStep { .. }
        | VertexOutOfRange { .. }
        | VertexArgumentOutOfRange { .. }
        | VertexNotPinned { .. }
        | NonFiniteTarget { .. }
        | InvalidValue { .. }
        | MeshShapeInUse { .. }
        | NoVertexAttribute
        | NotClosed { .. }
        | NotAnEdge { .. }
        | NotTearable
        | TearOfSkinnedCloth => XpbdResult::InvalidArgument,
        TearCapacityExceeded { .. } => XpbdResult::CapacityExceeded,
        InvalidHandle => XpbdResult::InvalidId,
        SimulationUnstable { .. } => XpbdResult::SimulationUnstable,
        InvalidSnapshot(SnapshotProblem::SizeMismatch { .. }) => XpbdResult::BufferSizeMismatch,
        InvalidSnapshot(_) => XpbdResult::InvalidSnapshot,
        StepNotBegun => XpbdResult::StepNotBegun,
        StepInProgress => XpbdResult::StepInProgress,
        WorldPoisoned => XpbdResult::WorldPoisoned,
        StepPanicked { .. } => XpbdResult::Panic,
    }
}

impl From<ClothError> for FfiError {
    fn from(error: ClothError) -> Self {
        FfiError::new(result_code(&error), error.to_string())
    }
}

/// Longest message kept per thread, in bytes of UTF-8 (without the NUL); a longer one is cut at a
/// character boundary when it is stored. The library's own messages are far shorter; a panic's
/// text may not be. `xpbd_last_error_message` documents the number.
pub(crate) const MAX_ERROR_MESSAGE_BYTES: usize = 1023;

/// A message stored in place: `bytes[..len]` is UTF-8, cut at a character boundary.
struct StoredMessage {
    len: usize,
    bytes: [u8; MAX_ERROR_MESSAGE_BYTES],
}

thread_local! {
    /// Message of the last failed call on this thread; successful calls leave it alone. A byte
    /// array rather than a `String` because a thread-local that needs dropping registers a
    /// destructor with the C runtime on the caller's thread, and glibc then keeps the library
    /// mapped after `dlclose` until that thread exits (an editor's hot reload never unloads it).
    static LAST_ERROR: RefCell<StoredMessage> =
        const { RefCell::new(StoredMessage { len: 0, bytes: [0; MAX_ERROR_MESSAGE_BYTES] }) };
}

pub(crate) fn set_last_error(message: String) {
    let message = message.as_bytes();
    let len = char_boundary_at_or_below(message, MAX_ERROR_MESSAGE_BYTES);
    LAST_ERROR.with(|m| {
        let mut m = m.borrow_mut();
        m.bytes[..len].copy_from_slice(&message[..len]);
        m.len = len;
    });
}

/// The largest `n <= limit` at which the UTF-8 text `bytes` can be cut: `bytes.len()` if it fits,
/// otherwise the start of a character (a byte that is not a continuation byte 0b10xx_xxxx).
fn char_boundary_at_or_below(bytes: &[u8], limit: usize) -> usize {
    let mut n = bytes.len().min(limit);
    while n < bytes.len() && n > 0 && bytes[n] & 0xC0 == 0x80 {
        n -= 1;
    }
    n
}

/// Copy the UTF-8 text `message` into `buf` (capacity bytes), NUL-terminated, cut at a character
/// boundary so that a truncated message is still valid UTF-8. Returns the bytes the whole message
/// needs.
fn copy_message(message: &[u8], buf: &mut [u8]) -> usize {
    if let Some(room) = buf.len().checked_sub(1) {
        let n = char_boundary_at_or_below(message, room);
        buf[..n].copy_from_slice(&message[..n]);
        buf[n] = 0;
    }
    message.len() + 1
}

/// Copy the calling thread's last error message into `buf`: UTF-8, NUL-terminated, truncated to
/// `capacity` bytes (at a character boundary). Returns the number of bytes the whole message needs
/// including its NUL, so `if (needed > capacity)` the text was cut. The message belongs to the
/// thread that made the failing call, is replaced by the next failing call on that thread, and is
/// not cleared by successful calls (empty, needing 1 byte, before any failure). A message is at
/// most 1023 bytes, so a 1024-byte buffer always receives all of it: a longer one (only a panic's
/// text can be) is cut at a character boundary when it is stored.
///
/// `buf` is `char[capacity]`, owned by the caller, not kept; `buf` may be NULL (with any capacity)
/// to ask for the length only. Never fails. Thread-safe.
///
/// # Safety
/// `buf`, when not NULL, must be valid for writes of `capacity` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_last_error_message(buf: *mut c_char, capacity: usize) -> usize {
    ffi_boundary_or(0, || {
        let out: &mut [u8] = if buf.is_null() || capacity == 0 {
            &mut []
        } else {
            // SAFETY: non-null, and the caller guarantees `capacity` writable bytes (c_char and u8
            // have the same size and alignment).
            unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), capacity) }
        };
        LAST_ERROR.with(|m| {
            let m = m.borrow();
            copy_message(&m.bytes[..m.len], out)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_is_truncated_at_a_character_boundary_and_reports_full_length() {
        let msg = "m/s\u{b2} ok"; // U+00B2 (superscript two) is two bytes: at 3..5
        let mut buf = [0xFFu8; 5]; // room for 4 bytes + NUL: cutting at 4 would split '²'
        let msg = msg.as_bytes();
        assert_eq!(copy_message(msg, &mut buf), msg.len() + 1);
        assert_eq!(&buf[..4], b"m/s\0");
        let mut big = [0xFFu8; 32];
        assert_eq!(copy_message(msg, &mut big), 9);
        assert_eq!(&big[..9], "m/s\u{b2} ok\0".as_bytes());
        assert_eq!(copy_message(msg, &mut []), 9);
    }

    #[test]
    fn a_stored_message_is_cut_at_a_character_boundary_below_its_bound() {
        // 1022 ASCII bytes, then '²' at 1022..1024 straddles the 1023-byte bound: cut before it.
        let long = format!("{}\u{b2}{}", "a".repeat(1022), "b".repeat(500));
        set_last_error(long);
        let mut buf = [0xFFu8; 2048];
        // SAFETY: buf holds 2048 writable bytes.
        let needed = unsafe { xpbd_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(needed, 1023);
        assert!(buf[..1022].iter().all(|&b| b == b'a') && buf[1022] == 0);
        set_last_error("xpbd_test: short".to_string());
        // SAFETY: as above.
        let needed = unsafe { xpbd_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(&buf[..needed], b"xpbd_test: short\0");
        // Exactly at the bound: kept whole.
        set_last_error("c".repeat(MAX_ERROR_MESSAGE_BYTES));
        // SAFETY: as above.
        assert_eq!(unsafe { xpbd_last_error_message(buf.as_mut_ptr().cast(), buf.len()) }, 1024);
    }
}
