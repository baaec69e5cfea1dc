// hmm_oracle_util.h: small helpers of the tests that run HMMER 3.3.2's own
// programs as oracles (hmm_oracle_test, hmm_domain_oracle_test,
// server/hmm_merged_oracle_test): a temporary directory, a shell command's
// output, FASTA record slicing, hmmsearch's tables and text without their
// run-dependent lines.
#pragma once
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/fasta.h"

namespace helix::hmmsearch::oracle_util {

namespace fs = std::filesystem;

// A fresh directory under $TMPDIR (mkdtemp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "helix_hmm_oracle.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string shell_quoted(const std::string& word) {  // for /bin/sh
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

struct CommandResult {
  int exit_code = -1;  // -1: did not exit normally
  std::string output;  // stdout and stderr together
};
inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline std::string printed(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

inline std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") + 1 - first);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// The text of the first `count` records of a FASTA text: core's.
using helix::first_fasta_records;

// Records of a FASTA text, each its whole text (header line and sequence lines).
inline std::vector<std::string> record_texts(const std::string& fasta) {
  std::vector<std::string> records;
  for (std::size_t at = fasta.find('>'); at != std::string::npos;) {
    const std::size_t next = fasta.find("\n>", at);
    records.push_back(fasta.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    at = next == std::string::npos ? next : next + 1;
  }
  return records;
}

// A --tblout or --domtblout text's header lines and rows: everything before
// the '#' tail (program, paths, date) that follows the last row.
inline std::vector<std::string> table_lines(const std::string& text) {
  std::vector<std::string> lines;
  bool rows_started = false;
  for (const std::string& line : lines_of(text)) {
    if (line.empty()) continue;
    if (line[0] == '#' && (rows_started || lines.size() >= 3)) break;
    rows_started = rows_started || line[0] != '#';
    lines.push_back(line);
  }
  return lines;
}

// hmmsearch's main output from each "Query:" to its "//", without the two
// timing lines of the statistics (run-dependent; our reports leave them out).
inline std::string query_texts(const std::string& output) {
  std::string text;
  bool inside = false;
  for (const std::string& line : lines_of(output)) {
    inside = inside || line.rfind("Query:", 0) == 0;
    if (!inside || line.rfind("# CPU time:", 0) == 0 || line.rfind("# Mc/sec:", 0) == 0) continue;
    text += line + "\n";
    if (line == "//") inside = false;
  }
  return text;
}

}  // namespace helix::hmmsearch::oracle_util
