#include "core/fasta.h"

#include <algorithm>
#include <utility>

#include "core/errors.h"

namespace helix {

namespace {

std::string at_line(const std::string& what, int line) { return what + ", line " + std::to_string(line) + ": "; }

// Starts `record` at a header line: its id and description, no letters yet.
void read_header(std::string_view header_line_text, const std::string& what, int line_number, FastaText& record) {
  const std::string_view header = header_line_text.substr(1);
  const std::size_t blank = std::min(header.find_first_of(" \t"), header.size());
  const std::size_t description = std::min(header.find_first_not_of(" \t", blank), header.size());
  record.id.assign(header.substr(0, blank));
  record.description.assign(header.substr(description));
  record.letters.clear();
  record.header_line = line_number;
  if (record.id.empty()) throw InputError(at_line(what, line_number) + "a header without an id");
}

}  // namespace

void for_each_fasta_record(std::string_view text, const std::string& what,
                           const std::function<void(FastaText&)>& take) {
  if (text.find('\0') != std::string_view::npos) throw InputError(what + ": holds a NUL byte (not FASTA text)");
  FastaText record;  // the one being read; its letters' buffer is reused
  bool open = false;
  std::size_t records = 0;
  auto finish = [&]() {
    if (!open) return;
    if (record.letters.empty())
      throw InputError(at_line(what, record.header_line) + "sequence " + record.id + " is empty (a truncated file?)");
    take(record);
    ++records;
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
      finish();
      read_header(line, what, line_number, record);
      open = true;
      continue;
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (!open) throw InputError(at_line(what, line_number) + "sequence data before the first '>' header");
    record.letters.append(line);
  }
  finish();
  if (records == 0) throw InputError(what + ": no FASTA records");
}

std::vector<FastaText> split_fasta(std::string_view text, const std::string& what) {
  std::vector<FastaText> records;
  for_each_fasta_record(text, what, [&](FastaText& record) { records.push_back(std::move(record)); });
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
