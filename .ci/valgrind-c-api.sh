#!/usr/bin/env bash
# The C examples, the C error-path program and the unload program (tests/c/unload_cycles.c: 50
# cycles of dlopen, a world with 2 threads, destroy, dlclose) under valgrind, linked to or loading
# the release cdylib: no bytes definitely or possibly lost and no invalid reads/writes (any
# valgrind error fails the run). The only suppressions are crossbeam-epoch's collector under
# rayon (.ci/valgrind-crossbeam-epoch.supp says why); the suppressed bytes, and the bytes only
# they point to ("indirectly lost"), are printed.
# Called by .ci/test-all.sh, which installs valgrind and a C compiler.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib # refreshes target/release/libxpbd_cloth.so
lib="$PWD/target/release"
out="$PWD/target/valgrind"
mkdir -p "$out"

# Each program: source, how it links, its arguments. The unload program loads the library itself
# (libdl only), and keeps the unloaded library's symbols (--keep-debuginfo) so that the leak
# report can name (and the suppressions match) frames of code that is no longer mapped.
run() {
    local src=$1 link=$2
    shift 2
    local exe
    exe="$out/$(basename "$src" .c)"
    local log="$exe.valgrind.log"
    # shellcheck disable=SC2086 # $link is a list of linker arguments
    cc -std=c11 -g -O1 -Iinclude "$src" $link -o "$exe"
    local status=0
    valgrind --leak-check=full --errors-for-leak-kinds=definite,possible --error-exitcode=99 \
        --keep-debuginfo=yes --suppressions=.ci/valgrind-crossbeam-epoch.supp \
        --log-file="$log" "$exe" "$@" >/dev/null || status=$?
    if [ "$status" -ne 0 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$log" \
        || ! grep -Eq "definitely lost: 0 bytes|All heap blocks were freed" "$log" \
        || grep -Eq "possibly lost: [1-9]" "$log"; then
        cat "$log"
        echo "valgrind: $src FAILED (exit $status)" >&2
        exit 1
    fi
    local summary
    summary=$(grep -Eo '(definitely|indirectly|possibly) lost: [0-9,]+ bytes|suppressed: [0-9,]+ bytes|All heap blocks were freed' "$log" | paste -sd ';' - | sed 's/;/; /g')
    echo "valgrind: $src: $summary, $(grep -Eo 'ERROR SUMMARY: [0-9]+ errors' "$log")"
}

linked="-L$lib -lxpbd_cloth -lm -Wl,-rpath,$lib"
run examples/c/hanging_cloth.c "$linked"
run examples/c/drape_on_sphere.c "$linked"
run tests/c/error_paths.c "$linked"
run tests/c/unload_cycles.c "-ldl" "$lib/libxpbd_cloth.so" 50
