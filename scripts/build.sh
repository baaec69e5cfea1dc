#!/usr/bin/env bash
# build.sh: configures and builds helix with the `dev` preset (build dir ./build,
# one CUDA architecture, tests included). Incremental after the first run.
#
#   bash scripts/build.sh [extra `cmake --build` arguments, e.g. --target helix]
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${HELIX_BUILD_JOBS:-$(nproc)}
cmake --preset dev
cmake --build build -j"$jobs" "$@"
