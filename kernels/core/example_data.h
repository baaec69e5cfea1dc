// example_data.h: where the kinds' example work units (`helix-wu <kind>
// example`) find the real data Debian packages put on the machine. Server side.
//
//   debian_data_file()   a data file of a Debian package; an environment variable may move its directory
//   MissingData, kMissingDataExit   what an example throws without its data; helix-wu's exit then
//   require_data_files() MissingData naming the first missing file and its package
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"

namespace helix {

// `directory`/`name`, where $`variable` (when set) replaces `directory`: a
// machine without the package (the GPU machine of the tests) may carry the
// files elsewhere.
inline std::string debian_data_file(const char* variable, const std::string& directory, const std::string& name) {
  const char* moved = std::getenv(variable);
  return std::string(moved ? moved : directory) + "/" + name;
}

// The machine lacks an example's data: `helix-wu <kind> example` exits with
// kMissingDataExit (77, CTest's and automake's "skipped"), so a test that
// needs the example skips instead of failing.
struct MissingData : InputError {
  using InputError::InputError;
};
constexpr int kMissingDataExit = 77;

// Throws MissingData for the first (path, package) whose path is not there.
inline void require_data_files(const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [path, package] : files)
    if (!std::filesystem::exists(path)) throw MissingData(path + " is not there (Debian package " + package + ")");
}

// The packages' data the kinds' examples use.
inline std::string skimage_data_file(const std::string& name) {
  return debian_data_file("HELIX_SKIMAGE_DATA", "/usr/lib/python3/dist-packages/skimage/data", name);
}
inline std::string hmmer_tutorial_file(const std::string& name) {
  return debian_data_file("HELIX_HMMER_EXAMPLES", "/usr/share/doc/hmmer/examples/tutorial", name);
}
inline std::string ncbi_data_file(const std::string& name) {
  return debian_data_file("HELIX_NCBI_DATA", "/usr/share/ncbi/data", name);
}
// mmseqs2-examples' 20,000 UniProt proteins.
inline std::string uniprot_example_proteins() {
  return debian_data_file("HELIX_MMSEQS_EXAMPLES", "/usr/share/doc/mmseqs2/example-data", "DB.fasta.gz");
}

}  // namespace helix
