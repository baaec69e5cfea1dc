// kind.cpp: what the app derives from a kind's declaration (kind.h): the
// result files written in the declared order, and the output names. (What
// the work generator derives: kind_commands.cpp.)
#include "kind.h"

#include <stdexcept>

#include "file_io.h"

namespace helix {

void run_kind(const KindSpec& kind, const nlohmann::json& params, const RunOptions& options, Runtime& runtime) {
  ResultFiles files = kind.run(params, options, runtime);
  if (files.size() != kind.outputs.size())
    throw std::logic_error(kind.name + " returned " + std::to_string(files.size()) + " outputs where it declares " +
                           std::to_string(kind.outputs.size()));
  for (const OutputFile& output : kind.outputs) {
    const auto found = files.find(output.name);
    if (found == files.end()) throw std::logic_error(kind.name + " returned no \"" + output.name + "\" output");
    write_file_atomic(runtime.resolve(output.name), found->second);
    found->second = std::string();  // free a large output before the next one is written
  }
}

std::vector<std::string> output_names(const KindSpec& kind) {
  std::vector<std::string> names;
  for (const OutputFile& output : kind.outputs) names.push_back(output.name);
  return names;
}

}  // namespace helix
