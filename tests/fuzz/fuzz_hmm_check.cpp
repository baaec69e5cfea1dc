// fuzz_hmm_check.cpp: the validator's checks of an hmmsearch result as a hostile
// volunteer returns it: the input, cut at lines "#==", is the summary, then the tblout,
// domtblout, out, scores and domains files
// (fuzz_support.h, ResultFiles); check_hmm_result (structure and the
// text outputs rebuilt from the rows, no WU inputs) and compare_hmm_results on it. They answer
// with a CheckOutcome and must never throw, crash, hang or allocate what the
// files' sizes do not justify.
#include "fuzz_support.h"
#include "hmm_server.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static helix::fuzz::ResultFiles result(6);
  const auto& files = result.write(data, size);
  helix::hmmsearch::check_hmm_result(files, {});
  helix::hmmsearch::compare_hmm_results(files, files);
  return 0;
}
