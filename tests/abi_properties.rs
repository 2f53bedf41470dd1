//! Property tests of the C ABI (docs/robustness.md, "Testing the C ABI"): random call sequences and
//! random small meshes, driven through the exported functions by the model-checking harness in
//! `tests/abi_harness` (which the fuzz targets in `fuzz/` share). For every call: the documented
//! result code (never `XPBD_RESULT_PANIC`), a message naming the function on failure, no state
//! change on failure or read, live counts equal to the model's and zero after destroying
//! everything.
//!
//! proptest generates the programs as byte strings, which the harness decodes; a failure is
//! shrunk to a short program and printed with the trace of its last calls. An input that the
//! fuzzers (`fuzz/`) or these properties find failing is added here as a regression test that
//! replays its bytes (none so far: no run has failed).

// `!(c.abs() <= 1.0e5)` rejects NaN coordinates together with far ones.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
mod abi_harness;

use abi_harness::mesh::check_arbitrary_mesh;
use abi_harness::{Harness, SERIAL};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// The harness checks process-wide live counts: one test at a time in this binary.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn config(cases: u32) -> Config {
    // Failures are reported with their input; the regression tests below keep the ones worth
    // keeping, so no `proptest-regressions/` files are written next to the sources.
    Config { cases, failure_persistence: Some(Box::new(FileFailurePersistence::Off)), ..Config::default() }
}

proptest! {
    #![proptest_config(config(256))]

    /// Up to ~600 calls per program: worlds, cloths and colliders created and destroyed with
    /// valid, stale, null and forged ids, buffers of every wrong size, values out of range.
    #[test]
    fn call_sequences_return_documented_codes_and_leak_nothing(program in prop::collection::vec(any::<u8>(), 0..4096)) {
        let _serial = serial();
        Harness::run(&program, 1000);
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Meshes from arbitrary bytes: counts, indices, NaN/huge/denormal coordinates, weld
    /// tolerance, inverse masses, pins.
    #[test]
    fn arbitrary_meshes_are_created_or_rejected_as_documented(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        let _serial = serial();
        check_arbitrary_mesh(&bytes);
    }
}

/// The harness's checks are not vacuous: on random programs most calls succeed (the model
/// predicts successes, not only errors), every operation row is reached, and programs create
/// and destroy objects.
#[test]
fn random_programs_exercise_successes_and_failures() {
    let _serial = serial();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let (mut calls, mut successes) = (0, 0);
    let mut ops_run = vec![0; abi_harness::OPS.len()];
    for _ in 0..20 {
        let program: Vec<u8> = (0..1500)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let h = Harness::run(&program, 400);
        calls += h.calls;
        successes += h.successes;
        ops_run.iter_mut().zip(&h.ops_run).for_each(|(total, n)| *total += n);
    }
    let never: Vec<_> = abi_harness::OPS.iter().zip(&ops_run).filter(|(_, n)| **n == 0).map(|(op, _)| op.0).collect();
    assert!(never.is_empty(), "operations never run: {never:?}");
    eprintln!("{calls} calls, {successes} succeeded, per operation {ops_run:?}");
    assert!(calls > 3_000, "only {calls} calls checked");
    let ratio = successes as f64 / calls as f64;
    assert!((0.2..0.9).contains(&ratio), "{successes} of {calls} calls succeeded");
}
