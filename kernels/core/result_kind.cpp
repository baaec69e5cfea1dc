// result_kind.cpp: dispatch on the kind named in a result's summary.
#include "core/result_kind.h"

#include <nlohmann/json.hpp>

#include "core/check_support.h"
#include "core/errors.h"
#include "core/work_protocol.h"

namespace helix {

const KindSpec& result_kind(const std::vector<std::string>& files) {
  if (files.empty()) throw InputError("a result has no files");
  const std::string& path = files.back();
  std::vector<std::uint8_t> bytes;
  try {
    bytes = read_bounded(path, kMaxSummaryBytes, "summary " + path);
  } catch (const Rejection& rejection) {
    throw InputError(rejection.reason);
  }
  const auto summary = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) throw InputError("summary " + path + " is not a JSON object");
  const auto kind_name = summary.value("kind", nlohmann::json()).is_string() ? summary["kind"].get<std::string>() : "";
  const KindSpec* kind = find_server_kind(kind_name);
  if (!kind) throw InputError("summary " + path + " names no known kind (\"" + kind_name + "\")");
  return *kind;
}

}  // namespace helix
