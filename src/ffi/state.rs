//! State export for lockstep and replay checks.

use super::args::OutParam;
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::read_cloth;

/// Write a 64-bit hash of the cloth's particle positions and velocities to `*out_hash`.
///
/// Algorithm (stable across versions and platforms): FNV-1a 64 (offset basis
/// 0xcbf29ce484222325, prime 0x100000001b3) over the four little-endian bytes of the bit
/// pattern of every float: first x, y, z of every particle's position (m) in particle order,
/// then x, y, z of every particle's velocity (m/s). Two simulations that report equal hashes
/// after every step are, with overwhelming probability, bitwise identical (same inputs, any
/// thread count). Not cryptographic.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_hash` NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`; `*out_hash` is not written on error. Thread-safe.
///
/// # Safety
/// `out_hash` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_state_hash(cloth: XpbdClothId, out_hash: *mut u64) -> XpbdResult {
    ffi_boundary("xpbd_cloth_state_hash", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_hash, "out_hash")? };
        out.write(read_cloth(cloth, |c| c.state_hash())?);
        Ok(())
    })
}
