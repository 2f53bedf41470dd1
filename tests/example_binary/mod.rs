//! Builds and runs an example binary for the integration tests that run it as a user would.
// Each test crate that includes this module uses only some of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// Build example `name` once per test process (release-like: the examples simulate real meshes)
/// into the target directory this test runs from, and return its path. `cargo test --all-targets`
/// builds examples only as test harnesses, so a test cannot assume the plain binary exists or is
/// current.
pub fn example_binary(name: &'static str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<&'static str, PathBuf>>> = OnceLock::new();
    // Held while building: two tests asking for the same example build it once.
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    built.entry(name).or_insert_with(|| build(name)).clone()
}

fn build(name: &str) -> PathBuf {
    // This test runs as <target>/<profile>/deps/<test>-<hash>.
    let exe = std::env::current_exe().expect("test executable path");
    let target_dir = exe.ancestors().nth(3).expect("test runs inside a target directory").to_path_buf();
    // Build with the profile this test was built with, so its dependencies are reused:
    // `target/release` is `--release`, `target/debug` is plain `cargo test` (the test profile),
    // any other folder is a named profile (`--profile ci` from .ci/test-all.sh).
    let profile_dir = exe.ancestors().nth(2).and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("release");
    let profile = match profile_dir {
        "debug" => "test",
        other => other,
    };
    let status = Command::new(env!("CARGO"))
        .args(["build", "--profile", profile, "--example", name, "--target-dir"])
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build");
    assert!(status.success(), "building the {name} example failed");
    target_dir.join(profile_dir).join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Example `name` run with `args` to its end, its output captured.
pub fn run(name: &'static str, args: &[&str]) -> Output {
    Command::new(example_binary(name)).args(args).output().unwrap_or_else(|e| panic!("start the {name} example: {e}"))
}

/// [`run`] with standard output on /dev/full, where every write fails with "No space left on
/// device" (how the tests check that output errors end a program with a message, not a panic).
#[cfg(target_os = "linux")]
pub fn run_with_full_stdout(name: &'static str, args: &[&str]) -> Output {
    let full = std::fs::File::create("/dev/full").expect("/dev/full");
    Command::new(example_binary(name))
        .args(args)
        .stdout(full)
        .output()
        .unwrap_or_else(|e| panic!("start the {name} example: {e}"))
}

/// A run's standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
