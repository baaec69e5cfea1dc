// fuzz_sw_results.cpp: swsearch files from outside: the "hits" table the
// validator and the assimilator read (parse_hits_tsv) and the WU's binary
// database chunk the app reads (decode_chunk).
#include "fuzz_support.h"
#include "sw_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = helix::fuzz::text_of(data, size);
  helix::fuzz::bad_input_ok([&] { helix::swsearch::parse_hits_tsv(text); });
  const std::vector<std::uint8_t> bytes(data, data + size);
  helix::fuzz::bad_input_ok([&] { helix::swsearch::decode_chunk(bytes, 1u << 20); });
  return 0;
}
