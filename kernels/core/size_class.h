// size_class.h: BOINC job size matching for helix's work units (issue 19).
//
// A GPU does a CPU-sized WU in seconds, so per-WU costs (process start, CUDA
// context, reading inputs, writing outputs, a scheduler round trip, two
// uploads, a validation, an assimilation) dominate it; CPU hosts run the same
// app, so WUs cannot simply grow. BOINC's answer is size classes: the app has
// n_size_classes, each WU one class (create_work --size_class), the scheduler
// prefers for a host the class whose speed range holds the host's (the
// boundaries in the project's size_census_<app> file: helix's deployment
// writes a fixed CPU/GPU threshold there) and size_regulator keeps each
// class's queue filled (docs/deploy.md, section 3a).
//
// helix uses two classes: 0 for CPU hosts (each kind's defaults: minutes on
// one core) and 1 for GPU hosts (each kind's GPU defaults: many times the
// work). A kind's make command takes --size-class cpu|gpu; an explicit size
// option (--chunk-residues, --queries-per-wu, --max-cost-per-wu) still wins.
// Without --size-class a WU has no class, for projects that do not use job
// size matching: BOINC creates a WU with a class as INACTIVE, and only
// size_regulator releases it.
#pragma once
#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "kind.h"

namespace helix {

enum class SizeClass : int { kNone = -1, kCpu = 0, kGpu = 1 };
// The app's n_size_classes (docs/deploy.md, section 3).
constexpr int kSizeClassCount = 2;

// Adds `--size-class cpu|gpu` to a kind's make command.
inline CLI::Option* add_size_class_option(CLI::App* command, SizeClass* size_class) {
  const std::map<std::string, SizeClass> names{{"cpu", SizeClass::kCpu}, {"gpu", SizeClass::kGpu}};
  return command
      ->add_option("--size-class", *size_class,
                   "BOINC size class of the WUs: cpu (0, each kind's CPU-sized defaults) or gpu (1, GPU-sized "
                   "defaults); the app needs n_size_classes 2 (docs/deploy.md)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case));
}

// A size option's default for the class: `gpu` for the GPU class, else `cpu`
// (no class keeps the CPU-sized defaults helix has always used).
template <typename T>
T size_class_default(SizeClass size_class, T cpu, T gpu) {
  return size_class == SizeClass::kGpu ? gpu : cpu;
}

// `emit` with every WU's spec marked with the class (create_work --size_class).
inline std::function<void(const WorkunitSpec&)> emit_in_size_class(std::function<void(const WorkunitSpec&)> emit,
                                                                   SizeClass size_class) {
  return [emit, size_class](const WorkunitSpec& spec) {
    WorkunitSpec marked = spec;
    marked.size_class = static_cast<int>(size_class);
    emit(marked);
  };
}

// Whether the user gave `name` on the command line (then it wins over the class's default).
inline bool option_given(const CLI::App* command, const std::string& name) { return command->get_option(name)->count() > 0; }

}  // namespace helix
