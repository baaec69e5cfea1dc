// sw.h: the swsearch kind's definitions and CPU reference (issue 5): protein
// Smith-Waterman local alignment with affine gaps. docs/swsearch.md says the
// same in prose.
//
// Contents:
//   kAlphabet, encode_protein()        residues -> codes (ambiguity codes as NCBI)
//   ScoreMatrix, parse_ncbi_matrix()   BLOSUM/PAM in NCBI's text format
//   GapPenalties, gaps_from_blast()    a k-gap costs open + (k - 1) extend
//   FastaRecord, parse_fasta()         FASTA text -> records (bad input refused)
//   LocalScore, sw_score()             the reference: best score and where it ends
//   Alignment, sw_align()              the same with traceback: starts, CIGAR, identities
//   score_of_cigar()                   an alignment's score recomputed from its CIGAR
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace helix::swsearch {

// Residue codes index this alphabet: NCBI's matrix order (20 amino acids, the
// ambiguity codes B = D/N, J = I/L, Z = E/Q, X = any, and * = stop).
constexpr char kAlphabet[] = "ARNDCQEGHILKMFPSTWYVBJZX*";
constexpr int kAlphabetSize = 25;
constexpr std::uint8_t kCodeX = 23;

// Letters to codes: case-insensitive; U (selenocysteine) and O (pyrrolysine),
// which NCBI's matrices have no row for, score as X. Anything that is not a
// letter or '*' is refused: throws InputError naming `what` and the character.
std::vector<std::uint8_t> encode_protein(std::string_view residues, const std::string& what);
std::string decode_protein(const std::vector<std::uint8_t>& codes);

struct ScoreMatrix {
  std::string name;
  std::array<std::array<std::int8_t, kAlphabetSize>, kAlphabetSize> score{};  // score[a][b], codes
  int min_score = 0, max_score = 0;
};
// NCBI's text format (e.g. /usr/share/ncbi/data/BLOSUM62): '#' comments, a
// header row of letters, then one row per letter. Letters of kAlphabet the
// file lacks (J in older files) score as its X. Throws InputError (one line)
// on a malformed file, scores outside -128..127, or an asymmetric matrix.
ScoreMatrix parse_ncbi_matrix(const std::string& text, const std::string& name);
ScoreMatrix read_ncbi_matrix(const std::string& path);  // name = file's base name

// Affine gaps as parasail and SSW charge them: a gap of k residues costs
// open + (k - 1) * extend. BLAST states "existence E, extension X" with a
// k-gap costing E + k X: that is open = E + X, extend = X (BLAST's 11/1 ->
// open 12, extend 1).
struct GapPenalties {
  int open = 12;
  int extend = 1;
};
GapPenalties gaps_from_blast(int existence, int extension);
// Throws InputError unless 1 <= extend <= open <= 255.
void check_gaps(const GapPenalties& gaps);

struct FastaRecord {
  std::string id;           // the header up to the first blank
  std::string description;  // the rest of the header
  std::vector<std::uint8_t> residues;
};
// Records of a FASTA text. Throws InputError (one line, naming `what` and the
// line) for text before the first '>', an empty sequence, a header with no
// sequence at the end (a truncated file), a NUL byte, or a bad residue.
std::vector<FastaRecord> parse_fasta(std::string_view text, const std::string& what);

// The best local alignment score of query against target (0 if none is
// positive), and where the first cell reaching it lies: cells are visited
// target position outer, query position inner, both ascending, and a later
// cell must be strictly better to replace the end. Ends are 0-based and
// inclusive; -1 when the score is 0.
struct LocalScore {
  int score = 0;
  int query_end = -1;
  int target_end = -1;
  bool operator==(const LocalScore& o) const {
    return score == o.score && query_end == o.query_end && target_end == o.target_end;
  }
};
LocalScore sw_score(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                    const ScoreMatrix& matrix, const GapPenalties& gaps);

// An optimal local alignment ending where sw_score() says. The traceback
// prefers, at every step, the diagonal, then a gap in the target (CIGAR I:
// query residue against nothing), then a gap in the query (D), and inside a
// gap, opening it over extending it. CIGAR ops:
// M (aligned pair), I, D; begin/end 0-based inclusive.
struct Alignment {
  int score = 0;
  int query_begin = -1, query_end = -1;
  int target_begin = -1, target_end = -1;
  std::string cigar;  // "" when the score is 0
  int identities = 0;  // M positions with equal residues
  int length = 0;      // columns: M + I + D
};
Alignment sw_align(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                   const ScoreMatrix& matrix, const GapPenalties& gaps);
// The same from an end found beforehand (an engine's ends()): the score is
// what the recurrences give at that cell, so a caller compares it with the
// end's to catch a wrong end. Throws std::invalid_argument for a cell outside
// the sequences.
Alignment sw_align(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                   const ScoreMatrix& matrix, const GapPenalties& gaps, const LocalScore& end);

// Where a DP cell's values came from (the reference's recurrences), for the
// traceback: ties go to the diagonal, then F, then E; inside a gap, to opening
// it (from H) over extending it.
enum TracebackBits : std::uint8_t {
  kHFromZero = 0,
  kHFromDiagonal = 1,
  kHFromF = 2,  // gap in the target: query residue against nothing (I)
  kHFromE = 3,  // gap in the query: target residue against nothing (D)
  kHSourceMask = 3,
  kEExtends = 4,  // E(i,j) came from E(i,j-1), else it opened from H(i,j-1)
  kFExtends = 8,  // F(i,j) came from F(i-1,j), else it opened from H(i-1,j)
};
// sw_align()'s walk from `end` (whose cell holds end_score) over the cells'
// bits, bits_at(i, j) for 1 <= i <= end.query_end + 1, 1 <= j <= end.target_end
// + 1 (DP coordinates: residue i - 1 against residue j - 1); what sw_align()
// returns when the bits are the reference's. Throws std::invalid_argument when
// the bits lead the walk off the matrix (they cannot be the reference's).
Alignment trace_back(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                     const LocalScore& end, int end_score, const std::function<std::uint8_t(int, int)>& bits_at);

// The score of the alignment that `cigar` describes from (query_begin,
// target_begin). Throws InputError when the CIGAR is malformed or runs off
// either sequence.
int score_of_cigar(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target, int query_begin,
                   int target_begin, const std::string& cigar, const ScoreMatrix& matrix, const GapPenalties& gaps);

}  // namespace helix::swsearch
