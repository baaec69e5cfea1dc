// sw_cpu_engine.cpp: the swsearch engine for volunteers without a GPU
// (sw_engine.h, make_cpu_engine): parasail's SIMD Smith-Waterman with a query
// profile (AVX2 or SSE4.1 as the CPU allows) over the targets, several
// std::threads, each pulling chunks of targets from a shared counter. Exact:
// every score equals sw_score(...).score (tests/swsearch/sw_cpu_engine_test.cpp).
//
// Contents:
//   parasail_matrix()         our ScoreMatrix as a parasail matrix (letters of kAlphabet)
//   kernels_for()             striped 8 -> 16 -> 32 bits (affine gaps), 32-bit scan (linear gaps)
//   score_one()               one pair through those kernels
//   resolve_parasail_dispatch()  parasail's CPU-flavour choice, made before threads exist
//   CpuEngine                 targets as letters; scores() runs the threads
//   make_cpu_engine()
//
// parasail is linked as a shared library (libparasail.so.8), shipped beside the
// volunteer app like the BOINC libraries.
#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <parasail.h>
#include <parasail/cpuid.h>

#include "core/errors.h"
#include "sw.h"
#include "sw_engine.h"

namespace helix::swsearch {
namespace {

// Targets a worker takes from the shared counter at a time: small enough that
// the last chunks balance the threads, large enough that the counter is cold.
constexpr std::size_t kTargetsPerChunk = 16;
// parasail takes lengths as int.
constexpr std::uint64_t kMaxLength = 0x7fffffff;

struct MatrixFree {
  void operator()(parasail_matrix_t* m) const { parasail_matrix_free(m); }
};
struct ProfileFree {
  void operator()(parasail_profile_t* p) const { parasail_profile_free(p); }
};
struct ResultFree {
  void operator()(parasail_result_t* r) const { parasail_result_free(r); }
};
using MatrixPtr = std::unique_ptr<parasail_matrix_t, MatrixFree>;
using ProfilePtr = std::unique_ptr<parasail_profile_t, ProfileFree>;
using ResultPtr = std::unique_ptr<parasail_result_t, ResultFree>;

// parasail maps characters to matrix rows through the alphabet string it was
// made with: made with kAlphabet, letter kAlphabet[c] is row c, so residue
// codes are passed as their letters (U and O are already coded as X). The
// 26th row parasail adds for unknown characters is never reached.
// parasail_matrix_set_value() keeps the matrix's max/min up to date; the
// 8- and 16-bit kernels take their overflow margin from max.
MatrixPtr parasail_matrix(const ScoreMatrix& matrix) {
  MatrixPtr made(parasail_matrix_create(kAlphabet, 0, 0));
  if (!made) throw std::runtime_error("parasail: cannot create a matrix");
  for (int a = 0; a < kAlphabetSize; ++a)
    for (int b = 0; b < kAlphabetSize; ++b) parasail_matrix_set_value(made.get(), a, b, matrix.score[a][b]);
  return made;
}

using Kernel = parasail_result_t* (*)(const parasail_profile_t*, const char*, int, int, int);

// The kernels a pair goes through, narrowest first; the next is tried only
// when one reports saturation.
//
// Affine gaps (open > extend): Farrar's striped kernels, 8 -> 16 -> 32 bits.
// Saturation as overflow detection: parasail's 8- and 16-bit kernels keep H
// offset by the type's minimum (so the floor at 0 is the saturating add's own
// floor) and flag the result once the running best comes within matrix max of
// the type's maximum; a flagged score is only a lower bound, so the pair is
// redone with wider lanes. 32 bits cannot overflow for protein lengths. The
// 8-bit kernels hold open and extend in signed bytes (a penalty over 127
// wraps and is added, not subtracted: measured wrong scores) and take their
// margin as 127 - (int8)(matrix max + 1), which wraps for a max of 127: then
// the pair starts at 16 bits.
//
// Linear gaps (open == extend): the striped kernels' lazy-F loop stops once
// no lane's F - extend beats H - open; when F itself has just raised H those
// two tie, the loop stops early and some H stays too small (parasail 2.6
// scores below Gotoh for 1/1, 2/2, ..., 30/30: measured). parasail's
// prefix-scan kernels compute F exactly, but their 8- and 16-bit forms sum a
// whole stripe's gap penalties in the lane type, which overflows without a
// saturation flag (measured scores too high), so linear gaps take the 32-bit scan.
std::vector<Kernel> kernels_for(const ScoreMatrix& matrix, const GapPenalties& gaps) {
  if (gaps.open == gaps.extend) return {parasail_sw_scan_profile_32};
  std::vector<Kernel> kernels;
  if (gaps.open <= 127 && gaps.extend <= 127 && matrix.max_score <= 126) kernels.push_back(parasail_sw_striped_profile_8);
  kernels.push_back(parasail_sw_striped_profile_16);
  kernels.push_back(parasail_sw_striped_profile_32);
  return kernels;
}

// The best local score of the profile's query against target[0..length).
int score_one(const parasail_profile_t* profile, const std::vector<Kernel>& kernels, const char* target, int length,
              const GapPenalties& gaps) {
  for (Kernel kernel : kernels) {
    ResultPtr result(kernel(profile, target, length, gaps.open, gaps.extend));
    if (!result) throw std::runtime_error("parasail: alignment failed (out of memory?)");
    if (!parasail_result_is_saturated(result.get())) return parasail_result_get_score(result.get());
  }
  throw std::runtime_error("parasail: a score overflowed 32 bits");
}

// parasail picks each function's SIMD flavour on its first call and stores the
// choice in a global pointer, unguarded. One call of every function we use,
// before any worker thread exists, leaves those pointers set for good.
const char* resolve_parasail_dispatch() {
  static const char* const isa = [] {
    ScoreMatrix identity;
    for (int a = 0; a < kAlphabetSize; ++a) identity.score[a][a] = 1;
    identity.max_score = 1;
    const MatrixPtr matrix = parasail_matrix(identity);
    const ProfilePtr profile(parasail_profile_create_sat("ACD", 3, matrix.get()));
    if (!profile) throw std::runtime_error("parasail: cannot create a profile");
    for (Kernel kernel : {parasail_sw_striped_profile_8, parasail_sw_striped_profile_16, parasail_sw_striped_profile_32,
                          parasail_sw_scan_profile_32})
      ResultPtr(kernel(profile.get(), "ACD", 3, 2, 1));
    return parasail_can_use_avx2() ? "AVX2" : parasail_can_use_sse41() ? "SSE4.1" : "SSE2";
  }();
  return isa;
}

class CpuEngine final : public SwEngine {
 public:
  explicit CpuEngine(int threads) : threads_(threads), isa_(resolve_parasail_dispatch()) {}

  std::string description() const override {
    return std::string("CPU, parasail striped (") + isa_ + "), " + std::to_string(threads_) +
           (threads_ == 1 ? " thread" : " threads");
  }

  void load_targets(const SequenceSet& targets) override {
    for (std::size_t t = 0; t < targets.size(); ++t)
      if (targets.length(t) > kMaxLength) throw InputError("swsearch: a target is longer than 2^31 - 1 residues");
    letters_.resize(targets.residues.size());
    for (std::size_t k = 0; k < targets.residues.size(); ++k) {
      if (targets.residues[k] >= kAlphabetSize) throw InputError("swsearch: a target residue code is out of range");
      letters_[k] = kAlphabet[targets.residues[k]];
    }
    offsets_ = targets.offsets;
  }

  // Gaps must pass check_gaps() (throws InputError otherwise).
  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    check_gaps(gaps);
    const std::size_t count = offsets_.size() - 1;
    std::vector<std::int32_t> out(count, 0);
    if (query.empty() || count == 0) return out;  // parasail refuses empty sequences; every score is 0
    if (query.size() > kMaxLength) throw InputError("swsearch: the query is longer than 2^31 - 1 residues");
    const std::string query_letters = decode_protein(query);
    const MatrixPtr parasail = parasail_matrix(matrix);  // read-only from here on: shared by the workers
    const std::vector<Kernel> kernels = kernels_for(matrix, gaps);

    std::atomic<std::size_t> next_chunk{0};
    std::mutex error_mutex;
    std::exception_ptr error;
    auto work = [&] {
      try {
        // A profile per worker: the query's scores laid out in SIMD stripes, for 8, 16 and 32 bits.
        const ProfilePtr profile(
            parasail_profile_create_sat(query_letters.data(), static_cast<int>(query_letters.size()), parasail.get()));
        if (!profile) throw std::runtime_error("parasail: cannot create a query profile");
        while (true) {
          const std::size_t first = next_chunk.fetch_add(kTargetsPerChunk, std::memory_order_relaxed);
          if (first >= count) break;
          for (std::size_t t = first; t < std::min(count, first + kTargetsPerChunk); ++t) {
            const std::uint64_t length = offsets_[t + 1] - offsets_[t];
            if (length == 0) continue;  // score 0, as out holds
            out[t] = score_one(profile.get(), kernels, letters_.data() + offsets_[t], static_cast<int>(length),
                               gaps);
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next_chunk.store(count);  // the others stop at their next chunk
      }
    };
    const int workers = static_cast<int>(std::min<std::size_t>(threads_, (count + kTargetsPerChunk - 1) / kTargetsPerChunk));
    if (workers <= 1) {
      work();
    } else {
      std::vector<std::thread> pool;
      for (int w = 0; w < workers; ++w) pool.emplace_back(work);
      for (auto& thread : pool) thread.join();
    }
    if (error) std::rethrow_exception(error);
    return out;
  }

 private:
  int threads_;
  const char* isa_;
  std::string letters_;  // every target's residues as letters of kAlphabet, back to back
  std::vector<std::uint64_t> offsets_{0};
};

}  // namespace

std::unique_ptr<SwEngine> make_cpu_engine(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::make_unique<CpuEngine>(threads);
}

}  // namespace helix::swsearch
