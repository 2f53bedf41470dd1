//! The explosion guard's per-cloth status.

use super::args::OutParam;
use super::boundary::ffi_boundary;
use super::cloth_desc::XpbdUnstableRecovery;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::with_cloth;
use crate::cloth::{Cloth, InstabilityKind};
use crate::error::ClothError;

/// Why a step failed the explosion guard (the values of `XpbdClothStatus.kind`). Fixed forever.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XpbdInstabilityKind {
    /// No failure since the status was last read.
    None = 0,
    /// A position or velocity became NaN or infinite.
    NonFinite = 1,
    /// A vertex moved farther in one step than the bound d_pins + d_colliders + 2*L + v_max*dt.
    DisplacementBound = 2,
}

/// A cloth's explosion-guard status since it was last read (`xpbd_cloth_get_status`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XpbdClothStatus {
    /// Steps that failed the guard since the status was last read; 0 = all good (then the other
    /// fields are 0).
    pub unstable_steps: u32,
    /// Of the most recent failure: an `XpbdInstabilityKind` value.
    pub kind: u32,
    /// Of the most recent failure: the first offending render vertex (the lowest render index of
    /// the offending particle).
    pub vertex: u32,
    /// Of the most recent failure: how far that vertex moved in the step, in metres (NaN or
    /// infinite for a non-finite state).
    pub displacement: f32,
    /// Of the most recent failure: the displacement bound of that step in metres.
    pub bound: f32,
    /// Of the most recent failure: how the cloth was put back, an `XpbdUnstableRecovery` value.
    pub recovery: u32,
}

impl XpbdClothStatus {
    /// Read and clear `cloth`'s status, naming render vertices.
    fn take(cloth: &mut Cloth) -> Self {
        let status = cloth.take_status();
        let Some(last) = status.last else {
            return XpbdClothStatus { unstable_steps: status.unstable_steps, ..XpbdClothStatus::default() };
        };
        let vertex = cloth.particle_map().iter().position(|&p| p == last.particle).unwrap_or(0) as u32;
        XpbdClothStatus {
            unstable_steps: status.unstable_steps,
            kind: match last.kind {
                InstabilityKind::NonFinite => XpbdInstabilityKind::NonFinite,
                InstabilityKind::DisplacementBound => XpbdInstabilityKind::DisplacementBound,
            } as u32,
            vertex,
            displacement: last.displacement,
            bound: last.bound,
            recovery: XpbdUnstableRecovery::from(last.recovery) as u32,
        }
    }
}

/// Write the cloth's explosion-guard status to `*out_status` and clear it: how many steps failed
/// since the last call and what the latest failure was (see `XPBD_RESULT_SIMULATION_UNSTABLE`).
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`
/// (status not cleared, `*out_status` not written). Thread-safe.
///
/// # Safety
/// `out_status` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_status(cloth: XpbdClothId, out_status: *mut XpbdClothStatus) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_status", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_status, "out_status")? };
        out.write(with_cloth(cloth, |c| Ok::<_, ClothError>(XpbdClothStatus::take(c)))?);
        Ok(())
    })
}
