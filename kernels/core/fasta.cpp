#include "core/fasta.h"

#include <algorithm>

#include "core/errors.h"

namespace helix {

namespace {

std::string at_line(const std::string& what, int line) { return what + ", line " + std::to_string(line) + ": "; }

FastaText header_record(std::string_view header_line_text, const std::string& what, int line_number) {
  const std::string header(header_line_text.substr(1));
  const std::size_t blank = std::min(header.find_first_of(" \t"), header.size());
  const std::size_t description = std::min(header.find_first_not_of(" \t", blank), header.size());
  FastaText record;
  record.id = header.substr(0, blank);
  record.description = header.substr(description);
  record.header_line = line_number;
  if (record.id.empty()) throw InputError(at_line(what, line_number) + "a header without an id");
  return record;
}

}  // namespace

std::vector<FastaText> split_fasta(std::string_view text, const std::string& what) {
  if (text.find('\0') != std::string_view::npos) throw InputError(what + ": holds a NUL byte (not FASTA text)");
  std::vector<FastaText> records;
  auto finish_previous = [&]() {
    if (!records.empty() && records.back().letters.empty())
      throw InputError(at_line(what, records.back().header_line) + "sequence " + records.back().id +
                       " is empty (a truncated file?)");
  };
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line[0] == '>') {
      finish_previous();
      records.push_back(header_record(line, what, line_number));
      continue;
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (records.empty()) throw InputError(at_line(what, line_number) + "sequence data before the first '>' header");
    records.back().letters.append(line);
  }
  finish_previous();
  if (records.empty()) throw InputError(what + ": no FASTA records");
  return records;
}

std::string first_fasta_records(const std::string& fasta, std::size_t count) {
  std::size_t at = 0;  // the start of record 1, then 2, ..., then count + 1
  for (std::size_t record = 1; record <= count; ++record) {
    at = fasta.find("\n>", at);
    if (at == std::string::npos) return fasta;
    ++at;
  }
  return fasta.substr(0, at);
}

}  // namespace helix
