// sw_traceback.h: the traceback walk of an alignment over its cells'
// TracebackBits (sw.h), written once for the CPU reference (trace_back() in
// sw_reference.cpp) and the CUDA engine (its walk kernel in sw_gpu.cu): every
// function is __host__ __device__, so that both give the same alignment.
//
// Contents:
//   TracebackRun, run_op(), run_length()   one CIGAR run packed in 32 bits
//   TracebackWalk, walk_traceback()        the walk from an end back to the alignment's start
//   append_cigar_of_reversed_runs()        the runs, last first, as a CIGAR (host only)
#pragma once
#include <cstdint>
#include <string>

#include "sw.h"

#ifdef __CUDACC__
#define HELIX_SW_HD __host__ __device__ __forceinline__
#else
#define HELIX_SW_HD inline
#endif

namespace helix::swsearch {

// One CIGAR run, length << 2 | op: the walk emits runs, not single columns,
// so a GPU walk writes a few words per alignment instead of one per column.
using TracebackRun = std::uint32_t;
enum TracebackOp : std::uint32_t { kRunM = 0, kRunI = 1, kRunD = 2 };
HELIX_SW_HD TracebackRun make_run(TracebackOp op, std::uint32_t length) { return length << 2 | op; }
HELIX_SW_HD TracebackOp run_op(TracebackRun run) { return static_cast<TracebackOp>(run & 3u); }
HELIX_SW_HD std::uint32_t run_length(TracebackRun run) { return run >> 2; }

// Where the walk stopped and what it counted; left_matrix when the bits led
// it off the matrix (they cannot be the reference's).
struct TracebackWalk {
  int query_begin = -1, target_begin = -1;
  int identities = 0;  // M columns with equal residues
  int length = 0;      // columns: M + I + D
  bool left_matrix = false;
};

// sw_align()'s walk from DP cell (i, j) = (query end + 1, target end + 1)
// back to where H was 0, preferring what the bits say (bits_at(i, j) for
// 1 <= i, 1 <= j; row and column 0 hold H = 0). The ops are emitted as runs,
// the alignment's last run first: emit_run(TracebackRun).
template <typename BitsAt, typename EmitRun>
HELIX_SW_HD TracebackWalk walk_traceback(const std::uint8_t* query, const std::uint8_t* target, int i, int j,
                                         BitsAt&& bits_at, EmitRun&& emit_run) {
  TracebackWalk walk;
  enum class State { kH, kF, kE } state = State::kH;  // kF: in an I run; kE: in a D run
  TracebackOp run = kRunM;
  std::uint32_t run_columns = 0;
  auto column = [&](TracebackOp op) {
    if (run_columns > 0 && op != run) emit_run(make_run(run, run_columns)), run_columns = 0;
    run = op, ++run_columns, ++walk.length;
  };
  while (true) {
    if (i < 0 || j < 0) {
      walk.left_matrix = true;
      return walk;
    }
    const std::uint8_t bits = i == 0 || j == 0 ? std::uint8_t{kHFromZero} : bits_at(i, j);
    if (state == State::kH) {
      const std::uint8_t source = bits & kHSourceMask;
      if (source == kHFromZero) break;  // H = 0: the alignment starts after this cell
      if (source == kHFromDiagonal) {
        column(kRunM);
        walk.identities += query[i - 1] == target[j - 1];
        --i, --j;
      } else {
        state = source == kHFromF ? State::kF : State::kE;
      }
    } else if (state == State::kF) {  // query residue i against a gap
      column(kRunI);
      --i;
      if (!(bits & kFExtends)) state = State::kH;
    } else {  // target residue j against a gap
      column(kRunD);
      --j;
      if (!(bits & kEExtends)) state = State::kH;
    }
  }
  if (run_columns > 0) emit_run(make_run(run, run_columns));
  walk.query_begin = i, walk.target_begin = j;
  return walk;
}

// The CIGAR ("12M3I40M") of runs given last first, as walk_traceback()
// emits them, appended to `cigar`.
inline void append_cigar_of_reversed_runs(const TracebackRun* runs, std::size_t count, std::string& cigar) {
  static constexpr char kOpLetters[] = {'M', 'I', 'D'};
  for (std::size_t k = count; k-- > 0;) {
    cigar += std::to_string(run_length(runs[k]));
    cigar += kOpLetters[run_op(runs[k])];
  }
}

}  // namespace helix::swsearch
