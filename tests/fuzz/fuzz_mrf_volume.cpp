// fuzz_mrf_volume.cpp: the mrf WU's CT volume (.hxv, zstd) and the result's
// label map (.hxl) the validator reads, through decode_volume() and
// decode_labels().
#include "fuzz_support.h"
#include "mrf_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  helix::fuzz::bad_input_ok([&] { helix::mrf::decode_volume(bytes, "fuzz.hxv"); });
  helix::fuzz::bad_input_ok([&] { helix::mrf::decode_labels(bytes, "fuzz.hxl"); });
  return 0;
}
