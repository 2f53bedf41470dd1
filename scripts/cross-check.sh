#!/usr/bin/env bash
# Cross-build the static library for every platform docs/install.md lists, to catch code that does
# not build there (x86-only paths without a cfg guard, platform-only calls). Static libraries need
# no linker of the target, so this runs on Linux; it installs the targets' standard libraries with
# rustup. Not part of the test command (about 45 s a target on 2 cores).
#
#   bash scripts/cross-check.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-pc-windows-gnu x86_64-pc-windows-msvc x86_64-apple-darwin
    aarch64-apple-darwin aarch64-linux-android aarch64-apple-ios aarch64-unknown-linux-gnu)
rustup target add "${targets[@]}"
failed=0
for target in "${targets[@]}"; do
    if CARGO_TARGET_DIR=target/cross cargo rustc --release --lib --crate-type staticlib --target "$target" \
        --quiet -- -D warnings; then
        echo "ok - $target"
    else
        echo "FAILED - $target"
        failed=$((failed + 1))
    fi
done
echo "cross-check: $((${#targets[@]} - failed)) passed, $failed failed"
[ "$failed" = 0 ]
