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
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
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
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    if (!file) throw std::runtime_error("cannot write " + path_);
    if (size) std::fwrite(data, 1, size, file);
    std::fclose(file);
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace helix::fuzz
