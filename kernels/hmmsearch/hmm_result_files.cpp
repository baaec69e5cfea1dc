// hmm_result_files.cpp: the "scores" and "domains" outputs, written and read
// back exactly (hmm_result_files.h).
#include "hmm_result_files.h"

#include <algorithm>

#include "core/errors.h"
#include "hmm_field_text.h"

namespace helix::hmmsearch {
namespace {

constexpr const char* kScoresHeader =
    "profile\ttarget_ordinal\ttarget_name\tmsv_nats\tfilter_nats\tviterbi_nats\tforward_nats\tnull_nats\tscore_bits"
    "\tln_p\treported\tdescription";
constexpr int kScoresFields = 12;

}  // namespace

// ---------------------------------------------------------------- the scores file

std::string scores_tsv(const std::vector<ScoreRow>& rows) {
  std::string text = std::string(kScoresHeader) + "\n";
  for (const ScoreRow& row : rows) {
    const PassedTarget& s = row.scores;
    text += std::to_string(row.profile) + "\t" + std::to_string(row.ordinal) + "\t" + row.name + "\t" +
            hex_float(s.msv_nats) + "\t" + hex_float(s.filter_nats) + "\t" +
            (s.viterbi_run ? hex_float(s.viterbi_nats) : std::string("-")) + "\t" + hex_float(s.forward_nats) + "\t" +
            hex_float(s.null_nats) + "\t" + hex_float(s.score_bits) + "\t" + hex_float(s.ln_p) + "\t" +
            (s.reported ? "1" : "0") + "\t" + row.description + "\n";
  }
  return text;
}

std::vector<ScoreRow> parse_scores_tsv(const std::string& text, std::uint64_t first_ordinal) {
  std::vector<ScoreRow> rows;
  std::size_t at = text.find('\n');
  if (at == std::string::npos || text.compare(0, at, kScoresHeader) != 0)
    throw InputError("scores: missing or wrong header line");
  ++at;
  for (int number = 2; at < text.size(); ++number) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) throw InputError("scores line " + std::to_string(number) + ": no final newline");
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    std::vector<std::string> f;
    std::size_t start = 0;
    for (int k = 0; k + 1 < kScoresFields; ++k) {
      const std::size_t tab = line.find('\t', start);
      if (tab == std::string::npos)
        throw InputError("scores line " + std::to_string(number) + ": fewer than " + std::to_string(kScoresFields) +
                         " fields");
      f.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    f.push_back(line.substr(start));  // the description: the rest of the line
    const std::string where = "scores line " + std::to_string(number) + ": ";
    ScoreRow row;
    row.profile = static_cast<std::uint32_t>(canonical_integer(f[0], kMaxProfilesPerWu - 1, where + "profile"));
    row.ordinal = canonical_integer(f[1], (1ULL << 40) - 1, where + "target_ordinal");
    if (row.ordinal < first_ordinal || row.ordinal - first_ordinal > 0xffffffffULL)
      throw InputError(where + "target_ordinal " + f[1] + " is outside the chunk");
    row.name = f[2];
    if (row.name.empty() || std::any_of(row.name.begin(), row.name.end(), [](char c) { return c == ' ' || c == '\r'; }))
      throw InputError(where + "target_name is empty or holds a blank");
    PassedTarget& s = row.scores;
    s.target = static_cast<std::uint32_t>(row.ordinal - first_ordinal);
    s.msv_nats = canonical_float(f[3], where + "msv_nats");
    s.filter_nats = canonical_float(f[4], where + "filter_nats");
    s.viterbi_run = f[5] != "-";
    s.viterbi_nats = s.viterbi_run ? canonical_float(f[5], where + "viterbi_nats") : 0.0f;
    s.forward_nats = canonical_float(f[6], where + "forward_nats");
    s.null_nats = canonical_float(f[7], where + "null_nats");
    s.score_bits = canonical_float(f[8], where + "score_bits");
    s.ln_p = canonical_double(f[9], where + "ln_p");
    if (f[10] != "0" && f[10] != "1") throw InputError(where + "reported is not 0 or 1");
    s.reported = f[10] == "1";
    row.description = f[11];
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---------------------------------------------------------------- the domains file

namespace {

std::string header_line(const char* record, const std::vector<std::string>& names) {
  std::string line = std::string("#") + record + "\tprofile\ttarget_ordinal";
  for (const std::string& name : names) line += "\t" + name;
  return line + "\n";
}

std::string record_line(const char* record, const ScoreRow& row, const std::vector<std::string>& fields) {
  std::string line = std::string(record) + "\t" + std::to_string(row.profile) + "\t" + std::to_string(row.ordinal);
  for (const std::string& field : fields) line += "\t" + field;
  return line + "\n";
}

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// Reads the text's lines in order; each must end with a newline.
class LineReader {
 public:
  explicit LineReader(const std::string& text) : text_(text) {}
  bool done() const { return at_ == text_.size(); }
  int number() const { return number_; }
  std::string next() {
    ++number_;
    const std::size_t end = text_.find('\n', at_);
    if (end == std::string::npos)
      throw InputError("domains line " + std::to_string(number_) + ": missing (or no final newline)");
    std::string line = text_.substr(at_, end - at_);
    at_ = end + 1;
    return line;
  }

 private:
  const std::string& text_;
  std::size_t at_ = 0;
  int number_ = 0;
};

// The fields of a record line of `row` after its kind, profile and ordinal.
std::vector<std::string> record_fields(LineReader& lines, const char* record, const ScoreRow& row,
                                       std::string& where) {
  std::vector<std::string> f = tab_fields(lines.next());
  where = "domains line " + std::to_string(lines.number());
  if (f.size() < 3 || f[0] != record || f[1] != std::to_string(row.profile) || f[2] != std::to_string(row.ordinal))
    throw InputError(where + ": not the " + (record[0] == 'T' ? "target" : "domain") + " record of profile " +
                     std::to_string(row.profile) + " target " + std::to_string(row.ordinal) + " (the scores' order)");
  f.erase(f.begin(), f.begin() + 3);
  return f;
}

}  // namespace

std::string domains_tsv(const std::vector<ScoreRow>& rows) {
  std::string text = header_line("T", kTargetFieldNames) + header_line("D", kDomainFieldNames);
  for (const ScoreRow& row : rows) {
    text += record_line("T", row, target_fields(row.domains));
    const std::vector<DomainHit>& domains = row.domains.definition.domains;
    for (std::size_t k = 0; k < domains.size(); ++k) text += record_line("D", row, domain_fields(domains[k], k));
  }
  return text;
}

void parse_domains_tsv(const std::string& text, std::vector<ScoreRow>& rows) {
  LineReader lines(text);
  if (lines.next() + "\n" != header_line("T", kTargetFieldNames) ||
      lines.next() + "\n" != header_line("D", kDomainFieldNames))
    throw InputError("domains: missing or wrong header lines");
  std::string where;
  for (ScoreRow& row : rows) {
    std::vector<std::string> fields = record_fields(lines, "T", row, where);
    TargetDomains found = target_domains_of(fields, where);
    if (target_fields(found) != fields) throw InputError(where + ": a number not written as the app writes it");
    std::vector<DomainHit>& domains = found.definition.domains;
    for (std::size_t k = 0; k < domains.size(); ++k) {
      fields = record_fields(lines, "D", row, where);
      domains[k] = domain_hit_of(fields, where);
      if (domain_fields(domains[k], k) != fields)
        throw InputError(where + ": a number not written as the app writes it, or domains out of order");
    }
    row.domains = std::move(found);
  }
  if (!lines.done()) throw InputError("domains line " + std::to_string(lines.number() + 1) + ": a record of no row");
}

}  // namespace helix::hmmsearch
