// phase_clock.h: where a run's time goes, phase by phase, for the app's
// stderr (never part of a result): wall seconds, and the process's CPU
// seconds (std::clock: every thread of the process, what a volunteer's
// machine pays while the GPU works).
#pragma once
#include <chrono>
#include <ctime>

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
  PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(std::clock()) {}
  PhaseTime lap() {
    const auto wall = std::chrono::steady_clock::now();
    const std::clock_t cpu = std::clock();
    const PhaseTime t{std::chrono::duration<double>(wall - wall_).count(),
                      static_cast<double>(cpu - cpu_) / CLOCKS_PER_SEC};
    wall_ = wall, cpu_ = cpu;
    return t;
  }

 private:
  std::chrono::steady_clock::time_point wall_;
  std::clock_t cpu_;
};

}  // namespace helix
