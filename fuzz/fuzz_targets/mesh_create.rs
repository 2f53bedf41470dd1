//! Fuzz target (a): a mesh from arbitrary bytes through `xpbd_cloth_create` — counts, indices,
//! coordinates (NaN, ±Inf, huge, denormal, any bit pattern), weld tolerance, inverse masses — then
//! pins, steps and reads. The checks are the property test's (`tests/abi_harness/mesh.rs`).
#![no_main]

#[path = "../../tests/abi_harness/mod.rs"]
mod abi_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    abi_harness::mesh::check_arbitrary_mesh(data);
});
