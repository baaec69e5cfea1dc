// sw_scoring.cpp: residues, substitution matrices, gap penalties and FASTA
// for the swsearch kind (sw.h).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core/errors.h"
#include "core/fasta.h"
#include "core/file_io.h"
#include "sw.h"

namespace helix::swsearch {
namespace {

// Code of an upper-case letter or '*', or -1.
int code_of(char c) {
  if (c == 'U' || c == 'O') return kCodeX;  // no matrix row: scored as X, as NCBI does
  const char* at = std::strchr(kAlphabet, c);
  return c != '\0' && at ? static_cast<int>(at - kAlphabet) : -1;
}

std::string printable(char c) {
  if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02x", static_cast<unsigned char>(c));
  return buffer;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

std::vector<std::uint8_t> encode_protein(std::string_view residues, const std::string& what) {
  std::vector<std::uint8_t> codes;
  codes.reserve(residues.size());
  for (char c : residues) {
    const int code = code_of(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (code < 0) throw InputError(what + ": " + printable(c) + " is not a protein residue");
    codes.push_back(static_cast<std::uint8_t>(code));
  }
  return codes;
}

std::string decode_protein(const std::vector<std::uint8_t>& codes) {
  std::string text;
  for (std::uint8_t c : codes) text += c < kAlphabetSize ? kAlphabet[c] : '?';
  return text;
}

ScoreMatrix parse_ncbi_matrix(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::vector<int> columns;  // codes of the header's letters
  bool seen[kAlphabetSize][kAlphabetSize] = {};
  ScoreMatrix matrix;
  matrix.name = name;
  int line_number = 0;
  auto fail = [&](const std::string& why) { throw InputError("matrix " + name + ", line " + std::to_string(line_number) + ": " + why); };
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::vector<std::string> words = words_of(line);
    if (words.empty() || words[0][0] == '#') continue;
    if (columns.empty()) {
      for (const std::string& w : words) {
        if (w.size() != 1 || code_of(w[0]) < 0 || w[0] == 'U' || w[0] == 'O') fail("bad header letter " + w);
        columns.push_back(code_of(w[0]));
      }
      continue;
    }
    if (words[0].size() != 1 || code_of(words[0][0]) < 0) fail("bad row letter " + words[0]);
    if (words.size() != columns.size() + 1) fail("expected " + std::to_string(columns.size()) + " scores");
    const int row = code_of(words[0][0]);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      char* end = nullptr;
      const long value = std::strtol(words[k + 1].c_str(), &end, 10);
      if (*end != '\0' || value < -128 || value > 127) fail("bad score " + words[k + 1]);
      matrix.score[row][columns[k]] = static_cast<std::int8_t>(value);
      seen[row][columns[k]] = true;
    }
  }
  if (columns.empty() || !seen[kCodeX][kCodeX]) throw InputError("matrix " + name + ": no header or no X row and column");
  // A letter the file lacks (J in older files) scores as X: its row and column are X's.
  auto stand_in = [&](int code) { return seen[code][code] ? code : kCodeX; };
  for (int a = 0; a < kAlphabetSize; ++a)
    for (int b = 0; b < kAlphabetSize; ++b)
      if (!seen[a][b]) matrix.score[a][b] = matrix.score[stand_in(a)][stand_in(b)];
  for (int a = 0; a < kAlphabetSize; ++a)
    for (int b = 0; b < kAlphabetSize; ++b)
      if (matrix.score[a][b] != matrix.score[b][a])
        throw InputError("matrix " + name + " is not symmetric at " + kAlphabet[a] + "," + kAlphabet[b]);
  matrix.min_score = matrix.max_score = matrix.score[0][0];
  for (const auto& row : matrix.score)
    for (std::int8_t v : row) matrix.min_score = std::min<int>(matrix.min_score, v), matrix.max_score = std::max<int>(matrix.max_score, v);
  return matrix;
}

ScoreMatrix read_ncbi_matrix(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return parse_ncbi_matrix(read_file_text(path), slash == std::string::npos ? path : path.substr(slash + 1));
}

GapPenalties gaps_from_blast(int existence, int extension) { return {existence + extension, extension}; }

void check_gaps(const GapPenalties& gaps) {
  if (gaps.extend < 1 || gaps.open < gaps.extend || gaps.open > 255)
    throw InputError("gap penalties: need 1 <= extend <= open <= 255 (a k-gap costs open + (k-1) extend), got open " +
                     std::to_string(gaps.open) + ", extend " + std::to_string(gaps.extend));
}

std::vector<FastaRecord> parse_fasta(std::string_view text, const std::string& what) {
  std::vector<FastaRecord> records;
  for_each_fasta_record(text, what, [&](FastaText& split) {
    FastaRecord record{std::move(split.id), std::move(split.description), {}};
    record.residues = encode_protein(split.letters, what + ", sequence " + record.id);
    records.push_back(std::move(record));
  });
  return records;
}

}  // namespace helix::swsearch
