#!/usr/bin/env bash
# The one command that runs every test (README's second command). It installs what it needs on a
# fresh Debian machine first, so that a clean checkout passes without manual steps.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's start, so that a run near the 20-minute budget shows where the time goes.
stage() { echo "test-all: $1 from ${SECONDS} s"; }

# The C ABI tests compile C11 and C++17 programs (tests/c_abi_programs.rs) and run them under
# valgrind (.ci/valgrind-c-api.sh). The C# tests (tests/csharp_mono.rs) compile with Mono's mcs
# and run with mono (Debian: mono-mcs, mono-runtime). The package check (.ci/dist-check.sh) builds
# consumer programs with CMake, make and pkg-config and reads the Unity package.json with Python.
missing=()
command -v cc >/dev/null || missing+=(gcc libc6-dev)
command -v c++ >/dev/null || missing+=(g++)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v mcs >/dev/null || missing+=(mono-mcs)
command -v mono >/dev/null || missing+=(mono-runtime)
command -v cmake >/dev/null || missing+=(cmake)
command -v make >/dev/null || missing+=(make)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Optimised tests (the solver experiments step thousands of substeps), with the `ci` profile:
# release optimisation without LTO, so the many test binaries compile in a fraction of the time.
stage "tests"
cargo test --profile ci --all-targets
stage "doc tests"
cargo test --profile ci --doc
# The API docs build without warnings (an unresolved or private intra-doc link fails), private
# items included. Units in brackets are escaped in doc comments (`\[m\]`): rustdoc reads a bare
# `[m]` as a link to an item named m.
stage "API docs"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --document-private-items --quiet
stage "valgrind"
bash .ci/valgrind-c-api.sh
# The asynchronous game loop under ThreadSanitizer, with the library and Rust's standard library
# instrumented (installs the rust-src component if missing).
stage "ThreadSanitizer"
bash .ci/tsan.sh
# The fuzz targets (fuzz/) build and run briefly without a crash: nothing else builds them, so
# they would rot unseen (they did once). Installs cargo-fuzz if missing.
stage "fuzzing"
bash .ci/fuzz-smoke.sh

# The Godot bridge (bindings/godot) is its own cargo workspace. Its Godot-free conversions (surface
# arrays, winding and normals, vertex buffer encoding, parameters, pins, shapes) are unit-tested
# without compiling godot-rust. A fresh `cargo check` of godot-rust takes ~11 min on a 2-core
# machine, more than this whole suite, so the Godot side is type-checked only on request. The
# unit tests build into target/godot-ci, not the root's target/ci: the core is a cdylib, so its
# rlib's file name carries no hash, and a build from this workspace overwrote the root's
# target/ci/deps/libxpbd_cloth.rlib with one linked against this workspace's glam. Cargo still
# counted the root's copy as fresh, so the next root build of anything that uses the crate (a
# touched test, `cargo run --profile ci --example demo`) failed on "two versions of glam".
stage "Godot bridge"
(cd bindings/godot && CARGO_TARGET_DIR="$PWD/../../target/godot-ci" cargo test --profile ci --no-default-features)
if [ "${XPBD_GODOT_CHECK:-0}" = 1 ]; then
    (cd bindings/godot && cargo check --release)
fi

# The Unity package: build-native.sh fills it for this host (native library + a copy of the
# bindings), and the filled Runtime/ then compiles on its own against the Unity API it uses
# (tests/csharp/UnityStubs.cs), as Unity would compile the package's assembly.
stage "Unity package"
bash unity-sample/build-native.sh
mcs -target:library -unsafe -warnaserror+ -nologo -out:target/unity-package-check.dll \
    -recurse:'unity-sample/Runtime/*.cs' tests/csharp/UnityStubs.cs
echo "unity-sample: package compiles with its copied bindings"

# The installable packages (scripts/dist.sh): made, moved and consumed as their users would
# (CMake find_package and pkg-config programs, shared and static; the Unity tarball compiled).
stage "packages"
bash .ci/dist-check.sh
echo "test-all: all passed in ${SECONDS} s"
