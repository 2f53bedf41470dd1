//! Fuzz target (b): the input is a program of C ABI calls (worlds, cloths, colliders: create,
//! destroy, step, read, pins, settings, poses, hashes, statistics) with live, stale, null and
//! forged ids and buffers of random sizes, checked against the harness's model after every call
//! (`tests/abi_harness/mod.rs`, shared with `tests/abi_properties.rs`).
#![no_main]

#[path = "../../tests/abi_harness/mod.rs"]
mod abi_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    abi_harness::Harness::run(data, 1000);
});
