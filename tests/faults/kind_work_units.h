// kind_work_units.h: the kinds of work the kill and fault tests cover, and one
// real work unit per kind: the kind's example, made by `helix-wu <kind>
// example` from the real data of Debian packages, sized by the kind so that
// the app takes about 3-5 s on one CPU core with several checkpoints (the BOINC
// API's shortest period is 1 s). Nothing here names a kind.
//
// Contents:
//   registered_kinds()                      the kinds this build registers (HELIX_KINDS)
//   ExampleWorkUnit, example_work_unit()    the kind's example WU, or why this machine has none
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app_harness.h"

namespace helix::faults {

// The registered kinds, in registration order: CMake's HELIX_KINDS
// (kernels/CMakeLists.txt), compiled in as HELIX_REGISTERED_KINDS so that a
// build moved to a machine without helix-wu (the GPU machine) knows them too.
const std::vector<std::string>& registered_kinds();

struct ExampleWorkUnit {
  std::optional<WorkUnit> work_unit;
  // When there is no work unit: why (helix-wu's line naming the missing data).
  std::string why_not;
};

// The kind's example WU (the first, in name order, whose *.create_work.sh
// helix-wu wrote),
// made in <scratch>/wu; or, when HELIX_FAULT_WU_DIR is set, the one in
// $HELIX_FAULT_WU_DIR/<kind>/wu, made there first if it is not complete yet. A
// build moved to a machine without helix-wu's libraries (the GPU machine:
// OpenCV, NIfTI, ...) carries that directory instead of the data.
// Returns no WU, with helix-wu's reason, when helix-wu exits 77 (the machine
// lacks the example's data: the test skips); throws WorkGeneratorFailed when
// helix-wu fails otherwise.
ExampleWorkUnit example_work_unit(const std::string& kind, const std::string& scratch);

}  // namespace helix::faults
