// kill_restart_test.cpp: kill -9 at random points, for every registered kind
// of work (one test per kind, named after it).
//
// The app (standalone BOINC, `helix --cpu`, in a slot of soft links to the
// kind's example WU, `helix-wu <kind> example`) is SIGKILLed at random moments
// and restarted until it finishes, several trials per kind. After every
// start: each output file is either absent or byte-identical to an
// uninterrupted run's. At the end: all outputs identical, boinc_finish
// called, no temp file of an output left.
//
// Kill moments, drawn from a seeded generator (the seed is printed with any
// failure; HELIX_FAULT_SEED=<n> replays one):
//   early             0-0.9 s after the start: before the BOINC API, which
//                     checkpoints at most once a second, lets the app save
//   mid-run           anywhere within an uninterrupted run's time
//   late              80-105 % of that time: around the output writes
//   after checkpoint  0-100 ms after a new checkpoint file appears
// Every second start, the first included, kills after a checkpoint, so each
// trial makes progress whatever the machine's speed; after kKilledStarts
// starts one runs to the end.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "app_harness.h"
#include "kind_work_units.h"

namespace helix::faults {
namespace {

constexpr int kTrialsPerKind = 6;
constexpr int kKilledStarts = 10;

enum class KillMoment { early, mid_run, late, after_checkpoint };

const char* moment_name(KillMoment moment) {
  switch (moment) {
    case KillMoment::early: return "early";
    case KillMoment::mid_run: return "mid-run";
    case KillMoment::late: return "late";
    case KillMoment::after_checkpoint: return "after a checkpoint";
  }
  return "?";
}

// The kind's seed: HELIX_FAULT_SEED when set, else a fixed one per kind.
std::uint64_t kill_seed(const std::string& kind) {
  if (const char* chosen = std::getenv("HELIX_FAULT_SEED")) return std::strtoull(chosen, nullptr, 10);
  std::uint64_t seed = 20261123;
  for (char c : kind) seed = seed * 31 + static_cast<unsigned char>(c);
  return seed;
}

struct Reference {
  Outputs outputs;
  std::chrono::milliseconds run_time{0};
};

struct Tally {
  int starts = 0, kills = 0, resumed_starts = 0;
  std::map<KillMoment, int> kills_at;
};

// All outputs exist (the app may still be in boinc_finish()).
bool all_outputs_exist(const Slot& slot, const WorkUnit& work_unit) {
  for (const std::string& name : work_unit.outputs)
    if (!slot.exists(name)) return false;
  return true;
}

// One run without kills: its outputs, and its working time, start to the last
// output written (boinc_finish() then sleeps 2 s in this BOINC API version,
// even standalone; that time is no work).
Reference uninterrupted_run(const std::string& slot_path, const WorkUnit& work_unit) {
  const Slot slot(slot_path, work_unit);
  AppProcess app(slot, {"--cpu"});
  while (!all_outputs_exist(slot, work_unit) && !app.exited())
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  Reference reference;
  reference.run_time =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - app.started_at());
  const AppExit exit = app.wait();
  EXPECT_EQ(exit.status, 0) << exit.stderr_text;
  reference.outputs = read_outputs(slot, work_unit);
  EXPECT_EQ(reference.outputs.size(), work_unit.outputs.size()) << exit.stderr_text;
  return reference;
}

// Sleeps `duration`, or less when the app exits first.
void sleep_unless_exited(const AppProcess& app, std::chrono::milliseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < until && !app.exited())
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

class KillPlanner {
 public:
  KillPlanner(std::uint64_t seed, std::chrono::milliseconds run_time) : random_(seed), run_time_(run_time) {}

  KillMoment moment_for_start(int start) {
    if (start % 2 == 0) return KillMoment::after_checkpoint;
    return static_cast<KillMoment>(std::uniform_int_distribution<int>(0, 2)(random_));
  }
  std::chrono::milliseconds delay(KillMoment moment) {
    const int run_ms = static_cast<int>(run_time_.count());
    switch (moment) {
      case KillMoment::early: return milliseconds(0, 900);
      case KillMoment::mid_run: return milliseconds(0, run_ms);
      case KillMoment::late: return milliseconds(run_ms * 80 / 100, run_ms * 105 / 100);
      case KillMoment::after_checkpoint: return milliseconds(0, 100);
    }
    return {};
  }

 private:
  std::chrono::milliseconds milliseconds(int low, int high) {
    return std::chrono::milliseconds(std::uniform_int_distribution<int>(low, std::max(low, high))(random_));
  }
  std::mt19937_64 random_;
  std::chrono::milliseconds run_time_;
};

// Kills one start at `moment` (unless it ends first); returns how it ended.
AppExit start_and_kill(const Slot& slot, KillMoment moment, KillPlanner& planner) {
  const auto previous = checkpoint_stamp(slot);
  AppProcess app(slot, {"--cpu"});
  if (moment != KillMoment::after_checkpoint || wait_for_new_checkpoint(slot, app, previous)) {
    sleep_unless_exited(app, planner.delay(moment));
    app.kill_now();  // after an exit this does nothing; the status tells
  }
  return app.wait();
}

// One trial: a fresh slot, killed starts until the app finishes.
void run_trial(const WorkUnit& work_unit, const Reference& reference, const std::string& slot_path,
               KillPlanner& planner, Tally& tally) {
  const Slot slot(slot_path, work_unit);
  for (int start = 0;; ++start) {
    SCOPED_TRACE("start " + std::to_string(start));
    const bool last = start == kKilledStarts;
    const KillMoment moment = planner.moment_for_start(start);
    tally.resumed_starts += checkpoint_stamp(slot).has_value();
    ++tally.starts;
    const AppExit exit = last ? run_app(slot, {"--cpu"}) : start_and_kill(slot, moment, planner);
    if (exit.killed()) {
      ++tally.kills, ++tally.kills_at[moment];
      // Whatever the kill hit, an output that exists is whole and right.
      ASSERT_EQ(outputs_diff(slot, work_unit, reference.outputs, false), "")
          << "killed " << moment_name(moment) << "\n" << exit.stderr_text;
      continue;
    }
    ASSERT_EQ(exit.status, 0) << exit.stderr_text;
    EXPECT_EQ(outputs_diff(slot, work_unit, reference.outputs, true), "") << exit.stderr_text;
    EXPECT_TRUE(slot.finish_called());
    for (const std::string& name : work_unit.outputs) EXPECT_FALSE(slot.exists(name + ".tmp")) << name;
    return;
  }
}

class KilledAtRandomPoints : public ::testing::TestWithParam<std::string> {};

TEST_P(KilledAtRandomPoints, RestartsToIdenticalBytesAndNeverLeavesAPartialResult) {
  const std::string& kind = GetParam();
  const ScratchDir dir("kill-" + kind);
  const ExampleWorkUnit example = example_work_unit(kind, dir.path() + "/example");
  if (!example.work_unit) GTEST_SKIP() << example.why_not;
  const WorkUnit& work_unit = *example.work_unit;

  const Reference reference = uninterrupted_run(dir.path() + "/reference", work_unit);
  if (HasFailure()) return;

  const std::uint64_t seed = kill_seed(kind);
  SCOPED_TRACE("seed " + std::to_string(seed) + " (HELIX_FAULT_SEED=" + std::to_string(seed) + " replays it)");
  KillPlanner planner(seed, reference.run_time);
  Tally tally;
  for (int trial = 0; trial < kTrialsPerKind; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    run_trial(work_unit, reference, dir.path() + "/trial" + std::to_string(trial), planner, tally);
    if (HasFatalFailure()) return;
  }
  std::string by_moment;
  for (const auto& [moment, kills] : tally.kills_at)
    by_moment += std::string(by_moment.empty() ? "" : ", ") + std::to_string(kills) + " " + moment_name(moment);
  std::printf("faults: %s: %lld ms of work uninterrupted; %d trials, %d starts, %d kills (%s), %d starts resumed a "
              "checkpoint\n",
              kind.c_str(), static_cast<long long>(reference.run_time.count()), kTrialsPerKind, tally.starts,
              tally.kills, by_moment.c_str(), tally.resumed_starts);
  RecordProperty("kills", tally.kills);
  RecordProperty("starts", tally.starts);
  // Every trial was killed at least once, and restarts really resumed.
  EXPECT_GE(tally.kills, kTrialsPerKind);
  EXPECT_GE(tally.kills_at[KillMoment::after_checkpoint], 1);
  EXPECT_GE(tally.resumed_starts, kTrialsPerKind);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, KilledAtRandomPoints, ::testing::ValuesIn(registered_kinds()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace helix::faults
