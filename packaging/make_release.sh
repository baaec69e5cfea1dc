#!/usr/bin/env bash
# make_release.sh: builds the helix volunteer app for release and lays out BOINC
# app-version directories, plan classes and templates, ready for a project's
# bin/update_versions (docs/deploy.md says how to install them).
#
#   bash packaging/make_release.sh [--out DIR] [--jobs N]
#       configures and builds the `release` preset (build-release/: fat binary
#       sm_75..sm_90 + compute_90 PTX, static CUDA runtime), then lays out DIR
#       (default out/). A clean fat build of the app took 169 s of CPU (5.6 min
#       wall on 2 busy cores; 2026-11-23): five GPU architectures per .cu file.
#   bash packaging/make_release.sh --from-build BUILD_DIR [--out DIR]
#       lays out the tree from an already-built BUILD_DIR/app/helix (any build,
#       e.g. the one-architecture CI build; the test uses this) and writes the
#       templates with BUILD_DIR/workunit/helix-wu. Builds nothing.
#
# Output (V = MAJOR.MINOR of the project version, BOINC's version directory;
# P = x86_64-pc-linux-gnu; C = cuda<major><minor> of the CUDA toolkit, e.g. cuda130):
#   DIR/apps/helix/V/P__C/   GPU app version: helix_<version>_P__C (main program),
#                            the shared libraries it needs beyond glibc/libstdc++
#                            (libboinc_api.so.7, libboinc.so.7, libparasail.so.8,
#                            libz.so.1) as SONAME__<sha256 prefix>, version.xml
#   DIR/apps/helix/V/P/      CPU app version: the same binary as helix_<version>_P;
#                            it runs the CPU engine when the client gives it no GPU
#   DIR/plan_class_spec.xml  the GPU plan class C (merge into the project's file)
#   DIR/templates/           <kind>_in, <kind>_out for each kind, from its declaration
#                            (`helix-wu templates`; glcm: _out only, its input
#                            files are per WU, helix-wu writes them)
#   DIR/bin/                 helix_validate_init, helix_validate_compare,
#                            helix_assimilate: what script_validator and
#                            script_assimilator run, for the project's bin/
#                            (beside helix-validate and helix-assimilate)
# Errors: one "make_release: ..." line on stderr, exit 1; DIR is rebuilt from
# scratch each run (apps/helix/V, plan_class_spec.xml, templates/, bin/ only).
set -euo pipefail

die() { echo "make_release: $*" >&2; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/.." && pwd)"
out="$source_dir/out"
from_build=""
jobs="$(nproc)"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --from-build) from_build="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

if [ -z "$from_build" ]; then
  (cd "$source_dir" && cmake --preset release && cmake --build build-release --target helix helix-wu -j"$jobs") \
    || die "the release build failed"
  build="$source_dir/build-release"
else
  build="$(cd "$from_build" 2>/dev/null && pwd)" || die "no build directory $from_build"
fi
binary="$build/app/helix"
[ -x "$binary" ] || die "$binary is missing: build the target helix first"
[ -x "$build/workunit/helix-wu" ] || die "$build/workunit/helix-wu is missing: build the target helix-wu first"

# --- What the binary is ------------------------------------------------------
version_line="$("$binary" --version)" || die "$binary --version failed"
version="${version_line#helix }"
[[ "$version" =~ ^([0-9]+)\.([0-9]+)(\.[0-9]+)?$ ]] || die "unexpected version line '$version_line'"
# BOINC's version directories are N or MAJOR.MINOR with MINOR < 100 (version_num
# = 100*MAJOR + MINOR): a release needs a new MINOR; the patch level shows only in
# the file names.
version_dir="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
[ "${BASH_REMATCH[2]}" -lt 100 ] || die "minor version ${BASH_REMATCH[2]} >= 100: BOINC cannot number it"

cuda_version="$(sed -n 's/^set(CMAKE_CUDA_COMPILER_VERSION "\([0-9.]*\)").*/\1/p' \
                  "$build"/CMakeFiles/*/CMakeCUDACompiler.cmake 2>/dev/null | head -n1)"
[ -n "$cuda_version" ] || die "no CUDA compiler version in $build/CMakeFiles"
cuda_major="${cuda_version%%.*}"
cuda_minor="$(echo "$cuda_version" | cut -d. -f2)"
# The static CUDA runtime needs a driver at least this new (NVIDIA's CUDA release
# notes, Linux x86_64; BOINC writes NVIDIA driver versions as MMMmm).
case "$cuda_major" in
  13) min_driver=58065 ;;
  12) min_driver=52560 ;;
  *) die "CUDA $cuda_version: no minimum driver version known (add it here)" ;;
esac
# BOINC writes CUDA versions as 1000*major + 10*minor (CUDA 4.2 = 4020).
min_cuda=$((cuda_major * 1000 + cuda_minor * 10))
plan_class="cuda${cuda_major}${cuda_minor}"

# Lowest real architecture built: CMAKE_CUDA_ARCHITECTURES from the cache, else
# CMakeLists.txt's default (90). Compute capability X.Y = BOINC's 100*X + Y.
archs="$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")"
[ -n "$archs" ] || archs=90
lowest_arch="$(echo "$archs" | tr ';' '\n' | sed 's/-.*//' | grep -E '^[0-9]+$' | sort -n | head -n1)"
[ -n "$lowest_arch" ] || die "cannot read CUDA architectures '$archs'"
min_compcap=$(( (lowest_arch / 10) * 100 + lowest_arch % 10 ))

# Shared libraries: the CUDA runtime, libpng and zstd must be static (an error).
# Every other library beyond glibc, libstdc++ and libgcc ships beside the app:
# BOINC's two (Debian's libboinc_api.a is an empty stub) and swsearch's parasail
# with the zlib it needs (Debian ships parasail's SIMD parts as static archives
# but its dispatcher only as libparasail.so.8). The client puts the slot on
# LD_LIBRARY_PATH, so a shipped library's own dependencies are found there too.
needed="$(ldd "$binary")" || die "ldd $binary failed"
for unwanted in libcudart libpng libzstd; do
  if echo "$needed" | grep -q "$unwanted"; then die "$binary links $unwanted dynamically; release builds link it statically"; fi
done
if echo "$needed" | grep -q "not found"; then die "$binary has unresolved libraries: $(echo "$needed" | grep 'not found' | tr -s ' \t' ' ')"; fi
system_libraries='^(libstdc\+\+\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libc\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1)$'
mapfile -t libraries < <(echo "$needed" | awk '$2 == "=>" { print $1 }' | grep -Ev "$system_libraries" | sort)
declare -A library_path
for library in "${libraries[@]}"; do
  path="$(echo "$needed" | awk -v lib="$library" '$1 == lib { print $3 }')"
  [ -n "$path" ] && [ -f "$path" ] || die "$binary does not resolve $library"
  library_path[$library]="$path"
done
for library in libboinc_api.so.7 libboinc.so.7; do
  [ -n "${library_path[$library]:-}" ] || die "$binary does not link $library (the BOINC API must be linked as a shared library)"
done
# api_version: the BOINC API the app was linked with, from the library's full
# version (libboinc_api.so.7 -> libboinc_api.so.7.20.5).
api_version="$(basename "$(readlink -f "${library_path[libboinc_api.so.7]}")" | sed -n 's/^libboinc_api\.so\.//p')"
[[ "$api_version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot tell the BOINC API version from ${library_path[libboinc_api.so.7]}"

# --- The tree ----------------------------------------------------------------
platform=x86_64-pc-linux-gnu
app_root="$out/apps/helix/$version_dir"
rm -rf "$app_root" "$out/templates" "$out/plan_class_spec.xml" "$out/bin"
mkdir -p "$app_root" "$out/templates" "$out/bin"

# BOINC files are immutable: a project's download/ holds every app version's
# files under their physical names, and update_versions refuses a file whose
# name is taken by other bytes. The binary's name is unique to the release and
# platform; a library's is its soname plus the start of its SHA-256
# ("libz.so.1__1a2b3c4d5e6f"), so an unchanged library keeps its name (and is
# not downloaded again) and a changed one gets a new name in the next release.
content_name() { echo "${1}__$(sha256sum "$2" | cut -c1-12)"; }

# One app version directory: the binary, the shipped libraries under their
# content names, each copied into the slot under its soname (<logical_name>,
# <copy_file/>: the client puts the slot and the project directory on
# LD_LIBRARY_PATH), and version.xml.
write_app_version() {
  local dir_name="$1" dir="$app_root/$1"
  local program="helix_${version}_${dir_name}"
  mkdir -p "$dir"
  install -m 0755 "$binary" "$dir/$program"
  for library in "${libraries[@]}"; do
    install -m 0755 "${library_path[$library]}" "$dir/$(content_name "$library" "${library_path[$library]}")"
  done
  {
    echo "<version>"
    echo "    <file>"
    echo "        <physical_name>$program</physical_name>"
    echo "        <main_program/>"
    echo "    </file>"
    for library in "${libraries[@]}"; do
      echo "    <file>"
      echo "        <physical_name>$(content_name "$library" "${library_path[$library]}")</physical_name>"
      echo "        <logical_name>$library</logical_name>"
      echo "        <copy_file/>"
      echo "    </file>"
    done
    echo "    <api_version>$api_version</api_version>"
    echo "</version>"
  } > "$dir/version.xml"
}
write_app_version "${platform}__${plan_class}"
write_app_version "$platform"

# The GPU plan class. cpu_frac: the host thread mostly waits on the GPU (plus
# hmmsearch's domain pass on the host); min_gpu_ram_mb: room for a default-size
# chunk (20 M residues) or a CT volume of ~100 M voxels with the CUDA context.
cat > "$out/plan_class_spec.xml" <<EOF
<plan_classes>
    <plan_class>
        <name>$plan_class</name>
        <gpu_type>nvidia</gpu_type>
        <cuda/>
        <min_cuda_version>$min_cuda</min_cuda_version>
        <min_driver_version>$min_driver</min_driver_version>
        <min_nvidia_compcap>$min_compcap</min_nvidia_compcap>
        <min_gpu_ram_mb>1024</min_gpu_ram_mb>
        <gpu_ram_used_mb>1024</gpu_ram_used_mb>
        <ngpus>1</ngpus>
        <cpu_frac>0.1</cpu_frac>
    </plan_class>
</plan_classes>
EOF

# The templates come from the kinds' declarations (kernels/<kind>/<kind>_kind.cpp).
"$build/workunit/helix-wu" templates --out "$out/templates" >/dev/null || die "helix-wu templates failed"
install -m 0755 "$here"/server/bin/* "$out/bin/"

echo "make_release: helix $version (BOINC version $version_dir, API $api_version, CUDA $cuda_version," \
     "compute capability >= $min_compcap) in $out"
find "$out/apps/helix/$version_dir" "$out/plan_class_spec.xml" "$out/templates" "$out/bin" -type f | sort | sed "s|^$out/|  |"
