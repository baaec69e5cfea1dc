// fuzz_mrf_check.cpp: the validator's checks of an mrf result as a hostile
// volunteer returns it: the input, cut at lines "#==", is the summary, then the label map
// (fuzz_support.h, ResultFiles); check_mrf_result (structure, no WU inputs) and
// compare_mrf_results on it. They answer
// with a CheckOutcome and must never throw, crash, hang or allocate what the
// files' sizes do not justify.
#include "fuzz_support.h"
#include "mrf_server.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static helix::fuzz::ResultFiles result(2);
  const auto& files = result.write(data, size);
  helix::mrf::check_mrf_result(files, {});
  helix::mrf::compare_mrf_results(files, files);
  return 0;
}
