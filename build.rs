//! Generates the committed files that are derived from other sources:
//! - from the cloth parameter table (`src/cloth/desc/table.rs`, see `build/generate.rs`): the core's
//!   `ClothParams` with its defaults and range checks (`src/cloth/desc/generated.rs`), the C structs
//!   of a cloth's settings and their translation (`src/ffi/cloth_desc/generated.rs`), and
//!   `docs/parameters.md` (with the world and collider rows of `build/doc_tables.rs`);
//! - from the `src/ffi` exports: the C header `include/xpbd_cloth.h` with cbindgen, and the raw C#
//!   P/Invoke layer `bindings/csharp/NativeMethods.g.cs` with csbindgen (Unity-safe settings: Cdecl,
//!   `__Internal` on iOS/WebGL players, no `nint`, no function pointers).
//!
//! All are always generated into `OUT_DIR`; tests compare them with the committed files
//! (`committed_header_matches_cbindgen_output`, `committed_csharp_matches_csbindgen_output`,
//! `generated_files_match_the_parameter_table`). Outside CI the build also refreshes the committed
//! files (like snapshot tools do), so a developer just builds and commits. In CI (`CI` set) it
//! never writes into the source tree, so a stale committed file fails its test instead of being
//! silently regenerated. The table's Rust files are refreshed before cbindgen runs, since cbindgen
//! reads the committed sources.

use std::path::{Path, PathBuf};

// The parameter tables and their generator. The tables are also compiled into the crate and the
// tests, which use other parts of `spec`.
#[allow(dead_code)]
#[path = "src/cloth/desc/spec.rs"]
mod spec;
#[allow(dead_code)]
#[path = "src/cloth/desc/table.rs"]
mod table;
#[path = "build/doc_tables.rs"]
mod doc_tables;
#[path = "build/generate.rs"]
mod generate;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=docs/parameters.md");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=CI");

    for (name, text, committed) in [
        ("cloth_desc_core.rs", generate::core_source(), "src/cloth/desc/generated.rs"),
        ("cloth_desc_ffi.rs", generate::ffi_source(), "src/ffi/cloth_desc/generated.rs"),
        ("parameters.md", generate::parameters_md(), "docs/parameters.md"),
    ] {
        let generated = out_dir.join(name);
        std::fs::write(&generated, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", generated.display()));
        if !in_ci() {
            refresh_committed(&generated, &crate_dir.join(committed));
        }
    }

    let header = out_dir.join("xpbd_cloth.h");
    generate_c_header(&crate_dir, &header);
    let csharp = out_dir.join("NativeMethods.g.cs");
    generate_csharp(&crate_dir, &csharp);

    if !in_ci() {
        refresh_committed(&header, &crate_dir.join("include/xpbd_cloth.h"));
        refresh_committed(&csharp, &crate_dir.join("bindings/csharp/NativeMethods.g.cs"));
    }
}

fn generate_c_header(crate_dir: &Path, out: &Path) {
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is invalid");
    // Parse only the ABI module (following its `mod` declarations), so no core constant leaks into
    // the C namespace. Parsing files also avoids the `cargo metadata` call of `with_crate`, which
    // a build script should not make.
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen could not generate the C header");
    bindings.write_to_file(out);
}

/// Every `.rs` file under `dir`, its subfolders included.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let path = entry.expect("readable folder entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The raw C# layer. csbindgen does not follow `mod` declarations, so it reads every file under
/// `src/ffi` (sorted, so the output is stable; new export files are picked up); it keeps only `#[no_mangle] extern "C"` functions and the types they use.
fn generate_csharp(crate_dir: &Path, out: &Path) {
    let mut files = Vec::new();
    rust_files(&crate_dir.join("src/ffi"), &mut files);
    files.sort();

    let mut builder = csbindgen::Builder::default();
    for file in &files {
        builder = builder.input_extern_file(file);
    }
    builder
        .csharp_namespace("Xpbd.Native")
        .csharp_class_name("NativeMethods")
        .csharp_class_accessibility("public")
        .csharp_dll_name("xpbd_cloth")
        // iOS links the static library into the player and WebGL links it into the wasm module:
        // both resolve P/Invokes against the executable itself. The editor on any host loads the
        // shared library by name.
        .csharp_dll_name_if("(UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR", "__Internal")
        // Mono's mcs and older Unity versions know neither `nint` nor `delegate*`.
        .csharp_use_nint_types(false)
        .csharp_use_function_pointer(false)
        .csharp_generate_const_filter(|name| name == "XPBD_ABI_VERSION" || name.starts_with("XPBD_DEBUG_"))
        // Types no function signature names but C# callers need: the collider kind is a plain
        // `uint32_t` field of XpbdColliderDesc (so an unknown value is reported, not undefined),
        // and its values must come from the Rust enum rather than be retyped by hand.
        .always_included_types(["XpbdColliderId", "XpbdColliderKind"])
        .csharp_file_header(
            "// Raw P/Invoke layer of xpbd_cloth, generated by csbindgen from src/ffi (build.rs).\n\
             // Do not edit: change the Rust exports and their doc comments. The idiomatic layer\n\
             // (XpbdWorld, XpbdCloth) is hand-written next to this file.",
        )
        .generate_csharp_file(out)
        .expect("csbindgen could not generate the C# bindings");
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Copy when the content differs, so an unchanged file keeps its timestamp. A folder that cannot
/// be written (the crate built as a dependency from a read-only registry or vendor folder) gets a
/// warning, not a failed build: the crate compiles from the committed files, which the tests
/// compare with the generated ones.
fn refresh_committed(generated: &Path, committed: &Path) {
    let new = std::fs::read(generated).expect("just written");
    if std::fs::read(committed).ok().as_deref() != Some(new.as_slice()) {
        let written = std::fs::create_dir_all(committed.parent().expect("has a parent")).and_then(|()| std::fs::write(committed, new));
        if let Err(e) = written {
            println!("cargo:warning=could not refresh {} from the generated copy: {e}", committed.display());
        }
    }
}
