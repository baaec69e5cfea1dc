// kind.cpp: what core derives from a kind's declaration (kind.h): the result
// files written in the declared order, the output names, the hand-made WU of
// the packaged templates. (The work generator's commands: kind_commands.cpp.)
#include "kind.h"

#include <algorithm>
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

WorkunitSpec hand_made_workunit(const KindSpec& kind) {
  const HandMadeWorkunit& typical = kind.hand_made;
  WorkunitSpec spec;
  spec.inputs.push_back({"params", ""});
  for (const std::string& input : typical.inputs) spec.inputs.push_back({input, ""});
  spec.shared_inputs = typical.shared_inputs;
  spec.outputs = output_names(kind);
  spec.fpops_estimate = typical.fpops_estimate;
  spec.fpops_bound = kFpopsBoundFactor * typical.fpops_estimate;
  spec.memory_bound_bytes = typical.memory_bound_bytes;
  spec.disk_bound_bytes = typical.disk_bound_bytes;
  spec.max_output_bytes = typical.max_output_bytes;
  return spec;
}

}  // namespace helix
