// fuzz_sw_matrix.cpp: NCBI substitution-matrix text (BLOSUM/PAM, named by the
// swsearch WU) through parse_ncbi_matrix().
#include "fuzz_support.h"
#include "sw.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = helix::fuzz::text_of(data, size);
  helix::fuzz::bad_input_ok([&] { helix::swsearch::parse_ncbi_matrix(text, "FUZZ"); });
  return 0;
}
