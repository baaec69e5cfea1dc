#include "hmm_alphabet.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "core/errors.h"
#include "core/fasta.h"

namespace helix::hmmsearch {

namespace {

constexpr const char* kDegenerateMembers[] = {"ND", "IL", "QE", "K", "C", "ACDEFGHIKLMNPQRSTVWY"};  // B J Z O U X

std::array<int, 256> make_code_table() {
  std::array<int, 256> table;
  table.fill(-1);
  for (int code = 0; code < kCodes; ++code) {
    const unsigned char symbol = static_cast<unsigned char>(kSymbols[code]);
    if (std::isalpha(symbol) || symbol == '*') table[symbol] = code, table[std::tolower(symbol)] = code;
  }
  return table;
}

}  // namespace

bool code_includes(int code, int residue) {
  if (code < kResidues) return code == residue;
  if (code < kFirstDegenerate || code > kLastDegenerate) return false;
  return std::strchr(kDegenerateMembers[code - kFirstDegenerate], kSymbols[residue]) != nullptr;
}

std::vector<std::uint8_t> digitize(std::string_view letters, const std::string& what, const std::string& sequence) {
  static const std::array<int, 256> table = make_code_table();
  std::vector<std::uint8_t> codes(letters.size());
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const int code = table[static_cast<unsigned char>(letters[i])];
    if (code < 0)
      throw InputError(what + (sequence.empty() ? "" : ", sequence " + sequence) + ": character '" +
                       std::string(1, letters[i]) + "' at position " + std::to_string(i + 1) +
                       " is not in HMMER's protein alphabet");
    codes[i] = static_cast<std::uint8_t>(code);
  }
  return codes;
}

std::vector<TargetSequence> parse_targets(std::string_view text, const std::string& what, std::size_t expected) {
  std::vector<TargetSequence> targets;
  // A record takes at least 4 bytes (">a\nA"): a wrong count cannot reserve more.
  targets.reserve(std::min(expected, text.size() / 4));
  for_each_fasta_record(text, what, [&](FastaText& record) {
    if (record.letters.size() > kMaxTargetLength)
      throw InputError(what + ", sequence " + record.id + ": " + std::to_string(record.letters.size()) +
                       " residues, over hmmsearch's limit of " + std::to_string(kMaxTargetLength));
    std::vector<std::uint8_t> codes = digitize(record.letters, what, record.id);
    targets.push_back({std::move(record.id), std::move(record.description), std::move(codes)});
  });
  return targets;
}

}  // namespace helix::hmmsearch
