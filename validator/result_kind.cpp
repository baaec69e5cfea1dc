// result_kind.cpp: dispatch on the kind named in a result's summary.
#include "result_kind.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/work_protocol.h"

namespace helix {

const ServerKind& result_kind(const std::vector<std::string>& files) {
  if (files.empty()) throw InputError("a result has no files");
  const std::string& path = files.back();
  std::error_code error;
  const auto status = std::filesystem::symlink_status(path, error);
  if (error || !std::filesystem::exists(status)) throw InputError("summary " + path + " is missing or unreadable");
  // The upload handler writes plain files; a link may point anywhere.
  if (!std::filesystem::is_regular_file(status)) throw InputError("summary " + path + " is not a plain file (a link or a device)");
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw InputError("summary " + path + " is missing or unreadable");
  if (size > kMaxSummaryBytes) throw InputError("summary " + path + " is larger than 1 MiB");
  const auto summary = nlohmann::json::parse(read_file_text(path), nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) throw InputError("summary " + path + " is not a JSON object");
  const auto kind_name = summary.value("kind", nlohmann::json()).is_string() ? summary["kind"].get<std::string>() : "";
  const ServerKind* kind = find_server_kind(kind_name);
  if (!kind) throw InputError("summary " + path + " names no known kind (\"" + kind_name + "\")");
  return *kind;
}

}  // namespace helix
