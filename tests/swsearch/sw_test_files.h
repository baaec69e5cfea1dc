// sw_test_files.h: reading the swsearch tests' real data, which Debian ships
// gzipped (mmseqs2-examples) or plain (hmmer-examples).
#pragma once
#include <zlib.h>

#include <stdexcept>
#include <string>

namespace helix::sw {

// A whole file; zlib passes plain files through and gunzips .gz ones.
inline std::string read_maybe_gzipped(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path);
  std::string text;
  char buffer[1 << 16];
  int got;
  while ((got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  gzclose(file);
  if (got < 0) throw std::runtime_error("cannot read " + path);
  return text;
}

}  // namespace helix::sw
