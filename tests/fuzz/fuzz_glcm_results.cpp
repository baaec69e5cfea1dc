// fuzz_glcm_results.cpp: what the validator and the assimilator read of a
// glcm result: the "features" table (parse_features_tsv) and the "maps"
// binary (decode_maps, bounded as glcm_check bounds it).
#include "fuzz_support.h"
#include "glcm_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = helix::fuzz::text_of(data, size);
  helix::fuzz::bad_input_ok([&] { helix::glcm::parse_features_tsv(text); });
  const std::vector<std::uint8_t> bytes(data, data + size);
  helix::fuzz::bad_input_ok([&] { helix::glcm::decode_maps(bytes, 1u << 16); });
  return 0;
}
