#!/usr/bin/env bash
# install-deps.sh: installs the Debian 12 packages helix needs to build, test and
# run its demo. Idempotent: asks apt only when something is missing (then runs
# `apt-get update` once). Works as root; uses sudo otherwise.
#
#   bash scripts/install-deps.sh
#   bash scripts/install-deps.sh --list    # prints the package list, installs nothing
#
# The list: the packages below (the core's, the tools', and those several kinds
# share), then every kernels/<kind>/debian-packages: the packages only that
# kind needs, one a line, `# comment` allowed.
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
  libzstd-dev                              # zstd frames in mrf's .hxv/.hxl and glcm's files
  libpng-dev zlib1g-dev
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  hmmer-examples mmseqs2-examples          # real protein sequences and profiles: the sequence kinds' examples and tests
  clang libclang-rt-14-dev                 # libFuzzer + ASan/UBSan for the parser fuzz targets (scripts/fuzz.sh)
  # The real-server e2e test (tests/server_e2e) and scripts/local-project.sh: the
  # upstream BOINC server built from source, with its own MariaDB, Apache + PHP
  # and make_project's Python (MySQLdb).
  autoconf automake libtool m4 make xz-utils
  libcurl4-openssl-dev default-libmysqlclient-dev libssl-dev libzip-dev
  mariadb-server apache2 libapache2-mod-php php-cli php-mysql php-xml python3-mysqldb
)

# Each kind's own packages, once each, after the core's.
declare -A listed=()
for package in "${packages[@]}"; do listed[$package]=1; done
for kind_packages in "$(dirname "$0")"/../kernels/*/debian-packages; do
  [[ -f $kind_packages ]] || continue
  while read -r line; do
    line=${line%%#*}
    for package in $line; do
      [[ -n ${listed[$package]:-} ]] || packages+=("$package")
      listed[$package]=1
    done
  done <"$kind_packages"
done

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
