//! The floating-point environment the solver runs in, whatever the caller's.
//!
//! On x86-64 the MXCSR register sets, per thread, how SSE/AVX arithmetic rounds, whether subnormal
//! results are flushed to zero (FTZ) and subnormal inputs read as zero (DAZ), and which exceptions
//! trap. Engines often turn FTZ/DAZ on for speed, and a thread starts with the mode of the thread
//! that created it. A step computed partly on the engine's thread in its mode and partly on the
//! world's pool threads in another would then depend on the thread count, and on the engine's
//! settings; an engine that unmasks exceptions in debug builds would trap (SIGFPE) on an underflow
//! or on the NaN handling the guard relies on. So every call that computes (every C ABI call but
//! the constant getters `xpbd_default_*` and `xpbd_abi_version`; in Rust `World::step`,
//! `add_cloth`, `add_collider`, `set_collider_pose`, the statistics' first read, `Cloth::teleport`,
//! `set_pinned`, `unpin`, `set_params`, `set_constraint_colouring`, `restore_state` and `energy`)
//! runs with the default MXCSR ([`DEFAULT_MXCSR`]: round to nearest, no FTZ/DAZ, every exception
//! masked) and gives the thread back its own on return, sticky flags included (also when
//! unwinding); the world's pool threads are set to it when they start. While `World::step` waits
//! for the pool the Rust caller's thread is back in its own mode: a caller that is a worker of
//! another rayon pool runs that pool's jobs while it waits (a C caller cannot be one, and stays in
//! the default mode for the whole call, the guard of `ffi_boundary`). Elsewhere than x86-64 (and under Miri, which has no
//! inline assembly) this does nothing: aarch64's FPCR is not handled.

/// MXCSR at process start on x86-64 (Intel SDM vol. 1, §10.2.3): every exception masked (bits
/// 7–12), round to nearest (bits 13–14 clear), FTZ (bit 15) and DAZ (bit 6) off, no flags set.
pub(crate) const DEFAULT_MXCSR: u32 = 0x1F80;

/// While alive, the current thread computes with [`DEFAULT_MXCSR`]; dropping it gives the thread
/// back exactly the MXCSR it had, mode and sticky exception flags (so the flags the library's
/// arithmetic raises never show in the caller's `fetestexcept`, whatever its mode).
#[must_use = "the default mode lasts as long as the guard"]
pub(crate) struct DefaultFpEnv {
    /// The caller's MXCSR.
    saved: u32,
}

impl DefaultFpEnv {
    /// Switch the current thread to the default mode (its flags cleared). Costs a `stmxcsr` and
    /// an `ldmxcsr` here and on drop: a few tens of cycles per call.
    #[inline]
    pub fn enter() -> DefaultFpEnv {
        let saved = read_mxcsr();
        write_mxcsr(DEFAULT_MXCSR);
        DefaultFpEnv { saved }
    }
}

impl Drop for DefaultFpEnv {
    fn drop(&mut self) {
        write_mxcsr(self.saved);
    }
}

/// Put the current thread in the default mode for good (the world's pool threads, at start).
pub(crate) fn set_default_fp_env() {
    write_mxcsr(DEFAULT_MXCSR);
}

/// The current thread's MXCSR (0x1F80 where there is none to read).
#[inline]
pub(crate) fn read_mxcsr() -> u32 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let mut value = 0u32;
        // SAFETY: `stmxcsr` stores the 4-byte MXCSR at the address of `value`, a local we own;
        // it touches no other memory, stack or flags. SSE is part of the x86-64 baseline.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags)) };
        value
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    DEFAULT_MXCSR
}

/// Set the current thread's MXCSR to `value`, which must have come from [`read_mxcsr`] or be
/// [`DEFAULT_MXCSR`] (a reserved bit set would fault).
#[inline]
pub(crate) fn write_mxcsr(value: u32) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `ldmxcsr` loads MXCSR from the address of `value`, a local; its reserved bits are
    // clear (a value read from MXCSR, or the default). It changes how later SSE/AVX arithmetic on
    // this thread rounds and flushes, which is its purpose, and touches no memory.
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, preserves_flags, readonly))
    };
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = value;
}

#[cfg(all(test, target_arch = "x86_64", not(miri)))]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// FTZ and DAZ on, as engines set them.
    const FTZ_DAZ: u32 = DEFAULT_MXCSR | 1 << 15 | 1 << 6;

    /// A subnormal product: 0 under FTZ, not 0 in the default mode.
    fn subnormal_product() -> f32 {
        black_box(1.0e-36f32) * black_box(1.0e-3f32)
    }

    #[test]
    fn the_guard_computes_in_the_default_mode_and_gives_the_callers_mode_and_flags_back() {
        let before = read_mxcsr();
        // FTZ/DAZ on and the inexact flag (bit 5) already raised by the caller's own arithmetic.
        write_mxcsr(FTZ_DAZ | 1 << 5);
        assert_eq!(subnormal_product(), 0.0, "FTZ flushes the product");
        let caller = read_mxcsr();
        let inside = {
            let _env = DefaultFpEnv::enter();
            assert_eq!(read_mxcsr(), DEFAULT_MXCSR);
            subnormal_product() // raises underflow and inexact inside
        };
        let after = read_mxcsr();
        // A caller in the default mode gets its flags back too: none raised inside shows.
        write_mxcsr(DEFAULT_MXCSR);
        {
            let _env = DefaultFpEnv::enter();
            black_box(black_box(1.0f32) / black_box(0.0f32)); // divide-by-zero flag inside
        }
        let default_after = read_mxcsr();
        write_mxcsr(before);
        assert!(inside != 0.0 && inside.abs() < f32::MIN_POSITIVE, "{inside:e} is the subnormal product");
        assert_eq!(after, caller, "the caller's mode and flags are back");
        assert_eq!(default_after, DEFAULT_MXCSR, "no flag raised inside leaks out");
    }
}
