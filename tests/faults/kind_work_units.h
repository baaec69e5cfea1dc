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
  std::string work_unit_name;  // as helix-wu names it, in <dir>/wu
  // Why the data is not there ("" when it is).
  std::string (*missing_data)();
  // Makes the work unit through helix-wu: sources under `dir`, the WU in <dir>/wu.
  WorkUnit (*make)(const std::string& dir);
};

const std::vector<KindWorkUnit>& kind_work_units();

// The kind's work unit, made under `scratch`; or, when HELIX_FAULT_WU_DIR is
// set, the one in $HELIX_FAULT_WU_DIR/<kind>/wu, made there first if it is
// not there yet. A build moved to a machine without helix-wu's libraries (the
// GPU machine: OpenCV, NIfTI, ...) carries that directory instead of the data.
WorkUnit work_unit_for(const KindWorkUnit& kind, const std::string& scratch);
// "" when work_unit_for() can give the kind's WU; else why not (the test skips).
std::string why_no_work_unit(const KindWorkUnit& kind);
// Test names: the kind's.
void PrintTo(const KindWorkUnit& kind, std::ostream* out);

}  // namespace helix::faults
