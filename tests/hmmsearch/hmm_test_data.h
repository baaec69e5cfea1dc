// hmm_test_data.h: where the hmmsearch tests find their real data:
// hmmer-examples' profiles ($HELIX_HMMER_EXAMPLES: its tutorial folder, with
// testsuite/ beside it) and mmseqs2-examples' 20,000 UniProt proteins
// ($HELIX_MMSEQS_EXAMPLES: the folder of DB.fasta.gz). Variables let a build
// moved to another machine (the GPU device) point at copies.
#pragma once
#include <cstdlib>
#include <string>

namespace helix::hmmsearch::test_data {

inline std::string data_dir(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return std::string(value ? value : fallback) + "/";
}
inline const std::string kTutorial = data_dir("HELIX_HMMER_EXAMPLES", "/usr/share/doc/hmmer/examples/tutorial");
inline const std::string kExamples = kTutorial + "../";
inline const std::string kTestsuite = kExamples + "testsuite/";
inline const std::string kProteins =
    data_dir("HELIX_MMSEQS_EXAMPLES", "/usr/share/doc/mmseqs2/example-data") + "DB.fasta.gz";

}  // namespace helix::hmmsearch::test_data
