//! The library unloads after use (docs/c-cpp.md, "Threads"): `tests/c/unload_cycles.c`, compiled
//! with the system C compiler (`CC`, default `cc`) and linked only to libdl, loads the cdylib that
//! cargo built for this test run with `dlopen` 50 times. Each cycle creates a world with 2 worker
//! threads, steps a cloth, fails a call (so the thread has a last error message), destroys the
//! world and `dlclose`s the library; the program checks the thread count after every destroy and
//! the process's mappings after every `dlclose`. `.ci/valgrind-c-api.sh` runs it under valgrind
//! too.
#![cfg(target_os = "linux")]

mod ffi_common;

use ffi_common::library_dir;
use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::Path;
use std::process::Command;

#[test]
fn fifty_load_use_unload_cycles_leave_no_thread_and_no_mapping() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unload_cycles");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(format!("-I{}", crate_dir.join("include").display()))
        .arg(crate_dir.join("tests/c/unload_cycles.c"))
        .args(["-ldl", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{compiler}` ({e}); install a C compiler (.ci/test-all.sh does)"));
    assert!(output.status.success(), "compiling unload_cycles.c failed:\n{}", String::from_utf8_lossy(&output.stderr));

    let library = library_dir().join(format!("{DLL_PREFIX}xpbd_cloth{DLL_SUFFIX}"));
    let output = Command::new(&exe).arg(&library).arg("50").output().expect("run unload_cycles");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "unload_cycles failed ({}):\n{stdout}\n{stderr}", output.status);

    // "50 cycles: B threads before, W with each world, A after each destroy; unmapped after each dlclose"
    let numbers: Vec<u32> = stdout.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    let [cycles, before, with_world, after] = numbers[..] else { panic!("unexpected summary: {stdout}") };
    assert_eq!(cycles, 50, "{stdout}");
    assert_eq!((with_world, after), (before + 2, before), "{stdout}");
    assert!(stdout.contains("unmapped after each dlclose"), "{stdout}");
}
