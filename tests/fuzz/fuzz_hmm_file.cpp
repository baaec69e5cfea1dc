// fuzz_hmm_file.cpp: HMMER3 profile text (.hmm, the hmmsearch WU's profiles)
// through parse_hmm_file().
#include "fuzz_support.h"
#include "hmm_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = helix::fuzz::text_of(data, size);
  helix::fuzz::bad_input_ok([&] { helix::hmmsearch::parse_hmm_file(text, "fuzz.hmm"); });
  return 0;
}
