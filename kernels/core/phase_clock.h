// phase_clock.h: where a run's time goes, phase by phase, for the app's
// stderr (never part of a result): wall seconds, and CPU seconds of the
// process (every thread: what a volunteer's machine pays while the GPU works)
// or of the calling thread alone (a phase that runs beside others).
#pragma once
#include <time.h>

#include <chrono>

namespace helix {

struct PhaseTime {
  double wall = 0, cpu = 0;
  PhaseTime& operator+=(const PhaseTime& other) {
    wall += other.wall, cpu += other.cpu;
    return *this;
  }
};

// Measures from construction (or the last lap) to each lap().
class PhaseClock {
 public:
  enum class Cpu { kProcess, kThisThread };
  explicit PhaseClock(Cpu cpu = Cpu::kProcess)
      : clock_id_(cpu == Cpu::kProcess ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID),
        wall_(std::chrono::steady_clock::now()),
        cpu_(cpu_seconds()) {}
  PhaseTime lap() {
    const auto wall = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    const PhaseTime t{std::chrono::duration<double>(wall - wall_).count(), cpu - cpu_};
    wall_ = wall, cpu_ = cpu;
    return t;
  }

 private:
  double cpu_seconds() const {
    timespec now{};
    clock_gettime(clock_id_, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  }
  clockid_t clock_id_;
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

}  // namespace helix
