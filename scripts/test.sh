#!/usr/bin/env bash
# test.sh: installs dependencies, builds (preset dev) and runs every test:
#
#   bash scripts/test.sh
#
# which ends in exactly the README's test command:
#   ctest --test-dir build --output-on-failure -j2
# GPU tests skip without a GPU; the BOINC end-to-end test skips (code 77) only
# when /usr/bin/boinc is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j2
