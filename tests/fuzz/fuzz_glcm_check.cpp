// fuzz_glcm_check.cpp: the validator's checks of a glcm result as a hostile
// volunteer returns it: the input, cut at lines "#==", is the summary, then the features
// table and the maps file
// (fuzz_support.h, ResultFiles); check_glcm_result (structure, no WU
// inputs) and compare_glcm_results on it. They answer
// with a CheckOutcome and must never throw, crash, hang or allocate what the
// files' sizes do not justify.
#include "fuzz_support.h"
#include "glcm_server.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static helix::fuzz::ResultFiles result(3);
  const auto& files = result.write(data, size);
  helix::glcm::check_glcm_result(files, {});
  helix::glcm::compare_glcm_results(files, files);
  return 0;
}
