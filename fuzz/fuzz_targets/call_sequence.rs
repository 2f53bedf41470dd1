//! Fuzz target (b): the input is a run of programs of C ABI calls (worlds, cloths, colliders:
//! create, destroy, step, advance, read, pins, grabs, settings, poses, hashes, statistics) with
//! live, stale, null and forged ids and buffers of random sizes, each program checked against the
//! harness's model after every call and from nothing to its end (`tests/abi_harness/mod.rs`,
//! shared with `tests/abi_properties.rs`). Short programs, several per input: libFuzzer's own work
//! per input (collecting coverage) is shared by them. The number of programs run is printed at
//! exit ("call_sequence: N sequences").
#![no_main]

#[path = "../../tests/abi_harness/mod.rs"]
mod abi_harness;

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

/// Operations per program: enough to create a world, cloths and colliders and work on them.
const OPS_PER_SEQUENCE: usize = 16;

/// Operations of a long program: an input whose first byte is below [`LONG`] is one program, so
/// that the fuzzer can still build states only many calls reach (1 in 8 random inputs).
const OPS_PER_LONG_SEQUENCE: usize = 128;
const LONG: u8 = 16;

/// Programs run in this process.
static SEQUENCES: AtomicU64 = AtomicU64::new(0);

unsafe extern "C" {
    /// The C library's: `report` runs when libFuzzer ends the process with `exit`.
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn report() {
    eprintln!("call_sequence: {} sequences", SEQUENCES.load(Ordering::Relaxed));
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    static REGISTER: Once = Once::new();
    // SAFETY: `report` is a plain function that lives as long as the process.
    REGISTER.call_once(|| unsafe {
        atexit(report);
    });
    let ran = match data.split_first() {
        Some((&mode, program)) if mode < LONG => abi_harness::Harness::run_sequences(program, OPS_PER_LONG_SEQUENCE),
        Some((_, programs)) => abi_harness::Harness::run_sequences(programs, OPS_PER_SEQUENCE),
        None => 0,
    };
    SEQUENCES.fetch_add(ran as u64, Ordering::Relaxed);
});
