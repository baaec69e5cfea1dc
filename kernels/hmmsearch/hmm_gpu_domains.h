// hmm_gpu_domains.h: launch of the Backward warp kernel of domain definition
// (hmm_gpu_domains.cu): the parser pass over whole targets, or every row of
// envelopes. For the CUDA engine (hmm_gpu.cu); all pointers are device memory.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "hmm_dp_rows.h"
#include "hmm_gpu_sampling.h"

namespace helix::hmmsearch {

// A profile's Forward odds in cell order, for the cell phases of the
// Forward and Backward row kernels: cell c = z * Q + q of HMMER's striping
// is node c + 1 (odds 0 past M), and each transition's or residue's odds of
// all cells lie together. A phase's lanes take consecutive cells, so each of
// their loads is a line or two; in the striped [q][z] layout of 32-byte
// cells every lane's load was a line of its own.
enum CellTransition : int { kCellBM, kCellMM, kCellIM, kCellDM, kCellMD, kCellMI, kCellII, kCellDD, kCellTransitions };
struct CellOdds {
  const float* match = nullptr;        // [code * cells + c]
  const float* transitions = nullptr;  // [CellTransition * cells + c], CellTransitions' order
  int cells = 0;                       // 4Q
#ifdef __CUDACC__
  __device__ float transition(int kind, int c) const { return __ldg(transitions + kind * cells + c); }
  __device__ const float* emissions(int code) const { return match + static_cast<std::size_t>(code) * cells; }
#endif
};

struct BackwardWarpBatch {
  const std::uint8_t* codes = nullptr;     // the chunk's residues
  const std::uint64_t* offsets = nullptr;  // target t is codes[offsets[t] .. offsets[t + 1])
  const std::uint32_t* targets = nullptr;  // the batch's targets
  std::uint32_t count = 0;
  const SpecialOdds* specials = nullptr;   // per entry: multihit, its length model
  const std::uint64_t* special_offsets = nullptr;  // per entry: its (L + 1) * kSpecialCells floats
  const float* forward_specials = nullptr;  // Forward's rows (their scale factors are reused)
  const std::uint64_t* forward_offsets = nullptr;  // per entry: where its Forward rows are
  float* backward_specials = nullptr;
  std::uint8_t* own_scales = nullptr;      // per entry: Backward switched to its own scale factors
  float* rows = nullptr;                   // per warp backward_warp_bytes(Q), when not in shared memory
  bool shared_rows = true;
  int M = 0, Q = 0;
  CellOdds odds;
  unsigned* next = nullptr;                // work counter, zeroed
  // The longest entries, [0, long_count) (a batch runs longest first), get a
  // block each from the first long_blocks blocks (`next_long`: their
  // counter, zeroed); the rest a warp each.
  unsigned long_count = 0, long_blocks = 0;
  unsigned* next_long = nullptr;
  // Envelope mode (domain definition's rescoring): entry b is the residues of
  // regions[b] (codes_at, L) instead of a whole target, and every row's
  // cells are kept, in hmm_dp_rows.h's layout, at region_rows + regions[b].rows_at.
  const RegionJob* regions = nullptr;
  float* region_rows = nullptr;
};

// Scratch one warp needs for a model of Q segments.
std::size_t backward_warp_bytes(int Q);
// Entries at least this long get a block of warps in the Forward and
// Backward kernels: their rows are many, one after another.
constexpr int kLongEntryResidues = 2000;
// The Backward kernel over `batch` on `blocks` blocks of `warps_per_block`
// warps, queued on `stream`.
void launch_backward_warps(const BackwardWarpBatch& batch, int blocks, int warps_per_block, cudaStream_t stream);

// The inputs of domain definition's decoding on the device, per entry b < count.
struct DomainDecodingBatch {
  const std::uint64_t* offsets = nullptr;   // the chunk's targets: L of targets[b] by offsets
  const std::uint32_t* targets = nullptr;
  std::uint32_t count = 0;
  const SpecialOdds* specials = nullptr;    // multihit, its length model
  const float* forward_specials = nullptr;  // entry b's Forward rows at forward_at[b]
  const std::uint64_t* forward_at = nullptr;
  const float* backward_specials = nullptr;  // its Backward rows at special_offsets[b]
  const std::uint64_t* special_offsets = nullptr;
  const std::uint8_t* own_scales = nullptr;  // Backward's own scale factors or Forward's
  // Entry b's mocc, btot and etot (L + 1 floats each, back to back) at
  // posteriors + special_offsets[b] / 2: a quarter of the room of its two passes' rows.
  float* posteriors = nullptr;
};
// decode_domain_rows (hmm_dp_rows.h) for every entry, a thread each, queued
// on `stream`: only the posteriors go back to the host, not the rows.
void launch_domain_decoding(const DomainDecodingBatch& batch, cudaStream_t stream);

}  // namespace helix::hmmsearch
