#!/usr/bin/env bash
# local-project.sh: a real local BOINC project running helix, for an admin to
# look at. Installs what is missing, builds, builds the upstream BOINC server
# (once), and sets up on this machine a private MariaDB, an Apache with PHP, a
# project made by make_project with helix's release installed as
# docs/deploy.md says, the daemons with helix's wrapper scripts, and Debian's
# boinc-client attached on 127.0.0.1. It runs WUs of all four kinds through
# the server (one task is made to crash and one result is forged, to show the
# retry and the validator at work), checks them as tests/server_e2e does, and
# leaves everything running: it prints the web pages' address, where the
# results are, and the script that stops it all.
#
#   sudo bash scripts/local-project.sh
#
# Needs root (the private MariaDB and Apache; Apache serves the project as
# www-data) and the BOINC server source tarball: HELIX_BOINC_SERVER_TARBALL,
# else what cmake found (build/CMakeCache.txt; ../shared/boinc/ holds one).
# About 3 min after the builds (the BOINC server's: about 5 min, once).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh
tarball=${HELIX_BOINC_SERVER_TARBALL:-$(sed -n 's/^HELIX_BOINC_SERVER_TARBALL:FILEPATH=//p' build/CMakeCache.txt)}
HELIX_SERVER_E2E_STAY=1 bash tests/server_e2e/boinc_server_e2e.sh "$PWD" "$PWD/build" "$tarball"
