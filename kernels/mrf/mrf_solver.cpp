// mrf_solver.cpp: drives a SweepEngine from the initial labels to convergence,
// re-estimating the classes after every sweep and checkpointing at sweep
// boundaries. Everything a restart needs is in the checkpoint (labels, class
// model, trace, sweep count), so a restarted run is byte-identical.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/checkpoint.h"
#include "core/errors.h"
#include "mrf.h"

namespace helix::mrf {
namespace {

constexpr char kStateMagic[8] = {'H', 'X', 'M', 'R', 'F', 'C', 'K', '1'};

struct SolverState {
  std::uint32_t sweeps_done = 0;
  bool finished = false;
  bool converged = false;
  ClassModel model;
  std::vector<SweepRecord> trace;
  std::vector<std::uint8_t> labels;
};

// A checkpoint is only reused for the same volume shape and parameters.
std::string state_fingerprint(const Volume& volume, const MrfParams& params) {
  return std::to_string(volume.nx) + "x" + std::to_string(volume.ny) + "x" + std::to_string(volume.nz) + " " +
         mrf_params_to_json(params).dump();
}

std::vector<std::uint8_t> encode_state(const SolverState& state, const std::string& fingerprint) {
  ByteWriter writer = begin_checkpoint(kStateMagic, fingerprint);
  writer.put<std::uint32_t>(state.sweeps_done);
  writer.put<std::uint8_t>(state.finished), writer.put<std::uint8_t>(state.converged);
  for (int k = 0; k < kClassCount; ++k) writer.put<double>(state.model.mean[k]), writer.put<double>(state.model.variance[k]);
  writer.put<std::uint64_t>(state.trace.size());
  for (const auto& record : state.trace)
    writer.put<std::uint32_t>(record.sweep), writer.put<std::int64_t>(record.delta_energy),
        writer.put<std::int64_t>(record.labels_changed);
  auto frame = zstd_compress(state.labels.data(), state.labels.size());
  writer.put<std::uint64_t>(frame.size());
  writer.put_bytes(frame.data(), frame.size());
  return std::move(writer.bytes());
}

// Returns false (start afresh) for a checkpoint of another WU or a damaged one.
bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& fingerprint, std::size_t voxels,
                  SolverState& state) {
  return read_checkpoint(bytes, kStateMagic, fingerprint, [&](ByteReader& reader) {
    state.sweeps_done = reader.get<std::uint32_t>();
    state.finished = reader.get<std::uint8_t>(), state.converged = reader.get<std::uint8_t>();
    for (int k = 0; k < kClassCount; ++k) state.model.mean[k] = reader.get<double>(), state.model.variance[k] = reader.get<double>();
    const auto records = reader.get<std::uint64_t>();
    if (records != state.sweeps_done) return false;
    state.trace.resize(records);
    for (auto& record : state.trace)
      record.sweep = reader.get<std::uint32_t>(), record.delta_energy = reader.get<std::int64_t>(),
      record.labels_changed = reader.get<std::int64_t>();
    const auto frame_size = reader.get<std::uint64_t>();
    if (frame_size != reader.remaining()) return false;
    state.labels = zstd_decompress(reader.take(frame_size), frame_size, voxels, "checkpoint");
    return true;
  });
}

SolverState initial_state(const Volume& volume, const MrfParams& params) {
  InitialSegmentation start = initial_segmentation(volume, params);
  SolverState state;
  state.labels = std::move(start.labels);
  state.model = start.model;
  return state;
}

}  // namespace

MrfResult solve_mrf(const Volume& volume, const MrfParams& params, SweepEngine& engine, Runtime& runtime) {
  const std::string fingerprint = state_fingerprint(volume, params);
  SolverState state;
  auto saved = runtime.restore_state();
  if (!saved || !decode_state(*saved, fingerprint, volume.size(), state)) state = initial_state(volume, params);

  engine.load(volume, state.labels);
  while (!state.finished) {
    const SweepBatch batch =
        engine.run_sweeps(state.model, params, state.sweeps_done, engine.sweeps_per_batch());
    state.model = batch.model;
    state.trace.insert(state.trace.end(), batch.records.begin(), batch.records.end());
    state.sweeps_done += static_cast<std::uint32_t>(batch.records.size());
    state.converged = batch.converged;
    state.finished = state.converged || state.sweeps_done >= static_cast<std::uint32_t>(params.max_sweeps);
    runtime.report_progress(state.finished ? 1.0 : static_cast<double>(state.sweeps_done) / params.max_sweeps);
    // A finished run saves nothing and stops for nothing: its result follows at once.
    if (!state.finished)
      checkpoint_block_boundary(runtime, [&] {
        state.labels = engine.labels();
        return encode_state(state, fingerprint);
      });
  }

  MrfResult result;
  result.labels = engine.labels();
  result.model = state.model;
  result.sums = engine.class_sums(volume);
  result.trace = state.trace;
  result.converged = state.converged;
  result.final_energy = engine.labelling_energy(volume, result.model, sweep_constants(params, state.sweeps_done));
  return result;
}

}  // namespace helix::mrf
