// mrf_params.cpp: the WU parameter JSON of the mrf kind, checked for absurd
// values, and its conversion to the fixed-point constants of a sweep.
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "mrf.h"

namespace helix::mrf {
namespace {

double number_in_range(const nlohmann::json& params, const char* key, double fallback, double low, double high) {
  if (!params.contains(key)) return fallback;
  const auto& value = params.at(key);
  if (!value.is_number()) throw InputError(std::string("mrf parameter '") + key + "' must be a number");
  double number = value.get<double>();
  if (!std::isfinite(number) || number < low || number > high)
    throw InputError(std::string("mrf parameter '") + key + "' = " + value.dump() + " is outside [" +
                     nlohmann::json(low).dump() + ", " + nlohmann::json(high).dump() + "]");
  return number;
}

}  // namespace

MrfParams parse_mrf_params(const nlohmann::json& params) {
  if (!params.is_object()) throw InputError("mrf parameters must be a JSON object");
  static const std::set<std::string> known = {"kind", "beta_in", "beta_out", "threshold", "energy_tolerance",
                                              "max_sweeps", "seed", "initial_means", "min_variance"};
  for (const auto& item : params.items())
    if (!known.count(item.key())) throw InputError("unknown mrf parameter '" + item.key() + "'");
  MrfParams parsed;
  parsed.beta_in = number_in_range(params, "beta_in", parsed.beta_in, -100, 100);
  parsed.beta_out = number_in_range(params, "beta_out", parsed.beta_out, -100, 100);
  parsed.threshold = number_in_range(params, "threshold", parsed.threshold, 0, 1000);
  parsed.energy_tolerance = number_in_range(params, "energy_tolerance", parsed.energy_tolerance, 0, 1000);
  parsed.min_variance = number_in_range(params, "min_variance", parsed.min_variance, 1e-3, 1e8);
  double sweeps = number_in_range(params, "max_sweeps", parsed.max_sweeps, 1, 100000);
  if (sweeps != std::floor(sweeps)) throw InputError("mrf parameter 'max_sweeps' must be an integer");
  parsed.max_sweeps = static_cast<int>(sweeps);
  if (params.contains("seed")) {
    const auto& seed = params["seed"];
    const bool non_negative_integer =
        seed.is_number_unsigned() || (seed.is_number_integer() && seed.get<std::int64_t>() >= 0);
    if (!non_negative_integer) throw InputError("mrf parameter 'seed' must be a non-negative integer");
    parsed.seed = seed.get<std::uint64_t>();
  }
  if (params.contains("initial_means")) {
    const auto& means = params["initial_means"];
    if (!means.is_array() || means.size() != kClassCount)
      throw InputError("mrf parameter 'initial_means' must be [air, bone, liver]");
    std::array<double, kClassCount> values{};
    for (int k = 0; k < kClassCount; ++k) {
      if (!means[k].is_number() || !std::isfinite(means[k].get<double>()) || std::fabs(means[k].get<double>()) > 32768)
        throw InputError("mrf parameter 'initial_means' holds a value outside the 16-bit intensity range");
      values[k] = means[k].get<double>();
    }
    if (values[0] == values[1] || values[0] == values[2] || values[1] == values[2])
      throw InputError("mrf parameter 'initial_means' must hold three different values");
    parsed.initial_means = values;
  }
  return parsed;
}

nlohmann::json mrf_params_to_json(const MrfParams& p) {
  nlohmann::json json = {{"kind", "mrf"},           {"beta_in", p.beta_in},
                         {"beta_out", p.beta_out},   {"threshold", p.threshold},
                         {"energy_tolerance", p.energy_tolerance}, {"max_sweeps", p.max_sweeps},
                         {"seed", p.seed},           {"min_variance", p.min_variance}};
  if (p.initial_means) json["initial_means"] = *p.initial_means;
  return json;
}

// Real parameters become fixed point once, by rounding to the nearest unit.
SweepConstants sweep_constants(const MrfParams& params, std::uint32_t sweep_index) {
  SweepConstants constants;
  constants.beta_in_fixed = static_cast<std::int32_t>(std::llround(params.beta_in * kEnergyScale));
  constants.beta_out_fixed = static_cast<std::int32_t>(std::llround(params.beta_out * kEnergyScale));
  constants.threshold_fixed = static_cast<std::int32_t>(std::llround(params.threshold * kEnergyScale));
  constants.seed = params.seed;
  constants.sweep_index = sweep_index;
  return constants;
}

std::int64_t energy_tolerance_fixed(const MrfParams& params, std::size_t voxel_count) {
  return std::llround(params.energy_tolerance * static_cast<double>(voxel_count) * kEnergyScale);
}

}  // namespace helix::mrf
