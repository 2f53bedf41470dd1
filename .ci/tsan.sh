#!/usr/bin/env bash
# ThreadSanitizer over the library's own threads, part of .ci/test-all.sh: the library, its
# dependencies and Rust's standard library are built with -Zsanitizer=thread (-Zbuild-std, so
# that TSan sees the standard library's atomics, locks and condition variables and rayon's
# queues too: without it every hand-off would look like a race), and the asynchronous game-loop
# tests run under it: the render-overlap loop with a render thread reading through 1 000 frames'
# brackets and the advance brackets (tests/async_step.rs), pin changes built on the layout thread
# (tests/pins.rs), and C ABI calls from many threads (tests/c_abi_threads.rs). Any report fails
# the run (exit code 66). A stable toolchain accepts the -Z flags with RUSTC_BOOTSTRAP=1, as
# cargo-fuzz's do in .ci/fuzz-smoke.sh; -Zbuild-std needs the rust-src component (installed here
# if missing). Programs that link the release library, which is not instrumented, use the
# suppressions of .ci/tsan-uninstrumented.supp instead (tests/c_abi_tsan.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup component list --installed | grep -q '^rust-src' && ! rustup component add rust-src; then
    # The issue's "where the toolchain allows": without the standard library's sources the
    # instrumented build cannot be made; say so rather than fail the whole test command.
    echo "tsan: SKIPPED, the rust-src component cannot be installed on this machine" >&2
    exit 0
fi
target="$(rustc -vV | sed -n 's/^host: //p')"
export RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zsanitizer=thread" CARGO_TARGET_DIR="$PWD/target/tsan"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
run() { cargo test -Zbuild-std --target "$target" --profile ci "$@"; }
run --test async_step -- advance
run --test pins
run --test c_abi_threads
echo "tsan: the asynchronous game-loop tests ran without a report"
