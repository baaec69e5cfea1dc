// hmm_field_text.cpp: the exact text of numbers and of a target's domain
// definition, field by field (hmm_field_text.h).
#include "hmm_field_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/errors.h"

namespace helix::hmmsearch {

std::string hex_float(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

// A decimal integer written as std::to_string writes it.
std::uint64_t canonical_integer(const std::string& text, std::uint64_t high, const std::string& what) {
  const bool digits = !text.empty() && text.size() <= 19 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (text.size() > 1 && text[0] == '0')) throw InputError(what + " '" + text + "' is not an integer");
  const std::uint64_t value = std::stoull(text);
  if (value > high) throw InputError(what + " " + text + " is out of range");
  return value;
}

// A number written as hex_float writes it (so equal values are equal text).
double canonical_double(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || std::isnan(value) || hex_float(value) != text)
    throw InputError(what + " '" + text + "' is not a number written as %a");
  return value;
}
float canonical_float(const std::string& text, const std::string& what) {
  const double value = canonical_double(text, what);
  if (static_cast<double>(static_cast<float>(value)) != value) throw InputError(what + " '" + text + "' is not a float");
  return static_cast<float>(value);
}

// The "domains" file's fields after profile and target_ordinal, in the
// writer's text; one list serves writing, comparing and canonical parsing.
const std::vector<std::string> kTargetFieldNames = {
    "length", "dropped", "score_bits", "pre_score_bits", "sum_score_bits", "ln_p", "best_domain", "nexpected",
    "nregions", "nclustered", "noverlaps", "nenvelopes", "domains"};
const std::vector<std::string> kDomainFieldNames = {
    "domain", "ienv", "jenv", "iali", "jali", "envsc_nats", "domcorrection_nats", "dombias_nats", "oasc", "bitscore",
    "ln_p", "hmmfrom", "hmmto", "M", "sqfrom", "sqto", "L", "rfline", "mmline", "csline", "model", "mline", "aseq",
    "ppline"};

std::vector<std::string> target_fields(const TargetDomains& d) {
  const TargetScores& s = d.scores;
  const DomainDefinition& def = d.definition;
  return {std::to_string(d.length), s.dropped ? "1" : "0", hex_float(s.score_bits), hex_float(s.pre_score_bits),
          hex_float(s.sum_score_bits), hex_float(s.ln_p), std::to_string(s.best_domain), hex_float(def.nexpected),
          std::to_string(def.nregions), std::to_string(def.nclustered), std::to_string(def.noverlaps),
          std::to_string(def.nenvelopes), std::to_string(def.domains.size())};
}

std::vector<std::string> domain_fields(const DomainHit& h, std::size_t index) {
  const AlignmentDisplay& a = h.alignment;
  return {std::to_string(index), std::to_string(h.ienv), std::to_string(h.jenv), std::to_string(h.iali),
          std::to_string(h.jali), hex_float(h.envsc_nats), hex_float(h.domcorrection_nats), hex_float(h.dombias_nats),
          hex_float(h.oasc), hex_float(h.bitscore), hex_float(h.ln_p), std::to_string(a.hmmfrom),
          std::to_string(a.hmmto), std::to_string(a.M), std::to_string(a.sqfrom), std::to_string(a.sqto),
          std::to_string(a.L), a.rfline, a.mmline, a.csline, a.model, a.mline, a.aseq, a.ppline};
}

namespace {

// A display line: printable ASCII (spaces included, tabs and newlines not).
std::string display_line(const std::string& text, const std::string& what) {
  for (char c : text)
    if (c < ' ' || c > '~') throw InputError(what + " holds a character that is not printable ASCII");
  return text;
}

int small_integer(const std::string& text, const std::string& what) {
  return static_cast<int>(canonical_integer(text, 1 << 30, what));
}

}  // namespace

TargetDomains target_domains_of(const std::vector<std::string>& f, const std::string& where) {
  if (f.size() != kTargetFieldNames.size()) throw InputError(where + ": not a target record");
  TargetDomains d;
  d.length = static_cast<long>(canonical_integer(f[0], 100000, where + " length"));
  if (f[1] != "0" && f[1] != "1") throw InputError(where + ": dropped is not 0 or 1");
  d.scores.dropped = f[1] == "1";
  d.scores.score_bits = canonical_float(f[2], where + " score_bits");
  d.scores.pre_score_bits = canonical_float(f[3], where + " pre_score_bits");
  d.scores.sum_score_bits = canonical_float(f[4], where + " sum_score_bits");
  d.scores.ln_p = canonical_double(f[5], where + " ln_p");
  d.scores.best_domain = small_integer(f[6], where + " best_domain");
  d.definition.nexpected = canonical_float(f[7], where + " nexpected");
  d.definition.nregions = small_integer(f[8], where + " nregions");
  d.definition.nclustered = small_integer(f[9], where + " nclustered");
  d.definition.noverlaps = small_integer(f[10], where + " noverlaps");
  d.definition.nenvelopes = small_integer(f[11], where + " nenvelopes");
  // No more domains than residues: each envelope holds at least one.
  d.definition.domains.resize(canonical_integer(f[12], static_cast<std::uint64_t>(d.length), where + " domains"));
  return d;
}

DomainHit domain_hit_of(const std::vector<std::string>& f, const std::string& where) {
  if (f.size() != kDomainFieldNames.size()) throw InputError(where + ": not a domain record");
  DomainHit h;
  h.ienv = small_integer(f[1], where + " ienv"), h.jenv = small_integer(f[2], where + " jenv");
  h.iali = small_integer(f[3], where + " iali"), h.jali = small_integer(f[4], where + " jali");
  h.envsc_nats = canonical_float(f[5], where + " envsc_nats");
  h.domcorrection_nats = canonical_float(f[6], where + " domcorrection_nats");
  h.dombias_nats = canonical_float(f[7], where + " dombias_nats");
  h.oasc = canonical_float(f[8], where + " oasc");
  h.bitscore = canonical_float(f[9], where + " bitscore");
  h.ln_p = canonical_double(f[10], where + " ln_p");
  AlignmentDisplay& a = h.alignment;
  a.hmmfrom = small_integer(f[11], where + " hmmfrom"), a.hmmto = small_integer(f[12], where + " hmmto");
  a.M = small_integer(f[13], where + " M");
  a.sqfrom = small_integer(f[14], where + " sqfrom"), a.sqto = small_integer(f[15], where + " sqto");
  a.L = small_integer(f[16], where + " L");
  std::string* lines[] = {&a.rfline, &a.mmline, &a.csline, &a.model, &a.mline, &a.aseq, &a.ppline};
  for (std::size_t k = 0; k < 7; ++k) *lines[k] = display_line(f[17 + k], where + " " + kDomainFieldNames[17 + k]);
  return h;
}

}  // namespace helix::hmmsearch
