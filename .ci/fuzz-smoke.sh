#!/usr/bin/env bash
# Fuzzing smoke run, part of .ci/test-all.sh: both cargo-fuzz targets in fuzz/ (its own workspace,
# which nothing else builds) are built with debug assertions and AddressSanitizer and each runs
# for XPBD_FUZZ_SECONDS (default 30) from fuzz/corpus/<target>. Any crash, panic, leak, timeout or
# out-of-memory makes libFuzzer exit non-zero, which fails this script; the input that did it is
# saved in fuzz/artifacts/<target>/ (fuzz/README.md: how to replay it and keep it as a test).
# call_sequence checks for leaks when it exits, not after every input (-detect_leaks=0: the
# per-input check scanned the heap after most inputs, 3.5 times the cost of running them; the
# harness's live counts still catch an object left alive after every program), and prints how
# many programs it ran.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${XPBD_FUZZ_SECONDS:-30}

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address); a stable toolchain accepts them so.
export RUSTC_BOOTSTRAP=1
cargo fuzz build -a
# The options of fuzz/README.md: call programs long from the start.
cargo fuzz run -a mesh_create -- -max_total_time="$seconds" -print_final_stats=1
cargo fuzz run -a call_sequence -- -max_total_time="$seconds" -len_control=0 -max_len=1024 -detect_leaks=0 -print_final_stats=1
echo "fuzz: mesh_create and call_sequence ran ${seconds} s each without a crash"
