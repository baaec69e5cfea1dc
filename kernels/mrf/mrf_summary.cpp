#include "mrf_summary.h"

namespace helix::mrf {

nlohmann::json make_summary(const Volume& volume, const MrfParams& params, const MrfResult& result,
                            const std::string& input_volume_name) {
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& record : result.trace)
    trace.push_back({{"sweep", record.sweep}, {"delta_energy", record.delta_energy},
                     {"labels_changed", record.labels_changed}});
  const double voxel_ml = volume.spacing_mm[0] * volume.spacing_mm[1] * volume.spacing_mm[2] / 1000.0;
  nlohmann::json classes = nlohmann::json::array();
  for (int k = 0; k < kClassCount; ++k)
    classes.push_back({{"label", k},
                       {"name", kClassNames[k]},
                       {"mean", result.model.mean[k]},
                       {"variance", result.model.variance[k]},
                       {"voxels", result.sums.count[k]},
                       {"volume_ml", static_cast<double>(result.sums.count[k]) * voxel_ml}});
  return {{"kind", "mrf"},
          {"format", kSummaryFormat},
          {"dims", {volume.nx, volume.ny, volume.nz}},
          {"spacing_mm", volume.spacing_mm},
          {"input_volume", input_volume_name},
          {"params", mrf_params_to_json(params)},
          {"sweeps", result.trace.size()},
          {"converged", result.converged},
          {"energy_scale", kEnergyScale},
          {"energy_trace", trace},
          {"final_energy", result.final_energy},
          {"classes", classes}};
}

std::string summary_text(const nlohmann::json& summary) { return summary.dump(1) + "\n"; }

}  // namespace helix::mrf
