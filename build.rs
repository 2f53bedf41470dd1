//! Generates the C header `include/xpbd_cloth.h` from the `src/ffi` exports with cbindgen.
//!
//! The header is always generated into `OUT_DIR`; the test `committed_header_matches_cbindgen_output`
//! compares that with the committed file. Outside CI the build also refreshes the committed file
//! (like snapshot tools do), so a developer just builds and commits. In CI (`CI` set) it never
//! writes into the source tree, so a stale committed header fails the test instead of being
//! silently regenerated.

use std::path::{Path, PathBuf};

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=CI");

    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is invalid");
    // Parse only the ABI module (following its `mod` declarations) and the statistics structs it
    // returns, so no core constant leaks into the C namespace. Parsing files also avoids the
    // `cargo metadata` call of `with_crate`, which a build script should not make.
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .with_src(crate_dir.join("src/stats.rs"))
        .generate()
        .expect("cbindgen could not generate the C header");
    let generated = out_dir.join("xpbd_cloth.h");
    bindings.write_to_file(&generated);

    if !in_ci() {
        refresh_committed_header(&generated, &crate_dir.join("include/xpbd_cloth.h"));
    }
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Copy when the content differs, so an unchanged header keeps its timestamp.
fn refresh_committed_header(generated: &Path, committed: &Path) {
    let new = std::fs::read(generated).expect("just written");
    if std::fs::read(committed).ok().as_deref() != Some(new.as_slice()) {
        std::fs::create_dir_all(committed.parent().expect("has a parent")).expect("cannot create include/");
        std::fs::write(committed, new).expect("cannot write include/xpbd_cloth.h");
    }
}
