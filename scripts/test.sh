#!/usr/bin/env bash
# Builds ringbench and runs every test that this machine can run (all but the `gpu` label when there
# is no GPU). Installs missing packages first. Usage: bash scripts/test.sh [preset]  (default: ci)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash scripts/setup.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
