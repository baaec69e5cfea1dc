// fuzz_wu_params.cpp: the work unit's "params" JSON as the app reads it
// (app/main.cpp read_params: a JSON parse error is bad input), dispatched on
// its "kind" to that kind's parser: parse_mrf_params(), parse_glcm_params(),
// parse_sw_params(), parse_hmm_params(). A params without a known kind goes
// through all four, so each parser sees every shape of JSON.
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "glcm_job.h"
#include "hmm_job.h"
#include "mrf.h"
#include "sw_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json params = nlohmann::json::parse(data, data + size, nullptr, false);
  if (params.is_discarded()) return 0;  // the app's InputError "is not valid JSON"
  const std::string kind =
      params.is_object() && params.contains("kind") && params["kind"].is_string() ? params["kind"].get<std::string>() : "";
  using helix::fuzz::bad_input_ok;
  if (kind.empty() || kind == "mrf") bad_input_ok([&] { helix::mrf::parse_mrf_params(params); });
  if (kind.empty() || kind == "glcm") bad_input_ok([&] { helix::glcm::parse_glcm_params(params); });
  if (kind.empty() || kind == "swsearch") bad_input_ok([&] { helix::swsearch::parse_sw_params(params); });
  if (kind.empty() || kind == "hmmsearch") bad_input_ok([&] { helix::hmmsearch::parse_hmm_params(params); });
  return 0;
}
