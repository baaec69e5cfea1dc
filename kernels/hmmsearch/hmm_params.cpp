// hmm_params.cpp: the hmmsearch WU's "params" JSON, read and written, and the
// pipeline options it sets (hmm_params.h).
#include "hmm_params.h"

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/names.h"

namespace helix::hmmsearch {

PipelineOptions HmmParams::pipeline() const {
  PipelineOptions options;
  options.F1 = F1, options.F2 = F2, options.F3 = F3;
  options.report_evalue = report_evalue;
  options.database_sequences = static_cast<double>(database_sequences);
  options.bias_filter = bias_filter;
  return options;
}

HmmParams parse_hmm_params(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("hmmsearch params: not a JSON object");
  auto member = [&](const char* key) -> std::string { return std::string("hmmsearch params: \"") + key + "\""; };
  if (!json.contains("kind") || json.at("kind") != "hmmsearch") throw InputError(member("kind") + " is not \"hmmsearch\"");
  auto integer = [&](const char* key, long long low, long long high, std::optional<long long> fallback) -> long long {
    if (!json.contains(key)) {
      if (!fallback) throw InputError(member(key) + " is missing");
      return *fallback;
    }
    const auto& v = json.at(key);
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
      throw InputError(member(key) + " must be an integer in " + std::to_string(low) + ".." + std::to_string(high));
    return v.get<long long>();
  };
  // A positive finite real in (0, high].
  auto real = [&](const char* key, double high, double fallback) -> double {
    if (!json.contains(key)) return fallback;
    const auto& v = json.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 || v.get<double>() > high)
      throw InputError(member(key) + " must be a number in (0, " + (high == 1 ? "1" : "1e300") + "]");
    return v.get<double>();
  };
  HmmParams p;
  if (!json.contains("search") || !json.at("search").is_string() || !is_plain_name(json.at("search").get<std::string>(), kMaxPlainName))
    throw InputError(member("search") + " must be a plain name ([A-Za-z0-9._-], up to 200 characters)");
  p.search = json.at("search").get<std::string>();
  p.chunks = static_cast<std::uint32_t>(integer("chunks", 1, 1 << 24, std::nullopt));
  p.chunk = static_cast<std::uint32_t>(integer("chunk", 0, p.chunks - 1, std::nullopt));
  p.database_sequences = static_cast<std::uint64_t>(integer("database_sequences", 1, 1LL << 40, std::nullopt));
  p.database_residues = static_cast<std::uint64_t>(integer("database_residues", p.database_sequences, 1LL << 50, std::nullopt));
  p.chunk_targets = static_cast<std::uint64_t>(integer("chunk_targets", 1, p.database_sequences, std::nullopt));
  p.chunk_residues = static_cast<std::uint64_t>(integer("chunk_residues", p.chunk_targets, p.database_residues, std::nullopt));
  // A FASTA chunk holds at least its residues and a ">x\n" header and a newline per target.
  p.chunk_bytes = static_cast<std::uint64_t>(
      integer("chunk_bytes", p.chunk_residues + 4 * p.chunk_targets, 1LL << 52, std::nullopt));
  p.first_ordinal = static_cast<std::uint64_t>(
      integer("first_ordinal", 0, p.database_sequences - p.chunk_targets, std::nullopt));
  p.profile_count = static_cast<std::uint32_t>(integer("profile_count", 1, kMaxProfilesPerWu, std::nullopt));
  p.block_targets = static_cast<std::uint32_t>(integer("block_targets", 1, 1 << 24, kDefaultBlockTargets));
  p.report_evalue = real("report_evalue", 1e300, 10.0);
  p.F1 = real("F1", 1, 0.02);
  p.F2 = real("F2", 1, 1e-3);
  p.F3 = real("F3", 1, 1e-5);
  if (json.contains("bias_filter")) {
    if (!json.at("bias_filter").is_boolean()) throw InputError(member("bias_filter") + " must be true or false");
    p.bias_filter = json.at("bias_filter").get<bool>();
  }
  p.domZ = real("domZ", 1e300, 0.0);  // absent: hmmsearch's default (hmm_job.h)
  return p;
}

nlohmann::json hmm_params_json(const HmmParams& p) {
  nlohmann::json json = {{"kind", "hmmsearch"},
                         {"search", p.search},
                         {"chunk", p.chunk},
                         {"chunks", p.chunks},
                         {"first_ordinal", p.first_ordinal},
                         {"chunk_targets", p.chunk_targets},
                         {"chunk_residues", p.chunk_residues},
                         {"chunk_bytes", p.chunk_bytes},
                         {"database_sequences", p.database_sequences},
                         {"database_residues", p.database_residues},
                         {"profile_count", p.profile_count},
                         {"block_targets", p.block_targets},
                         {"report_evalue", p.report_evalue},
                         {"F1", p.F1},
                         {"F2", p.F2},
                         {"F3", p.F3},
                         {"bias_filter", p.bias_filter}};
  // Written only when set, so that part 1's params keep their meaning and bytes.
  if (p.domZ > 0) json["domZ"] = p.domZ;
  return json;
}

}  // namespace helix::hmmsearch
