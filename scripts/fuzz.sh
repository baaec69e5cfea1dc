#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer harnesses of tests/fuzz/ with clang++
# (-fsanitize=fuzzer,address,undefined) and runs them over their corpora.
#
#   bash scripts/fuzz.sh build                  build every target into build-fuzz/
#   bash scripts/fuzz.sh smoke [RUNS]           each target over its corpus, then mutations: RUNS executions
#                                               in all (default 20000; at least the corpus): the CI step
#   bash scripts/fuzz.sh run TARGET SECONDS     fuzz one target from tests/fuzz/corpus/TARGET; new inputs
#                                               go to build-fuzz/grow/TARGET, crashes to build-fuzz/crashes/TARGET/
#                                               (`TARGET -merge=1 tests/fuzz/corpus/TARGET build-fuzz/grow/TARGET`
#                                               keeps the ones that add coverage)
#
# The parsers are host code: the harnesses compile only the .cpp files they need
# (no CUDA, no CMake project, which requires nvcc), so the GCC build is untouched.
# Exit 77 from `build`/`smoke` when clang++ or libFuzzer is missing (ctest: skipped).
# Environment: HELIX_FUZZ_BUILD (default build-fuzz), CXX_FUZZ (default clang++), JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${HELIX_FUZZ_BUILD:-build-fuzz}
cxx=${CXX_FUZZ:-clang++}
jobs=${JOBS:-2}
# Every harness in tests/fuzz, and every host source of core and of each kind
# (kernels/<kind>/, a registered kind's folder) but those that need a library the
# harnesses do not link (OpenCV's well detector, NIfTI's reader); the linker
# takes from the archive only what a harness uses.
mapfile -t targets < <(cd tests/fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
mapfile -t sources < <(cd kernels && ls core/*.cpp */*.cpp | sort -u |
                         while read -r file; do
                           grep -qE '#include <(opencv2/|nifti2_io)' "$file" || echo "${file%.cpp}"
                         done)
flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -ffp-contract=off -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -Ikernels -Ikernels/core $(printf -- '-Ikernels/%s ' $(cd kernels && ls -d */ | tr -d /))
       -Itests/fuzz -I/usr/include/libpng16)
# libquadmath (GCC's, static: glcm's exact entropy table) by path: clang does not search GCC's directory for it.
libs=(-lzstd -lpng16 -lsqlite3 -lz -lm -lpthread "$(g++ -print-file-name=libquadmath.a)")

have_clang() {
  command -v "$cxx" >/dev/null || return 1
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$build_dir/probe.cpp"
  "$cxx" -fsanitize=fuzzer "$build_dir/probe.cpp" -o "$build_dir/probe" 2>/dev/null
}

compile_one() {  # source stem -> object, rebuilt when the source or a header is newer
  local stem=$1 src object
  if [[ $stem == fuzz_* ]]; then src=tests/fuzz/$stem.cpp; else src=kernels/$stem.cpp; fi
  object=$build_dir/obj/${stem//\//_}.o
  if [[ -f $object && -z $(find kernels tests/fuzz -name '*.h' -newer "$object" -print -quit) && ! $src -nt $object ]]; then
    return 0
  fi
  "$cxx" "${flags[@]}" -c "$src" -o "$object"
}

build() {
  mkdir -p "$build_dir/obj"
  if ! have_clang; then
    echo "fuzz.sh: $cxx with libFuzzer not found: fuzz targets skipped"
    exit 77
  fi
  export -f compile_one; export build_dir cxx
  export flags_string="${flags[*]}"
  printf '%s\n' "${sources[@]}" "${targets[@]}" |
    xargs -P "$jobs" -I{} bash -c 'flags=($flags_string); compile_one "$1"' _ {}
  rm -f "$build_dir/libhelix_fuzz.a"
  local objects=() stem
  for stem in "${sources[@]}"; do objects+=("$build_dir/obj/${stem//\//_}.o"); done
  ar rcs "$build_dir/libhelix_fuzz.a" "${objects[@]}"
  for target in "${targets[@]}"; do
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "$build_dir/obj/$target.o" "$build_dir/libhelix_fuzz.a" "${libs[@]}" \
      -o "$build_dir/$target"
  done
  echo "fuzz.sh: built ${#targets[@]} targets in $build_dir/"
}

case ${1:-build} in
  build)
    build
    ;;
  smoke)
    runs=${2:-20000}
    build
    for target in "${targets[@]}"; do
      # A scratch corpus dir: the run may add inputs, the kept corpus stays as committed.
      scratch=$(mktemp -d)
      if ! "$build_dir/$target" -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
           -artifact_prefix="$build_dir/" "$scratch" "tests/fuzz/corpus/$target" >"$build_dir/$target.smoke.log" 2>&1; then
        tail -40 "$build_dir/$target.smoke.log"
        echo "fuzz.sh: $target failed (log: $build_dir/$target.smoke.log)"
        rm -rf "$scratch"
        exit 1
      fi
      rm -rf "$scratch"
      echo "fuzz.sh: $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$build_dir/$target.smoke.log")"
    done
    ;;
  run)
    target=${2:?target}; seconds=${3:?seconds}
    mkdir -p "$build_dir/crashes/$target" "$build_dir/grow/$target"
    "$build_dir/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build_dir/crashes/$target/" "$build_dir/grow/$target" "tests/fuzz/corpus/$target"
    ;;
  *)
    sed -n '2,16p' "$0"; exit 2
    ;;
esac
