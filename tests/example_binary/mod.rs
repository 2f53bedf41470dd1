//! Builds an example binary for the integration tests that run it as a user would.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
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
