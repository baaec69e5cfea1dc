// hmm_alphabet.h: HMMER's protein alphabet and the target sequences of an
// hmmsearch work unit.
//
// Digital codes follow Easel's amino alphabet "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~":
// 0..19 the residues, 20 gap, 21..26 the degenerate codes B J Z O U X
// (O scores as K, U as C, X as any residue), 27 '*' (not a residue), 28 '~'.
// Every letter of the Latin alphabet is a code, in either case; '*' is read
// too. Anything else in a sequence is refused, as hmmsearch refuses it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace helix::hmmsearch {

constexpr int kResidues = 20;
constexpr int kCodes = 29;
constexpr char kSymbols[] = "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~";
constexpr int kGapCode = 20, kFirstDegenerate = 21, kLastDegenerate = 26, kNonresidueCode = 27, kMissingCode = 28;
// hmmsearch refuses targets longer than this (its pipeline's limit).
constexpr std::size_t kMaxTargetLength = 100000;

// Which residues a code stands for (a residue stands for itself; gap,
// nonresidue and missing stand for none).
bool code_includes(int code, int residue);

struct TargetSequence {
  std::string name, description;
  std::vector<std::uint8_t> codes;
};

// Digital codes of a sequence's letters; throws InputError naming `what` (and
// `sequence`, its id, when given) for a character outside the alphabet.
std::vector<std::uint8_t> digitize(std::string_view letters, const std::string& what,
                                   const std::string& sequence = "");
// FASTA text -> targets. Throws InputError for bad FASTA (see split_fasta),
// a bad character, or a sequence longer than kMaxTargetLength. `expected`
// (the count a WU's params state, else 0) only sizes the vector up front, so
// that 450,000 targets are not moved ~19 times as it grows.
std::vector<TargetSequence> parse_targets(std::string_view text, const std::string& what, std::size_t expected = 0);

}  // namespace helix::hmmsearch
