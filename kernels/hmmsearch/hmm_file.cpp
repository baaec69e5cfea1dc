// hmm_file.cpp: the HMMER3/f profile parser (hmm_file.h).
#include "hmm_file.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/errors.h"
#include "core/file_io.h"

namespace helix::hmmsearch {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Reads lines and reports errors with the file name and line number.
class LineReader {
 public:
  LineReader(const std::string& text, std::string what) : in_(text), what_(std::move(what)) {}
  // The next line's words; false at the end of the text.
  bool next(std::vector<std::string>& words) {
    std::string line;
    if (!std::getline(in_, line)) return false;
    ++number_;
    words = words_of(line);
    return true;
  }
  // The next line's words; a truncated file otherwise.
  std::vector<std::string> require_next(const char* expecting) {
    std::vector<std::string> words;
    if (!next(words)) fail(std::string("ends early (truncated?) while expecting ") + expecting);
    return words;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(what_ + ", line " + std::to_string(number_) + ": " + why);
  }
  // A -ln(probability): a non-negative number or "*".
  double cost(const std::string& word) const {
    if (word == "*") return kProbabilityZero;
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (*end != '\0' || !std::isfinite(value) || value < 0) fail("\"" + word + "\" is not a -ln(probability)");
    return value;
  }
  double number(const std::string& word) const {
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (word.empty() || *end != '\0' || !std::isfinite(value)) fail("\"" + word + "\" is not a number");
    return value;
  }
  // A whole number in [low, high], range-checked before it becomes an int
  // (a double outside int's range cast to int is undefined behaviour).
  int integer(const std::string& word, const char* tag, int low, int high) const {
    const double value = number(word);
    if (value != std::floor(value) || value < low || value > high)
      fail(std::string(tag) + " must be an integer in " + std::to_string(low) + ".." + std::to_string(high));
    return static_cast<int>(value);
  }

 private:
  std::istringstream in_;
  std::string what_;
  int number_ = 0;
};

template <std::size_t N>
std::array<double, N> costs(const LineReader& reader, const std::vector<std::string>& words, std::size_t first,
                            const char* what) {
  if (words.size() < first + N) reader.fail(std::string(what) + ": expected " + std::to_string(N) + " values");
  std::array<double, N> values{};
  for (std::size_t k = 0; k < N; ++k) values[k] = reader.cost(words[first + k]);
  return values;
}

// exp(-x) summed over [first, last) must be 1.
void require_distribution(const LineReader& reader, const double* costs, int first, int last, const char* what) {
  double sum = 0;
  for (int k = first; k < last; ++k) sum += std::exp(-costs[k]);
  if (std::fabs(sum - 1) > 1e-3) reader.fail(std::string(what) + " probabilities sum to " + std::to_string(sum));
}

void read_header_line(LineReader& reader, const std::vector<std::string>& w, ProfileHmm& hmm) {
  const std::string& tag = w[0];
  auto rest = [&] {
    std::string text;
    for (std::size_t k = 1; k < w.size(); ++k) text += (k > 1 ? " " : "") + w[k];
    return text;
  };
  if (tag == "NAME") hmm.name = rest();
  else if (tag == "ACC") hmm.accession = rest();
  else if (tag == "DESC") hmm.description = rest();
  else if (tag == "LENG") {
    hmm.length = reader.integer(w.size() > 1 ? w[1] : "", "LENG", 1, 100000);
  } else if (tag == "ALPH") {
    if (w.size() < 2 || w[1] != "amino") reader.fail("the model is not a protein model (ALPH " + rest() + ")");
  } else if (tag == "NSEQ") hmm.sequences = reader.integer(w.size() > 1 ? w[1] : "", "NSEQ", 0, std::numeric_limits<int>::max());
  else if (tag == "EFFN") hmm.effective_sequences = reader.number(w.size() > 1 ? w[1] : "");
  else if (tag == "GA") {
    if (w.size() < 3) reader.fail("GA needs two thresholds");
    hmm.has_gathering = true;
    hmm.gathering[0] = reader.number(w[1]);
    hmm.gathering[1] = reader.number(w[2].back() == ';' ? w[2].substr(0, w[2].size() - 1) : w[2]);
  } else if (tag == "STATS") {
    if (w.size() != 5 || w[1] != "LOCAL") reader.fail("expected STATS LOCAL <MSV|VITERBI|FORWARD> <mu> <lambda>");
    ScoreStatistics stats{reader.number(w[3]), reader.number(w[4])};
    if (w[2] == "MSV") hmm.msv = stats;
    else if (w[2] == "VITERBI") hmm.viterbi = stats;
    else if (w[2] == "FORWARD") hmm.forward = stats;
    else reader.fail("unknown STATS line " + w[2]);
  }
  else if (tag == "RF" || tag == "CS") {
    // Only flags here; the node lines carry the characters (see read_nodes).
    const bool yes = w.size() > 1 && (w[1] == "yes" || w[1] == "YES");
    (tag == "RF" ? hmm.reference : hmm.structure).assign(yes ? 1 : 0, ' ');
  }
  // Other tags (MM, CONS, MAP, DATE, COM, CKSUM, TC, NC, ...) carry nothing the search needs.
}

// The "HMM" line's alphabet, then the transition names line.
void read_model_heading(LineReader& reader, const std::vector<std::string>& w) {
  if (w.size() != kAminoAcids + 1) reader.fail("the HMM line must list the 20 amino acids");
  for (int k = 0; k < kAminoAcids; ++k)
    if (w[k + 1] != std::string(1, kAminoOrder[k])) reader.fail("the HMM line's alphabet is not ACDEFGHIKLMNPQRSTVWY");
  const std::vector<std::string> names = reader.require_next("the transition names");
  if (names != std::vector<std::string>{"m->m", "m->i", "m->d", "i->m", "i->i", "d->m", "d->d"})
    reader.fail("expected the transition names m->m m->i m->d i->m i->i d->m d->d");
}

void read_node_transitions(LineReader& reader, ProfileHmm& hmm, int node) {
  const auto t = costs<kTransitionCount>(reader, reader.require_next("transitions"), 0, "transitions");
  require_distribution(reader, t.data(), kMM, kIM, "match transition");
  require_distribution(reader, t.data(), kIM, kDM, "insert transition");
  if (node < hmm.length) require_distribution(reader, t.data(), kDM, kTransitionCount, "delete transition");
  hmm.transitions[node] = t;
}

void read_nodes(LineReader& reader, ProfileHmm& hmm) {
  std::vector<std::string> w = reader.require_next("COMPO or node 0");
  if (!w.empty() && w[0] == "COMPO") {
    hmm.compo = costs<kAminoAcids>(reader, w, 1, "COMPO");
    hmm.has_compo = true;
    w = reader.require_next("node 0's insert emissions");
  }
  const int M = hmm.length;
  hmm.match_emissions.assign(M + 1, {});
  hmm.insert_emissions.assign(M + 1, {});
  hmm.transitions.assign(M + 1, {});
  hmm.consensus.assign(M + 1, '-');
  if (!hmm.reference.empty()) hmm.reference.assign(M + 1, '-');
  if (!hmm.structure.empty()) hmm.structure.assign(M + 1, '-');
  hmm.insert_emissions[0] = costs<kAminoAcids>(reader, w, 0, "insert emissions");
  read_node_transitions(reader, hmm, 0);
  for (int k = 1; k <= M; ++k) {
    w = reader.require_next("a match emission line");
    if (w.empty() || w[0] != std::to_string(k))
      reader.fail("expected node " + std::to_string(k) + " (LENG " + std::to_string(M) + ")");
    hmm.match_emissions[k] = costs<kAminoAcids>(reader, w, 1, "match emissions");
    require_distribution(reader, hmm.match_emissions[k].data(), 0, kAminoAcids, "match emission");
    if (w.size() >= kAminoAcids + 3) hmm.consensus[k] = w[kAminoAcids + 2][0];
    // After MAP and CONS: RF, then (HMMER3/f only) MM, then CS, the last word.
    if (!hmm.reference.empty() && w.size() >= kAminoAcids + 4) hmm.reference[k] = w[kAminoAcids + 3][0];
    if (!hmm.structure.empty() && w.size() >= kAminoAcids + 5) hmm.structure[k] = w.back()[0];
    hmm.insert_emissions[k] = costs<kAminoAcids>(reader, reader.require_next("insert emissions"), 0, "insert emissions");
    require_distribution(reader, hmm.insert_emissions[k].data(), 0, kAminoAcids, "insert emission");
    read_node_transitions(reader, hmm, k);
  }
  w = reader.require_next("\"//\"");
  if (w.size() != 1 || w[0] != "//") reader.fail("expected \"//\" after node " + std::to_string(M) + " (more nodes than LENG?)");
}

// The first word of a model HMMER 3 wrote (3.1 and later: HMMER3/f; 3.0: HMMER3/e).
bool hmmer3_tag(const std::string& word) { return word == "HMMER3/f" || word == "HMMER3/e"; }

ProfileHmm read_model(LineReader& reader, const std::vector<std::string>& first_line) {
  if (first_line.empty() || !hmmer3_tag(first_line[0]))
    reader.fail("not an HMMER3 profile (first word \"" + (first_line.empty() ? "" : first_line[0]) +
                "\"; HMMER 3.1 and later write HMMER3/f, 3.0 wrote HMMER3/e)");
  ProfileHmm hmm;
  while (true) {
    const std::vector<std::string> w = reader.require_next("the HMM line");
    if (w.empty()) continue;
    if (w[0] == "HMM") {
      read_model_heading(reader, w);
      break;
    }
    read_header_line(reader, w, hmm);
  }
  if (hmm.name.empty()) reader.fail("the model has no NAME");
  if (hmm.length == 0) reader.fail("the model has no LENG");
  if (hmm.msv.lambda <= 0 || hmm.viterbi.lambda <= 0 || hmm.forward.lambda <= 0)
    reader.fail("the model lacks its STATS LOCAL calibration (run hmmbuild, not an uncalibrated model)");
  read_nodes(reader, hmm);
  return hmm;
}

}  // namespace

std::vector<ProfileHmm> parse_hmm_file(const std::string& text, const std::string& what) {
  LineReader reader(text, what);
  std::vector<ProfileHmm> models;
  std::string format;  // the first model's tag: hmmsearch reads one format per file
  for (std::vector<std::string> w; reader.next(w);) {
    if (w.empty()) continue;
    if (!models.empty() && w[0] != format && hmmer3_tag(w[0]))
      reader.fail("model " + std::to_string(models.size() + 1) + " is " + w[0] + " after " + format +
                  " models: hmmsearch refuses a file that mixes HMMER3 formats (convert each model with "
                  "hmmconvert)");
    models.push_back(read_model(reader, w));
    if (models.size() == 1) format = w[0];
  }
  if (models.empty()) throw InputError(what + ": holds no profile HMM");
  return models;
}

std::vector<ProfileHmm> read_hmm_file(const std::string& path) { return parse_hmm_file(read_file_text(path), path); }

}  // namespace helix::hmmsearch
