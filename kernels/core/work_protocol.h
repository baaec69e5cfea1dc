// work_protocol.h: facts of the BOINC work and result protocol that every
// kind shares, written once (issue 18): how large a result's summary may be,
// and the policy that turns a WU's estimates into BOINC's bounds. A kind's
// own per-unit costs (bytes per voxel, per residue, ...) stay in its
// *_workunit.cpp beside what they describe.
#pragma once
#include <cstdint>

namespace helix {

// The validator (result_kind, and each kind's check) refuses a summary above
// 1 MiB before reading it; the work generator declares the same bound.
constexpr std::uint64_t kMaxSummaryBytes = 1u << 20;

// BOINC aborts a task past rsc_fpops_bound; 20x the estimate leaves room for
// hosts whose speed is mis-estimated without letting a runaway task spin
// forever.
constexpr double kFpopsBoundFactor = 20;
// Host memory's fixed part: the process, the CUDA runtime and context, zstd's
// contexts; each kind adds its per-unit memory to it.
constexpr double kMemoryBaseBytes = 256.0 * (1 << 20);
// Disk: a WU's inputs and outputs (and checkpoint, where a kind has one) x
// this, for the temporary file of an atomic write and slack.
constexpr double kDiskBoundFactor = 3;

}  // namespace helix
