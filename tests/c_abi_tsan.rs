//! ThreadSanitizer from C (docs/c-cpp.md, "ThreadSanitizer"): `tests/c/tsan_game_loop.c`, a render
//! thread reading while the game thread runs the render-overlap loop with pins and grabs, is built
//! with `-fsanitize=thread` against the release-style library (not instrumented, as an engine
//! links it) and run. With the shipped suppression file (`.ci/tsan-uninstrumented.supp`) TSan
//! reports nothing; without it, every report it makes is inside the library (its intercepted
//! allocations and copies on either side of a hand-off TSan cannot see), none in the program.
//! Skipped, saying so, where the C compiler has no ThreadSanitizer. The library's own hand-offs
//! are checked by the instrumented run of `.ci/tsan.sh`.

mod ffi_common;

use ffi_common::library_dir;
use std::path::Path;
use std::process::{Command, Output};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The game loop built with `-fsanitize=thread`, or `None` when the compiler cannot.
fn build() -> Option<std::path::PathBuf> {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tsan_game_loop");
    let lib_dir = library_dir();
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-fsanitize=thread"])
        .arg(format!("-I{}", crate_dir().join("include").display()))
        .arg(crate_dir().join("tests/c/tsan_game_loop.c"))
        .arg(format!("-L{}", lib_dir.display()))
        .args(["-lxpbd_cloth", "-lm", "-lpthread"])
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{compiler}` ({e}); install a C compiler (.ci/test-all.sh does)"));
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A compiler without the runtime (no libtsan) cannot link; anything else is a failure.
        assert!(stderr.contains("tsan") || stderr.contains("sanitizer"), "compiling the TSan game loop failed:\n{stderr}");
        println!("skipped: `{compiler} -fsanitize=thread` is not available here:\n{stderr}");
        return None;
    }
    Some(exe)
}

fn run(exe: &Path, options: &str) -> Output {
    Command::new(exe).env("LD_LIBRARY_PATH", library_dir()).env("TSAN_OPTIONS", options).output().expect("run the TSan game loop")
}

#[test]
fn the_game_loop_under_thread_sanitizer_reports_nothing_with_the_shipped_suppressions() {
    let Some(exe) = build() else { return };
    let suppressions = crate_dir().join(".ci/tsan-uninstrumented.supp");
    let out = run(&exe, &format!("suppressions={} halt_on_error=1 exitcode=66", suppressions.display()));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !stderr.contains("ThreadSanitizer"), "{}:\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("frames: 120"), "{stdout}");

    // Without them: what TSan reports is the library's own intercepted calls, never the program.
    let out = run(&exe, "halt_on_error=0 exitcode=0");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reports: Vec<&str> = stderr.split("WARNING: ThreadSanitizer").skip(1).collect();
    println!("{} reports without the suppressions", reports.len());
    for report in &reports {
        // The two accesses (or the access and the free) are the report's first two stacks; the
        // threads' creation stacks follow.
        let stacks: Vec<&str> = report.split("\n\n").filter(|s| s.contains("    #0 ")).take(2).collect();
        for stack in &stacks {
            assert!(stack.contains("libxpbd_cloth") && !stack.contains("tsan_game_loop.c"), "an access outside the library:\n{report}");
        }
    }
}
