// sw_report.cpp: a search's merged hits as the reports scientists already
// parse: BLAST's tabular output (-outfmt 6 and, with comment lines, -outfmt 7)
// and BLAST-style pairwise alignments (sw_server.h, docs/swsearch.md).
//
// Numbers are formatted as BLAST+ formats them (align_format's score strings,
// read to match its output): E-values "0.0" below 1e-180, one significant
// digit in exponent form below 0.0009, then 3, 2 and 1 decimals, whole
// numbers from 10 up; bit scores with one decimal up to 99.9, whole (cut, not
// rounded) above, exponent form above 9999; percent identity with 3
// decimals. Bits and E-values are recomputed from the raw score with the
// search's statistics (the app's own functions), not read back from the
// rounded text of the hits file.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/errors.h"
#include "core/file_io.h"
#include "sw_server.h"
#include "sw_statistics.h"

namespace helix::swsearch {

namespace fs = std::filesystem;

namespace {

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  std::string s = text;
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? s : s.substr(first);  // BLAST's tabular output trims the padding
}

// A run of a CIGAR: count and op (M, I or D).
struct CigarRun {
  int count;
  char op;
};
std::vector<CigarRun> cigar_runs(const std::string& cigar) {
  std::vector<CigarRun> runs;
  int count = 0;
  for (char c : cigar) {
    if (c >= '0' && c <= '9') {
      count = count * 10 + (c - '0');
    } else {
      if (count <= 0 || (c != 'M' && c != 'I' && c != 'D')) throw InputError("malformed CIGAR \"" + cigar + "\"");
      runs.push_back({count, c});
      count = 0;
    }
  }
  if (count != 0) throw InputError("malformed CIGAR \"" + cigar + "\"");
  return runs;
}

struct GapCounts {
  int opens = 0, columns = 0;
};
GapCounts gap_counts(const std::string& cigar) {
  GapCounts gaps;
  for (const CigarRun& run : cigar_runs(cigar))
    if (run.op != 'M') ++gaps.opens, gaps.columns += run.count;
  return gaps;
}

// BLAST's percentages in the pairwise header: rounded, but never 100 unless
// all, never 0 unless none.
int percent(int part, int whole) {
  if (whole <= 0) return 0;
  int p = static_cast<int>(0.5 + 100.0 * part / whole);
  if (p == 100 && part != whole) p = 99;
  if (p == 0 && part > 0) p = 1;
  return p;
}

struct HitNumbers {
  std::string bits, evalue;
};
HitNumbers hit_numbers(const KarlinAltschul& ka, const Hit& hit, std::uint64_t query_length,
                       std::uint64_t database_residues) {
  return {blast_bits_text(bit_score(ka, hit.score)),
          blast_evalue_text(evalue(ka, hit.score, query_length, database_residues))};
}

std::string tabular_row(const std::string& query_id, const Hit& hit, const HitNumbers& numbers) {
  const GapCounts gaps = gap_counts(hit.cigar);
  char pident[32];
  std::snprintf(pident, sizeof pident, "%.3f", hit.length > 0 ? 100.0 * hit.identities / hit.length : 0.0);
  return query_id + '\t' + hit.target_id + '\t' + pident + '\t' + std::to_string(hit.length) + '\t' +
         std::to_string(hit.length - hit.identities - gaps.columns) + '\t' + std::to_string(gaps.opens) + '\t' +
         std::to_string(hit.query_start) + '\t' + std::to_string(hit.query_end) + '\t' +
         std::to_string(hit.target_start) + '\t' + std::to_string(hit.target_end) + '\t' + numbers.evalue + '\t' +
         numbers.bits + '\n';
}

const std::vector<std::uint8_t>& target_of(const ReportInputs& inputs, const Hit& hit) {
  const auto found = inputs.targets.find(hit.target_ordinal);
  if (found == inputs.targets.end())
    throw InputError("target " + hit.target_id + " (ordinal " + std::to_string(hit.target_ordinal) +
                     ") is in no database chunk of the search");
  return found->second;
}

// The three lines of an alignment block, 60 columns a block.
struct AlignedRows {
  std::string query, middle, target;
};
AlignedRows aligned_rows(const Hit& hit, const std::vector<std::uint8_t>& query,
                         const std::vector<std::uint8_t>& target, const ScoreMatrix& matrix, int& positives) {
  AlignedRows rows;
  std::size_t i = static_cast<std::size_t>(hit.query_start - 1), j = static_cast<std::size_t>(hit.target_start - 1);
  positives = 0;
  for (const CigarRun& run : cigar_runs(hit.cigar))
    for (int k = 0; k < run.count; ++k) {
      if (run.op == 'D' ? j >= target.size() : run.op == 'I' ? i >= query.size()
                                                              : i >= query.size() || j >= target.size())
        throw InputError("the alignment of " + hit.target_id + " runs past its sequences");
      if (run.op == 'M') {
        const std::uint8_t a = query[i++], b = target[j++];
        const int score = matrix.score[a][b];
        positives += score > 0;
        rows.query += kAlphabet[a], rows.target += kAlphabet[b];
        rows.middle += a == b ? kAlphabet[a] : score > 0 ? '+' : ' ';
      } else if (run.op == 'I') {
        rows.query += kAlphabet[query[i++]], rows.target += '-', rows.middle += ' ';
      } else {
        rows.query += '-', rows.target += kAlphabet[target[j++]], rows.middle += ' ';
      }
    }
  return rows;
}

std::string alignment_text(const Hit& hit, const HitNumbers& numbers, const std::vector<std::uint8_t>& query,
                           const std::vector<std::uint8_t>& target, const ScoreMatrix& matrix) {
  int positives = 0;
  const AlignedRows rows = aligned_rows(hit, query, target, matrix, positives);
  const GapCounts gaps = gap_counts(hit.cigar);
  std::string text = "> " + hit.target_id + "\nLength=" + std::to_string(target.size()) + "\n\n";
  text += " Score = " + numbers.bits + " bits (" + std::to_string(hit.score) + "),  Expect = " + numbers.evalue + "\n";
  text += " Identities = " + std::to_string(hit.identities) + "/" + std::to_string(hit.length) + " (" +
          std::to_string(percent(hit.identities, hit.length)) + "%), Positives = " + std::to_string(positives) + "/" +
          std::to_string(hit.length) + " (" + std::to_string(percent(positives, hit.length)) + "%), Gaps = " +
          std::to_string(gaps.columns) + "/" + std::to_string(hit.length) + " (" +
          std::to_string(percent(gaps.columns, hit.length)) + "%)\n\n";
  const int width = static_cast<int>(std::to_string(std::max(hit.query_end, hit.target_end)).size());
  int query_at = hit.query_start, target_at = hit.target_start;
  constexpr std::size_t kColumns = 60;
  for (std::size_t column = 0; column < rows.query.size(); column += kColumns) {
    const std::string q = rows.query.substr(column, kColumns), t = rows.target.substr(column, kColumns);
    const int query_residues = static_cast<int>(std::count_if(q.begin(), q.end(), [](char c) { return c != '-'; }));
    const int target_residues = static_cast<int>(std::count_if(t.begin(), t.end(), [](char c) { return c != '-'; }));
    char line[64];
    std::snprintf(line, sizeof line, "Query  %-*d  ", width, query_at);
    text += line + q + "  " + std::to_string(query_at + query_residues - 1) + "\n";
    text += std::string(7 + width + 2, ' ') + rows.middle.substr(column, kColumns) + "\n";
    std::snprintf(line, sizeof line, "Sbjct  %-*d  ", width, target_at);
    text += line + t + "  " + std::to_string(target_at + target_residues - 1) + "\n\n";
    query_at += query_residues, target_at += target_residues;
  }
  return text;
}

constexpr const char* kFields =
    "# Fields: query acc.ver, subject acc.ver, % identity, alignment length, mismatches, gap opens, q. start, "
    "q. end, s. start, s. end, evalue, bit score\n";

std::string program_line(const SwParams& params) {
  return "helix swsearch: Smith-Waterman (full dynamic programming), " + params.matrix_name + ", gap open " +
         std::to_string(params.gaps.open) + " extend " + std::to_string(params.gaps.extend) +
         " (a k-gap costs open + (k - 1) extend)";
}

std::string database_line(const SwParams& params) {
  return params.search + ": " + std::to_string(params.database_sequences) + " sequences; " +
         std::to_string(params.database_residues) + " total letters";
}

}  // namespace

std::string blast_evalue_text(double e) {
  if (e < 1.0e-180) return "0.0";
  if (e < 1.0e-99) return printed("%2.0le", e);
  if (e < 0.0009) return printed("%3.0le", e);
  if (e < 0.1) return printed("%4.3lf", e);
  if (e < 1.0) return printed("%3.2lf", e);
  if (e < 10.0) return printed("%2.1lf", e);
  return printed("%5.0lf", e);
}

std::string blast_bits_text(double bits) {
  if (bits > 9999) return printed("%4.3le", bits);
  if (bits > 99.9) return printed("%4.0lf", std::trunc(bits));  // BLAST prints (long)bits
  return printed("%4.1lf", bits);
}

ReportInputs read_report_inputs(const std::string& dir, const SwParams& params,
                                const std::vector<QueryHits>& merged) {
  ReportInputs inputs;
  if (!fs::is_directory(dir)) throw InputError("inputs directory " + dir + " does not exist");
  std::set<std::uint64_t> wanted;
  for (const QueryHits& query : merged)
    for (const Hit& hit : query.hits)
      if (!hit.cigar.empty()) wanted.insert(hit.target_ordinal);
  const std::string prefix = params.search;
  const std::string matrix_path = dir + "/" + matrix_file(prefix, params.matrix_name);
  inputs.matrix = parse_ncbi_matrix(read_file_text(matrix_path), params.matrix_name);
  std::vector<std::pair<std::size_t, std::string>> query_files;  // (batch, path): chunk 0's copy of each batch
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    constexpr std::size_t kQueriesSuffix = 11;  // ".queries.fa"
    if (rest.size() > kQueriesSuffix && rest.compare(rest.size() - kQueriesSuffix, kQueriesSuffix, ".queries.fa") == 0) {
      const auto wu = parse_wu_name(name.substr(0, name.size() - kQueriesSuffix));
      if (wu && wu->prefix == prefix && wu->chunk == 0) query_files.emplace_back(wu->batch, entry.path().string());
    } else if (rest.rfind(".chunk_", 0) == 0 && rest.size() > 12 && rest.compare(rest.size() - 5, 5, ".hxsw") == 0) {
      const DatabaseChunk chunk = decode_chunk(read_file_bytes(entry.path().string()), params.database_residues);
      for (std::size_t t = 0; t < chunk.ordinals.size(); ++t)
        if (wanted.count(chunk.ordinals[t]))
          inputs.targets.emplace(chunk.ordinals[t], std::vector<std::uint8_t>(chunk.targets.begin(t),
                                                                             chunk.targets.begin(t) +
                                                                                 chunk.targets.length(t)));
    }
  }
  std::sort(query_files.begin(), query_files.end());
  for (const auto& [batch, path] : query_files)
    for (FastaRecord& record : parse_fasta(read_file_text(path), path))
      inputs.queries.push_back({std::move(record.id), std::move(record.residues)});
  if (inputs.queries.empty()) throw InputError("no queries file of search " + prefix + " in " + dir);
  return inputs;
}

ReportTexts sw_report_texts(const std::vector<QueryHits>& merged, const SwParams& params,
                            const ReportInputs& inputs) {
  const KarlinAltschul ka = karlin_altschul(params.matrix_name, params.gaps);
  ReportTexts texts;
  std::map<std::string, const QueryHits*> hits_of;
  for (const QueryHits& query : merged) hits_of[query.query_id] = &query;
  std::size_t listed = 0;
  for (const auto& [query_id, query_residues] : inputs.queries) {
    const auto found = hits_of.find(query_id);
    const QueryHits query = found == hits_of.end() ? QueryHits{query_id, 0, {}} : *found->second;
    listed += found != hits_of.end();
    std::vector<const Hit*> aligned;
    for (const Hit& hit : query.hits)
      if (!hit.cigar.empty()) aligned.push_back(&hit);
    texts.commented += "# " + program_line(params) + "\n# Query: " + query.query_id + "\n# Database: " +
                       database_line(params) + "\n";
    if (!aligned.empty()) texts.commented += kFields;
    texts.commented += "# " + std::to_string(aligned.size()) + " hits found\n";
    texts.alignments += "Query= " + query.query_id + "\n\nLength=" + std::to_string(query_residues.size()) + "\n\n";
    if (query.hits.empty()) texts.alignments += "\n***** No hits found *****\n\n";
    else
      texts.alignments +=
          "                                                                      Score     E\n"
          "Sequences producing significant alignments:                          (Bits)  Value\n\n";
    for (const Hit& hit : query.hits) {
      const HitNumbers numbers = hit_numbers(ka, hit, query_residues.size(), params.database_residues);
      char line[256];
      std::snprintf(line, sizeof line, "%-66.66s  %6s  %s\n", hit.target_id.c_str(), numbers.bits.c_str(),
                    numbers.evalue.c_str());
      texts.alignments += line;
    }
    texts.alignments += "\n\n";
    for (const Hit* hit : aligned) {
      const HitNumbers numbers = hit_numbers(ka, *hit, query_residues.size(), params.database_residues);
      const std::string row = tabular_row(query.query_id, *hit, numbers);
      texts.tabular += row;
      texts.commented += row;
      texts.alignments += alignment_text(*hit, numbers, query_residues, target_of(inputs, *hit), inputs.matrix);
    }
    texts.alignments += "\n";
  }
  if (listed != hits_of.size()) throw InputError("a query with stored hits is in no queries file of the search");
  texts.commented += "# helix swsearch processed " + std::to_string(inputs.queries.size()) + " queries\n";
  return texts;
}

}  // namespace helix::swsearch
