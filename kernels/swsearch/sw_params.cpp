// sw_params.cpp: the swsearch WU's "params" JSON, read and written (sw_params.h).
#include "sw_params.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/names.h"
#include "sw_statistics.h"

namespace helix::swsearch {

SwParams parse_sw_params(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("swsearch params: not a JSON object");
  auto integer = [&](const char* key, long long low, long long high, bool required, long long fallback) -> long long {
    if (!json.contains(key)) {
      if (required) throw InputError(std::string("swsearch params: \"") + key + "\" is missing");
      return fallback;
    }
    const auto& v = json.at(key);
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
      throw InputError(std::string("swsearch params: \"") + key + "\" must be an integer in " + std::to_string(low) +
                       ".." + std::to_string(high));
    return v.get<long long>();
  };
  SwParams p;
  if (json.contains("search")) {
    const auto& search = json.at("search");
    if (!search.is_string() || !is_plain_name(search.get<std::string>()))
      throw InputError("swsearch params: \"search\" must be a plain name ([A-Za-z0-9._-], not starting with '.')");
    p.search = search.get<std::string>();
  }
  if (!json.contains("matrix_name") || !json.at("matrix_name").is_string())
    throw InputError("swsearch params: \"matrix_name\" (e.g. \"BLOSUM62\") is missing");
  p.matrix_name = json.at("matrix_name").get<std::string>();
  p.gaps.open = static_cast<int>(integer("gap_open", -1000000, 1000000, true, 0));
  p.gaps.extend = static_cast<int>(integer("gap_extend", -1000000, 1000000, true, 0));
  check_gaps(p.gaps);
  karlin_altschul(p.matrix_name, p.gaps);  // refuses settings with no statistics
  p.top_hits = static_cast<int>(integer("top_hits", 1, 10000, false, 50));
  p.alignments = static_cast<int>(integer("alignments", 0, p.top_hits, false, std::min(10, p.top_hits)));
  p.database_residues = static_cast<std::uint64_t>(integer("database_residues", 1, 1LL << 50, true, 0));
  p.database_sequences = static_cast<std::uint64_t>(integer("database_sequences", 1, 1LL << 40, true, 0));
  p.block_targets = static_cast<std::uint32_t>(integer("block_targets", 1, 1 << 24, false, 65536));
  return p;
}

nlohmann::json sw_params_json(const SwParams& p) {
  nlohmann::json json = {{"kind", "swsearch"},        {"matrix_name", p.matrix_name},
                         {"gap_open", p.gaps.open},   {"gap_extend", p.gaps.extend},
                         {"top_hits", p.top_hits},    {"alignments", p.alignments},
                         {"database_residues", p.database_residues}, {"database_sequences", p.database_sequences},
                         {"block_targets", p.block_targets}};
  if (!p.search.empty()) json["search"] = p.search;
  return json;
}

}  // namespace helix::swsearch
