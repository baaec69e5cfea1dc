// fuzz_sw_check.cpp: the validator's checks of a swsearch result as a hostile
// volunteer returns it: the input, cut at lines "#==", is the summary, then the hits table
// (fuzz_support.h, ResultFiles); check_sw_result (structure and statistics, no WU
// inputs) and compare_sw_results on it. They answer
// with a CheckOutcome and must never throw, crash, hang or allocate what the
// files' sizes do not justify.
#include "fuzz_support.h"
#include "sw_server.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static helix::fuzz::ResultFiles result(2);
  const auto& files = result.write(data, size);
  helix::swsearch::check_sw_result(files, {});
  helix::swsearch::compare_sw_results(files, files);
  return 0;
}
