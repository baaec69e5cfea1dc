// mrf_files.h: the mrf kind's binary files.
//
// Volume (.hxv, WU input "volume"), little-endian:
//   8 bytes "HXVOL001" | u32 nx, ny, nz | f64 spacing_mm x, y, z | u64 frame bytes |
//   zstd frame of nx*ny*nz int16 intensities (x fastest).
// Label map (.hxl, result output "labels"):
//   8 bytes "HXLAB001" | u32 nx, ny, nz | u64 frame bytes | zstd frame of nx*ny*nz
//   uint8 labels (0 air, 1 bone, 2 liver).
// Readers reject wrong magic, absurd or inconsistent dimensions, trailing bytes,
// truncation and out-of-range labels with InputError.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mrf.h"

namespace helix::mrf {

// Dimensions above this are refused (2048^3 voxels would need 16 GiB).
constexpr std::uint32_t kMaxDimension = 4096;
constexpr std::uint64_t kMaxVoxels = 1ull << 31;

std::vector<std::uint8_t> encode_volume(const Volume& volume);
Volume decode_volume(const std::vector<std::uint8_t>& bytes, const std::string& what);
Volume read_volume_file(const std::string& path);
void write_volume_file(const std::string& path, const Volume& volume);

struct LabelMap {
  int nx = 0, ny = 0, nz = 0;
  std::vector<std::uint8_t> labels;
};
std::vector<std::uint8_t> encode_labels(int nx, int ny, int nz, const std::vector<std::uint8_t>& labels);
LabelMap decode_labels(const std::vector<std::uint8_t>& bytes, const std::string& what);
LabelMap read_labels_file(const std::string& path);

}  // namespace helix::mrf
