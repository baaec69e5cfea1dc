// fasta.h: FASTA text split into records, the part every protein kind shares.
// Each kind digitizes the letters with its own alphabet (swsearch: NCBI's
// matrix order; hmmsearch: HMMER's), so this stops at the letters.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

struct FastaText {
  std::string id;           // the header up to the first blank
  std::string description;  // the rest of the header
  std::string letters;      // the sequence lines joined, blanks at line ends dropped
  int header_line = 0;      // 1-based, for error messages
};

// Calls take(record) for each record of a FASTA text, in order, when it is
// complete; `take` may move its id and description away (the letters'
// buffer is reused for the next record unless moved: a database of 150,000
// records reads without an allocation per record). Throws as split_fasta.
void for_each_fasta_record(std::string_view text, const std::string& what,
                           const std::function<void(FastaText&)>& take);

// Records of a FASTA text. Throws InputError (one line, naming `what` and the
// line) for text before the first '>', an empty sequence, a header with no
// sequence at the end (a truncated file), a header without an id, a NUL
// byte, or no records at all.
std::vector<FastaText> split_fasta(std::string_view text, const std::string& what);

// The text of the first `count` records of a FASTA text, byte for byte (the
// whole text when it has fewer): a smaller database or query set cut from a
// real one.
std::string first_fasta_records(const std::string& fasta, std::size_t count);

}  // namespace helix
