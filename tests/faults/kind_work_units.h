// kind_work_units.h: one real work unit per kind of work, made by helix-wu
// from real data, sized so that the app takes about 2-3 s on one CPU core
// with several checkpoints (the BOINC API's shortest period is 1 s), for the
// kill and fault tests.
//
//   mrf        a 240x240x112 CT phantom (helix-wu mrf phantom), 60 sweeps
//   glcm       skimage's text.png and microaneurysms.png ($HELIX_SKIMAGE_DATA)
//   swsearch   9 globins (hmmer-examples, $HELIX_HMMER_EXAMPLES) against the
//              20,000 UniProt proteins of mmseqs2-examples ($HELIX_MMSEQS_EXAMPLES),
//              BLOSUM62 from ncbi-data ($HELIX_NCBI_DATA)
//   hmmsearch  hmmer-examples' globins4 and fn3 profiles against 12,500 of
//              the same proteins
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "app_harness.h"

namespace helix::faults {

struct KindWorkUnit {
  std::string kind;
  // Why the data is not there ("" when it is): the test then skips.
  std::string (*missing_data)();
  // Makes the work unit under `dir` through helix-wu.
  WorkUnit (*make)(const std::string& dir);
};

const std::vector<KindWorkUnit>& kind_work_units();
// Test names: the kind's.
void PrintTo(const KindWorkUnit& kind, std::ostream* out);

}  // namespace helix::faults
