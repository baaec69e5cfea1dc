// float_environment.h: the x86 SSE unit's two non-IEEE modes, flush-to-zero
// (FZ: a result that would be subnormal is 0) and denormals-are-zero (DAZ: a
// subnormal operand reads as 0), set per thread in the MXCSR register; new
// threads start with their creator's.
//
// Why helix touches them: results are recomputed on the server (validator,
// CPU spot checks) and must come out the same as on the volunteer's host.
// Debian's libboinc_api.so.7 is built so that loading it sets FZ and DAZ for
// the whole process (a load-time constructor of -ffast-math's crtfastmath),
// while the server tools, which do not link it, compute in IEEE mode. The app
// therefore clears both before any science code runs (app/ieee_float_mode.cpp).
// The hmmsearch kind then sets both around its own CPU work, as HMMER does
// (hmm_float_mode.h), on the app and the server alike.
#pragma once
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HELIX_HAS_MXCSR 1
#endif

namespace helix {

#ifdef HELIX_HAS_MXCSR
constexpr unsigned kMxcsrFlushToZero = 0x8000, kMxcsrDenormalsAreZero = 0x0040;

// True when this thread computes with IEEE subnormals (neither FZ nor DAZ).
inline bool ieee_subnormals_on() { return (_mm_getcsr() & (kMxcsrFlushToZero | kMxcsrDenormalsAreZero)) == 0; }
// Clears FZ and DAZ for this thread (and the threads it creates later).
inline void use_ieee_subnormals() { _mm_setcsr(_mm_getcsr() & ~(kMxcsrFlushToZero | kMxcsrDenormalsAreZero)); }
#else
inline bool ieee_subnormals_on() { return true; }  // other hosts: IEEE by default
inline void use_ieee_subnormals() {}
#endif

}  // namespace helix
