#!/usr/bin/env bash
# Unsafe code under Miri, which reports data races, invalid accesses and reads of uninitialised
# memory: the team's (src/constraints/team/ and src/solver/step_team.rs: particle rows,
# multipliers, x_prev and v written by several threads, ordered by colour and particle bounds) and
# the C ABI's output arrays (src/out.rs, src/ffi/args.rs: caller memory that may be
# uninitialised). Opt-in (not part of .ci/test-all.sh): Miri needs a nightly toolchain, builds the
# dependencies for itself and interprets the tests ~1000x slower (about 6 min here).
#   -Zmiri-tree-borrows       crossbeam-epoch (under rayon) breaks the stricter Stacked Borrows
#   -Zmiri-deterministic-floats  the tests compare bits of `sin` between two runs; Miri otherwise
#                             perturbs the last bits of such functions on every call
#   -Zmiri-ignore-leaks       rayon's pool threads are still parked when a test returns
#   --skip relayout           the filter out::tests also matches cloth::relayout::tests (slow
#                             here, and it starts a thread Miri's isolation refuses)
set -euo pipefail
cd "$(dirname "$0")/.."
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
rustup component add --toolchain nightly miri rust-src
MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-deterministic-floats -Zmiri-ignore-leaks" \
    cargo +nightly miri test --lib -- constraints::team solver::step_team out::tests ffi::args --skip relayout
