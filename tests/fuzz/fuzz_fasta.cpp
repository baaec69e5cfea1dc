// fuzz_fasta.cpp: FASTA text (work-unit databases, query files) through the
// shared splitter and both kinds' digitizers: core split_fasta(), swsearch
// parse_fasta() (NCBI matrix order) and hmmsearch parse_targets() (HMMER's).
#include "core/fasta.h"
#include "fuzz_support.h"
#include "hmm_alphabet.h"
#include "sw.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = helix::fuzz::text_of(data, size);
  helix::fuzz::bad_input_ok([&] { helix::split_fasta(text, "fuzz.fasta"); });
  helix::fuzz::bad_input_ok([&] { helix::swsearch::parse_fasta(text, "fuzz.fasta"); });
  helix::fuzz::bad_input_ok([&] { helix::hmmsearch::parse_targets(text, "fuzz.fasta"); });
  return 0;
}
