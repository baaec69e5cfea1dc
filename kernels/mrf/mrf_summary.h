// mrf_summary.h: the mrf result's JSON summary (output "summary", the result's
// last file). Fields (docs/mrf.md has the full description):
//   kind, format, dims, spacing_mm, input_volume, params, sweeps, converged,
//   energy_scale, energy_trace [{sweep, delta_energy, labels_changed}],
//   final_energy (fixed point), classes [{label, name, mean, variance, voxels, volume_ml}]
// Nothing in it depends on the engine (CPU or GPU), so it is byte-identical
// across devices.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "mrf.h"

namespace helix::mrf {

constexpr int kSummaryFormat = 1;

nlohmann::json make_summary(const Volume& volume, const MrfParams& params, const MrfResult& result,
                            const std::string& input_volume_name);
// Serialised form written to disk (stable key order, 1-space indent, final newline).
std::string summary_text(const nlohmann::json& summary);

}  // namespace helix::mrf
