// fuzz_hmm_results.cpp: what the validator and the assimilator read of an
// hmmsearch result: the "scores" table (parse_scores_tsv) and, given its
// rows, the "domains" table (parse_domains_tsv). The input holds both, cut
// at a line "#==".
#include "fuzz_support.h"
#include "hmm_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> parts = helix::fuzz::split_parts(helix::fuzz::text_of(data, size));
  helix::fuzz::bad_input_ok([&] {
    std::vector<helix::hmmsearch::ScoreRow> rows = helix::hmmsearch::parse_scores_tsv(parts[0], 0);
    if (parts.size() > 1) helix::hmmsearch::parse_domains_tsv(parts[1], rows);
  });
  return 0;
}
