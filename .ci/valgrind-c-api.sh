#!/usr/bin/env bash
# The C examples and the C error-path program under valgrind, linked to the release cdylib:
# no bytes definitely lost and no invalid reads/writes (any valgrind error fails the run).
# "Possibly lost" blocks are allowed: worker threads of a world's thread pool may still be
# winding down at exit. Called by .ci/test-all.sh, which installs valgrind and a C compiler.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib # refreshes target/release/libxpbd_cloth.so
lib="$PWD/target/release"
out="$PWD/target/valgrind"
mkdir -p "$out"

for src in examples/c/hanging_cloth.c examples/c/drape_on_sphere.c tests/c/error_paths.c; do
    exe="$out/$(basename "$src" .c)"
    log="$exe.valgrind.log"
    cc -std=c11 -g -O1 -Iinclude "$src" -L"$lib" -lxpbd_cloth -lm -Wl,-rpath,"$lib" -o "$exe"
    status=0
    valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
        --log-file="$log" "$exe" >/dev/null || status=$?
    if [ "$status" -ne 0 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$log" \
        || ! grep -Eq "definitely lost: 0 bytes|All heap blocks were freed" "$log"; then
        cat "$log"
        echo "valgrind: $src FAILED (exit $status)" >&2
        exit 1
    fi
    echo "valgrind: $src: $(grep -Eo 'definitely lost: [0-9,]+ bytes|All heap blocks were freed' "$log" | head -1), $(grep -Eo 'ERROR SUMMARY: [0-9]+ errors' "$log")"
done
