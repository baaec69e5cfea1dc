// hmm_float_mode.h: HMMER's floating-point mode for the host's share of the
// hmmsearch kind. hmmsearch starts with the SSE unit's flush-to-zero and
// denormals-are-zero bits set (impl_sse's impl_Init): every float operation
// that would produce a subnormal gives 0, and a subnormal operand reads as 0.
// The DP recursions meet such values far from the alignment path (and in the
// special states of long targets, after many rescalings), so the CPU
// reference computes under the same mode; the CUDA code is compiled with
// --ftz=true, the GPU's equivalent for single precision. Besides matching
// HMMER, it avoids the slow microcode path some CPUs take on subnormals.
//
// HmmerFloatMode sets the mode for the current thread for its lifetime and
// restores the previous one (the MXCSR register is per thread).
#pragma once
#include "core/float_environment.h"

namespace helix::hmmsearch {

class HmmerFloatMode {
 public:
#ifdef HELIX_HAS_MXCSR
  HmmerFloatMode() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kMxcsrFlushToZero | kMxcsrDenormalsAreZero); }
  ~HmmerFloatMode() { _mm_setcsr(saved_); }
#else
  HmmerFloatMode() = default;  // other hosts: their default mode
#endif
  HmmerFloatMode(const HmmerFloatMode&) = delete;
  HmmerFloatMode& operator=(const HmmerFloatMode&) = delete;

 private:
#ifdef HELIX_HAS_MXCSR
  unsigned saved_;
#endif
};

}  // namespace helix::hmmsearch
