//! The C API proven from C and C++: `examples/c/hanging_cloth.c`, `examples/c/drape_on_sphere.c`,
//! `tests/c/error_paths.c` and `tests/c/header_cpp17.cpp` are compiled with the system compiler
//! (`CC`/`CXX`, default `cc`/`c++`) against `include/` and the cdylib that cargo built for this
//! test run, then run.

mod ffi_common;

use ffi_common::{DrapeOnSphere, library_dir, rust_drape_on_sphere, rust_hanging_cloth};
use std::path::{Path, PathBuf};
use std::process::Command;
use xpbd_cloth::ClothParams;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Compile `source` (relative to the crate) with warnings as errors and link it to the cdylib.
fn compile(compiler_var: &str, default_compiler: &str, standard: &str, source: &str) -> PathBuf {
    let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(stem);
    let lib_dir = library_dir();
    let compiler = std::env::var(compiler_var).unwrap_or_else(|_| default_compiler.to_string());
    let output = Command::new(&compiler)
        .args([standard, "-Wall", "-Wextra", "-Werror", "-pedantic", "-ffp-contract=off"])
        .arg(format!("-I{}", crate_dir().join("include").display()))
        .arg(crate_dir().join(source))
        .arg(format!("-L{}", lib_dir.display()))
        .args(["-lxpbd_cloth", "-lm"])
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{compiler}` ({e}); install a C/C++ compiler (.ci/test-all.sh does)"));
    assert!(output.status.success(), "compiling {source} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    exe
}

/// Run a compiled program; panic with its output unless it exits 0. Returns stdout.
fn run(exe: &Path) -> String {
    // cargo test's LD_LIBRARY_PATH also lists target/<profile>, where a `cargo build` leaves a
    // copy of the library that may be stale; it would win over the rpath. Only this run's build.
    let output = Command::new(exe).env("LD_LIBRARY_PATH", library_dir()).output().expect("run compiled program");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{} failed ({}):\n{stdout}\n{stderr}", exe.display(), output.status);
    stdout.into_owned()
}

#[test]
fn c_example_matches_the_rust_api_to_the_bit() {
    let stdout = run(&compile("CC", "cc", "-std=c11", "examples/c/hanging_cloth.c"));
    let c_bits = bits_line(&stdout, 4);
    let (mid, strain) = rust_hanging_cloth();
    let rust_bits = vec![mid[0].to_bits(), mid[1].to_bits(), mid[2].to_bits(), strain.to_bits()];
    assert_eq!(c_bits, rust_bits, "C printed:\n{stdout}\nRust: midpoint {mid:?} m, strain {strain}");
    // And the scene did what a hanging cloth does: the bottom edge fell from y = 0 and the
    // edges are stretched a little, not torn.
    assert!(mid[1] < 0.0 && mid[1] > -0.2, "{mid:?}");
    assert!(strain > 0.0 && strain < 0.2, "{strain}");
}

/// The numbers after a `bits: ` line, hexadecimal or decimal as printed.
fn bits_line(stdout: &str, hex: usize) -> Vec<u32> {
    let line = stdout.lines().find_map(|l| l.strip_prefix("bits: ")).expect("a `bits:` line");
    let words = line.split_whitespace().enumerate();
    words.map(|(i, w)| u32::from_str_radix(w, if i < hex { 16 } else { 10 }).unwrap()).collect()
}

#[test]
fn c_sphere_example_matches_the_rust_api_to_the_bit() {
    // The example itself fails unless no vertex is inside the thickened sphere by more than 1 %
    // of the thickness (checked in C from the positions it read).
    let stdout = run(&compile("CC", "cc", "-std=c11", "examples/c/drape_on_sphere.c"));
    let DrapeOnSphere { top, lowest, penetration, contacts, .. } = rust_drape_on_sphere();
    let rust_bits = vec![top[1].to_bits(), lowest.to_bits(), penetration.to_bits(), contacts];
    assert_eq!(bits_line(&stdout, 3), rust_bits, "C printed:\n{stdout}\nRust: top {top:?} m, lowest {lowest} m");
    // It rests on the sphere: the vertex over the top touches the thickened surface, the flaps
    // hang below the equator.
    let thickness = ClothParams::default().collision_thickness;
    let gap = (top[0] * top[0] + top[1] * top[1] + top[2] * top[2]).sqrt() - 0.3 - thickness;
    assert!(gap.abs() <= 0.01 * thickness, "the vertex over the top is {gap} m off the thickened sphere");
    assert!(lowest < 0.0 && contacts > 100 && penetration <= 0.01 * thickness, "{stdout}");
}

#[test]
fn c_error_paths_return_their_exact_codes() {
    let stdout = run(&compile("CC", "cc", "-std=c11", "tests/c/error_paths.c"));
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: u32 = summary.split(' ').next().unwrap().parse().expect("`N passed, M failed`");
    assert!(summary.ends_with(" passed, 0 failed") && passed >= 100, "{stdout}");
}

#[test]
fn header_compiles_and_runs_as_cpp17() {
    run(&compile("CXX", "c++", "-std=c++17", "tests/c/header_cpp17.cpp"));
}
