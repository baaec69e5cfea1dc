// fuzz_support.h: what every helix libFuzzer harness shares (tests/fuzz/).
//   bad_input_ok()    runs a parser; helix::InputError (the documented "bad
//                     input" answer: one line, non-zero exit) is a pass. Any
//                     other exception escapes and libFuzzer reports it as a
//                     crash, like a sanitizer report, a timeout or an OOM.
//   text_of()         the fuzz input as a std::string
//   split_parts()     the input cut at lines "#==", for parsers that take
//                     more than one text (scores + domains, summary + table)
//   ScratchFile       the input written to a per-process file, for readers
//                     that take a path (PNG, volumes)
//   ResultFiles       the input's parts (split_parts) written as one result's
//                     files under BOINC's upload names, for the validators' checks
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/errors.h"
#include "core/file_io.h"

namespace helix::fuzz {

template <typename Parse>
void bad_input_ok(Parse&& parse) {
  try {
    parse();
  } catch (const InputError&) {
  }
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

inline std::vector<std::string> split_parts(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t cut = text.find("\n#==\n", start);
    if (cut == std::string::npos) break;
    parts.push_back(text.substr(start, cut + 1 - start));
    start = cut + 5;
  }
  parts.push_back(text.substr(start));
  return parts;
}

class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix)
      : path_("/tmp/helix-fuzz-" + std::to_string(getpid()) + suffix) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    write_to(path_, data, size);
    return path_;
  }
  static void write_to(const std::string& path, const std::uint8_t* data, std::size_t size) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) throw std::runtime_error("cannot write " + path);
    if (size) std::fwrite(data, 1, size, file);
    std::fclose(file);
  }

 private:
  std::string path_;
};

// The input's first part becomes the result's summary (its last file: the
// summary bounds the others, and a binary file is best last, where no "\n"
// of the cut is appended to it), parts 1.. its other files in order. Files are
// named as BOINC names a replica's uploads ("fz_c0_0_r1_<k>": WU fz_c0, which
// every kind's WU-name parser accepts); missing parts are empty files, extra
// parts are dropped.
class ResultFiles {
 public:
  explicit ResultFiles(std::size_t count) : dir_("/tmp/helix-fuzz-" + std::to_string(getpid()) + "-result") {
    std::filesystem::create_directories(dir_);
    for (std::size_t k = 0; k < count; ++k) paths_.push_back(dir_ + "/fz_c0_0_r1_" + std::to_string(k));
  }
  ~ResultFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  const std::vector<std::string>& write(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string> parts = split_parts(text_of(data, size));
    for (std::size_t k = 0; k < paths_.size(); ++k) {
      const std::size_t file = k == 0 ? paths_.size() - 1 : k - 1;
      const std::string part = k < parts.size() ? parts[k] : std::string();
      ScratchFile::write_to(paths_[file], reinterpret_cast<const std::uint8_t*>(part.data()), part.size());
    }
    return paths_;
  }

 private:
  std::string dir_;
  std::vector<std::string> paths_;
};

}  // namespace helix::fuzz
