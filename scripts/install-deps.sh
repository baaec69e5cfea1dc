#!/usr/bin/env bash
# install-deps.sh: installs the Debian 12 packages helix needs to build, test and
# run its demo. Idempotent: asks apt only when something is missing (then runs
# `apt-get update` once). Works as root; uses sudo otherwise.
#
#   bash scripts/install-deps.sh
#   bash scripts/install-deps.sh --list    # prints the package list, installs nothing
#
# tests/deps/debian_deps.py checks this list against what the build, the tests
# and the demo really use (CTest: debian_deps).
#
# The CUDA toolkit (nvcc 13 under /usr/local/cuda) is not a Debian package: it is
# checked for, not installed.
set -euo pipefail

packages=(
  cmake g++ pkg-config python3
  libboinc-app-dev boinc-client            # BOINC API (app) and the real client (e2e test)
  libcli11-dev nlohmann-json3-dev libpugixml-dev libfmt-dev
  libzstd-dev zstd                          # zstd frames in .hxv/.hxl; the CLI for the demo's Dice
  libnifti2-dev libpng-dev zlib1g-dev
  libopencv-imgproc-dev                    # glcm work generator: circular-well detector (server tools only)
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-skimage                          # reference GLCM features for the glcm tests
  otb-bin                                  # OTB HaralickTextureExtraction: second GLCM reference (glcm tests)
  ncbi-data                                # NCBI substitution matrices (BLOSUM, PAM) for swsearch
  libparasail-dev                          # parasail library and header: swsearch CPU engine
  parasail ssw-align                       # parasail_aligner and ssw_test: swsearch score oracles
  hmmer hmmer-examples mmseqs2-examples    # hmmsearch oracle; real protein sequences
  clang libclang-rt-14-dev                 # libFuzzer + ASan/UBSan for the parser fuzz targets (scripts/fuzz.sh)
  # The real-server e2e test (tests/server_e2e) and scripts/local-project.sh: the
  # upstream BOINC server built from source, with its own MariaDB, Apache + PHP
  # and make_project's Python (MySQLdb).
  autoconf automake libtool m4 make xz-utils
  libcurl4-openssl-dev default-libmysqlclient-dev libssl-dev libzip-dev
  mariadb-server apache2 libapache2-mod-php php-cli php-mysql php-xml python3-mysqldb
)

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "install-deps: error: not root and no sudo; install as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: warning: no nvcc (expected /usr/local/cuda/bin/nvcc, CUDA 13); the build needs it" >&2
fi
