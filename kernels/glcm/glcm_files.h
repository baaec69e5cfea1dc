// glcm_files.h: the glcm result's data files (docs/glcm.md, "Work units and
// results"). Shared by the app (which writes them) and the server side (which
// checks, stores and renders them), so that both read the same bytes.
//
// Contents:
//   kFeatureNames                              f1..f13 as the files spell them
//   features_tsv(), parse_features_tsv()       the "features" output (the table)
//   encode_maps(), decode_maps()               the "maps" output (per-window values, one distance)
//   maps_raw_bytes()                           its payload's size, before zstd
//   put_window_sums(), get_window_sums()       a map's window sums, as the maps file and checkpoints hold them
//
// Maps file, little-endian: 8 bytes "HXGLM001" | u64 payload bytes | zstd frame
// of: i32 map_distance | u32 levels, i32 divisor each | u32 images, per image:
// its name (u64 length, bytes), i32 width, height, u64 windows, i32 x, y per
// window centre, u32 maps, per map its window sums.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_codec.h"
#include "glcm_engine.h"
#include "glcm_result.h"

namespace helix::glcm {

// The short names of f1..f13, as the files spell them.
extern const char* const kFeatureNames[kFeatureCount];

// The table: a header line, then one line per (image, levels, distance,
// feature): image, levels, distance, windows, feature, max, mean, min, range,
// max_x, max_y, min_x, min_y (doubles as %.17g: they read back exactly).
std::string features_tsv(const GlcmResult& result);
struct FeatureRow {
  std::string image, feature;
  int levels = 0, distance = 0, windows = 0;
  double max = 0, mean = 0, min = 0, range = 0;
  int max_x = 0, max_y = 0, min_x = 0, min_y = 0;
};
// Throws InputError (one line, naming the line number) on a malformed table.
std::vector<FeatureRow> parse_features_tsv(const std::string& text);

// "HXGLM001": per image its name, size, centres and, per level, every window's
// fixed sums at map_distance; zstd-compressed.
std::vector<std::uint8_t> encode_maps(const GlcmResult& result);
// The payload encode_maps() writes for a WU of `params` whose images have
// these window counts, exactly (names from params; maps at every level when
// map_distance > 0): the work generator's result bounds and encode_maps()'s
// reservation.
std::uint64_t maps_raw_bytes(const GlcmParams& params, const std::vector<std::uint64_t>& windows);
struct DecodedMaps {
  int map_distance = 0;
  std::vector<int> level_divisors;
  std::vector<ImageResult> images;  // name, size, centres and maps only
};
// Throws InputError on a malformed or oversized file (max_windows bounds the allocation).
DecodedMaps decode_maps(const std::vector<std::uint8_t>& bytes, std::size_t max_windows);

// A map's window sums: u64 count, then the sums' bytes (FixedFeatures as in
// memory). get_window_sums throws InputError for more than max_windows.
void put_window_sums(ByteWriter& w, const std::vector<FixedFeatures>& sums);
std::vector<FixedFeatures> get_window_sums(ByteReader& r, std::size_t max_windows);

}  // namespace helix::glcm
