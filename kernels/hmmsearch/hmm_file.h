// hmm_file.h: HMMER3 profile HMMs as hmmbuild 3.x writes them ("HMMER3/f";
// HMMER 3.0's "HMMER3/e" differs only in annotation columns and is read too),
// the first part of the hmmsearch kind (issue 6). Read for what the file
// says; the search's configuration (local multihit, length model, null
// model) comes with the filters.
//
// Contents: ProfileHmm (one model), parse_hmm_file() / read_hmm_file().
//
// The format, as HMMER's user guide describes it: a header of tag/value lines
// (NAME, ACC, DESC, LENG, ALPH, ..., STATS LOCAL MSV/VITERBI/FORWARD), then
// "HMM" with the alphabet and the transition names, an optional COMPO line,
// node 0's insert emissions and transitions, and for each node k = 1..M its
// match emissions (with annotation columns), insert emissions and
// transitions; "//" ends a model. Numbers are -ln(probability); "*" is
// probability 0.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace helix::hmmsearch {

constexpr int kAminoAcids = 20;  // HMMER's order: ACDEFGHIKLMNPQRSTVWY
constexpr char kAminoOrder[] = "ACDEFGHIKLMNPQRSTVWY";
constexpr double kProbabilityZero = std::numeric_limits<double>::infinity();  // "*" as -ln(p)

// Transitions of a node, in the file's order.
enum Transition : int { kMM = 0, kMI, kMD, kIM, kII, kDM, kDD, kTransitionCount };

// Calibrated score distributions (hmmbuild's STATS LOCAL lines): MSV and
// Viterbi scores are Gumbel with location mu and slope lambda, Forward
// scores exponential-tailed with location tau and slope lambda.
struct ScoreStatistics {
  double mu_or_tau = 0;
  double lambda = 0;
};

struct ProfileHmm {
  std::string name, accession, description;
  int length = 0;  // M, match states
  int sequences = 0;          // NSEQ (0 if absent)
  double effective_sequences = 0;  // EFFN
  bool has_compo = false;
  bool has_gathering = false;
  double gathering[2] = {0, 0};  // GA: sequence, domain bit thresholds
  ScoreStatistics msv, viterbi, forward;
  std::array<double, kAminoAcids> compo{};  // -ln of the model's average match emission
  // Per node k = 0..M, -ln probabilities (node 0 has no match emissions).
  std::vector<std::array<double, kAminoAcids>> match_emissions, insert_emissions;
  std::vector<std::array<double, kTransitionCount>> transitions;
  std::vector<char> consensus;  // per node 1..M (index 0 unused), from the CONS column
  // Optional per-node annotation (index 0 unused), kept only when the header
  // says "RF yes" / "CS yes": hmmsearch prints them above its alignments.
  std::vector<char> reference, structure;
};

// Every model of an HMMER3/f or /e text (several may follow each other). Throws
// InputError, one line naming `what`, the line number and what is wrong, for
// a corrupt or truncated file, another format version, a nucleic-acid model,
// node counts that disagree with LENG, or distributions that do not sum to 1
// (within 1e-3).
std::vector<ProfileHmm> parse_hmm_file(const std::string& text, const std::string& what);
// Reads a plain-text file (parse_hmm_file of its contents).
std::vector<ProfileHmm> read_hmm_file(const std::string& path);

}  // namespace helix::hmmsearch
