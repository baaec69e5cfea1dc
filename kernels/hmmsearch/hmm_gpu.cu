// hmm_gpu.cu: the CUDA engine of the hmmsearch kind (HmmEngine, hmm_engine.h):
// it holds the chunk's targets (resident across profiles) and a profile's
// striped scores on the GPU, runs the four filters' kernels
// (hmm_gpu_filters.cuh: MSV, the bias filter, Viterbi, Forward, each in its
// own file) on batches longest target first, and domain definition's passes
// (Backward and the posteriors' decoding in hmm_gpu_domains.cu, region
// sampling in hmm_gpu_sampling.cu, envelope rescoring in hmm_gpu_envelopes.cu)
// in batches within a memory budget; it allocates and reuses the device
// buffers, and turns what comes back into the engine's results on the host.
// Every kernel equals the CPU reference bit for bit
// (tests/hmmsearch/hmm_gpu_test.cpp).
//
// Streams and pinned memory are the device layer's (core/device_stream.h):
// every kernel, copy and memset runs in order on the engine's one
// non-blocking stream, and results come back into pinned buffers by
// asynchronous copies, read after one synchronize per batch. Every batch
// and every public call ends with that synchronize, so the next one's
// uploads (upload_reusing on the legacy stream, landed when it returns)
// never overwrite what a kernel still reads: a batch's inputs, a profile's
// odds and a round's targets reuse the engine's buffers, grown only when
// they need more (a cudaFree waits for the whole device: every engine's
// work), and a call's temporary device buffers live until it.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>

#include "core/cuda_support.h"
#include "core/device_stream.h"
#include "hmm_engine.h"
#include "hmm_dp_rows.h"
#include "hmm_gpu_domains.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_gpu_envelopes.h"
#include "hmm_gpu_sampling.h"
#include "hmm_sampling.h"
#include "hmm_filters.h"
#include "hmm_float_mode.h"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

// A profile's per-cell arrays in a striped layout: element (q, lane) is cell
// k = q+1+lane*Q, `padding` beyond M.
template <typename T>
std::vector<T> striped(int M, int Q, int lanes, T padding, const std::function<T(int)>& cell_value) {
  std::vector<T> out(static_cast<std::size_t>(Q) * lanes, padding);
  for (int q = 0; q < Q; ++q)
    for (int lane = 0; lane < lanes; ++lane) {
      const int k = q + 1 + lane * Q;
      if (k <= M) out[q * lanes + lane] = cell_value(k);
    }
  return out;
}

template <typename T>
std::vector<T> striped_emissions(const std::vector<T>& by_code, int M, int Q, int lanes, T padding) {
  std::vector<T> out;
  for (int x = 0; x < kCodes; ++x) {
    const std::vector<T> row = striped<T>(M, Q, lanes, padding, [&](int k) { return by_code[x * M + k - 1]; });
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

// Targets searched at once between checkpoints (HmmEngine::round_targets):
// 16 of the default WU blocks, about 100 M residues of UniProt, a few seconds
// of a small GPU's time for a few profiles.
constexpr std::size_t kRoundTargets = std::size_t{1} << 18;

class GpuEngine : public HmmEngine {
 public:
  GpuEngine(int device, bool warp_msv, int engines_on_device)
      : device_(device), engines_on_device_(std::max(1, engines_on_device)), warp_msv_(warp_msv) {
    name_ = select_cuda_device(device);
    check_cuda(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
    stream_.create("creating the hmmsearch engine's stream");
  }

  std::string description() const override { return "cuda:" + name_; }
  std::size_t round_targets() const override { return kRoundTargets; }
  void use_on_this_thread() override { check_cuda(cudaSetDevice(device_), "selecting the CUDA device"); }

  void load_targets(const SequenceSet& targets) override {
    // Buffers another engine still shares are left to it: they are freed
    // when it takes this round's.
    if (!loaded_ || loaded_.use_count() > 1) loaded_ = std::make_shared<LoadedTargets>();
    LoadedTargets& in = *loaded_;
    targets_ = &targets;
    in.codes.upload_reusing(targets.residues.data(), targets.residues.size(), "uploading target residues");
    in.offsets.upload_reusing(targets.offsets.data(), targets.offsets.size(), "uploading target offsets");
    std::vector<std::uint32_t> order(targets.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return target_length(a) > target_length(b); });
    in.order.upload_reusing(order.data(), order.size(), "uploading the target order");
    in.tjb_host.resize(targets.size());
    for (std::size_t t = 0; t < targets.size(); ++t)
      in.tjb_host[t] = shared_length_config(std::max(target_length(t), 1)).msv_tjb;
    in.tjb.upload_reusing(in.tjb_host.data(), in.tjb_host.size(), "uploading length costs");
    targets_loaded();
  }

  bool share_targets(const HmmEngine& other) override {
    const auto* loaded_by = dynamic_cast<const GpuEngine*>(&other);
    if (!loaded_by || loaded_by == this || loaded_by->device_ != device_ || !loaded_by->loaded_) return false;
    loaded_ = loaded_by->loaded_;
    targets_ = loaded_by->targets_;
    targets_loaded();
    return true;
  }

  void load_profile(const SearchProfile& profile) override {
    profile_ = &profile;
    envelope_profile_ready_ = false;
    kept_forward_at_.clear();
    msv_words_ = warp_msv_ ? msv_words_for(profile.M) : 0;
    if (msv_words_ > 0) {
      const std::vector<std::uint32_t> pairs = msv_score_pairs(profile, msv_words_);
      msv_pairs_.upload_reusing(pairs.data(), pairs.size(), "uploading MSV scores");
    }
    msv_cost_.upload_reusing(profile.msv_cost.data(), profile.msv_cost.size(), "uploading MSV costs");
    const int M = profile.M;
    vit_q_ = (M + kWarp - 1) / kWarp;
    const CellTransitions<std::int16_t> no_words{-32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768};
    const auto vit_match = striped_emissions<std::int16_t>(profile.vit_match, M, vit_q_, kWarp, -32768);
    const auto vit_transitions = striped<CellTransitions<std::int16_t>>(
        M, vit_q_, kWarp, no_words, [&](int k) { return profile.vit_transitions[k - 1]; });
    vit_match_.upload_reusing(vit_match.data(), vit_match.size(), "uploading Viterbi scores");
    vit_transitions_.upload_reusing(vit_transitions.data(), vit_transitions.size(), "uploading Viterbi transitions");
    fwd_q_ = forward_segments(M);
    upload_cell_odds(profile);
  }

  std::vector<float> msv_scores() override {
    const std::uint32_t count = static_cast<std::uint32_t>(targets_->size());
    std::vector<float> scores(count, -std::numeric_limits<float>::infinity());
    if (count == 0) return scores;
    DeviceBuffer<std::uint8_t> scratch;  // the thread kernel's rows, kept until the synchronize below
    if (msv_words_ > 0) {
      unsigned* next = work_counter();
      const MsvKernelArgs args{target_codes(), target_offsets(), target_order(), count, msv_pairs_.data, target_tjb(),
                               profile_->msv_bias, profile_->msv_tec, profile_->msv_tbm, xj_.data, next};
      launch_msv_words(msv_words_, args, sms_, stream_);
    } else {
      const int threads = std::min<int>(count, sms_ * 256);
      scratch.allocate(static_cast<std::size_t>(threads) * msv_scratch_bytes(profile_->M), "MSV scratch");
      const MsvView view{profile_->M, msv_cost_.data, profile_->msv_bias, profile_->msv_tbm, profile_->msv_tec};
      launch_msv_threads(threads, target_codes(), target_offsets(), target_order(), count, view, target_tjb(),
                         scratch.data, xj_.data, stream_);
    }
    xj_host_.reserve(count, "MSV results (pinned)");
    check_cuda(cudaMemcpyAsync(xj_host_.data, xj_.data, count * sizeof(int), cudaMemcpyDeviceToHost, stream_),
               "MSV results");
    stream_.synchronize("MSV on the GPU");
    const int* xj = xj_host_.data;
    for (std::uint32_t t = 0; t < count; ++t) {
      if (target_length(t) == 0) continue;
      scores[t] = xj[t] < 0 ? std::numeric_limits<float>::infinity() : msv_score_of_xj(xj[t], loaded_->tjb_host[t]);
    }
    return scores;
  }

  std::vector<float> bias_filter_scores(const std::vector<std::uint32_t>& which) override {
    return batch_scores<float>(which, 0, bias_filter_block_threads(), 0,
                               [&](const BatchTarget* batch, std::uint32_t count, int blocks, void*, float* out,
                                   unsigned* next) {
                                 launch_bias_filter(blocks, target_codes(), target_offsets(), batch, count,
                                                    profile_->bias_filter, out, next, stream_);
                               });
  }

  std::vector<float> viterbi_scores(const std::vector<std::uint32_t>& which) override {
    const ViterbiStriped view{profile_->M, vit_q_, vit_match_.data, vit_transitions_.data, profile_->vit_e_loop,
                              profile_->vit_e_move, profile_->vit_dd_bound};
    const std::size_t warp_bytes = 3 * sizeof(std::int16_t) * vit_q_ * kWarp;
    const std::size_t block_bytes = warp_bytes * (kBatchBlock / kWarp);
    const bool shared_rows = block_bytes <= kMaxSharedRows;
    if (shared_rows) allow_viterbi_shared_rows();
    std::vector<int> xc = batch_scores<int>(
        which, shared_rows ? 0 : warp_bytes, kBatchBlock, 0,
        [&](const BatchTarget* batch, std::uint32_t count, int blocks, void* scratch, int* out, unsigned* next) {
          launch_viterbi_warps(blocks, kBatchBlock, shared_rows ? block_bytes : 0, target_codes(), target_offsets(),
                               batch, count, view, static_cast<std::int16_t*>(scratch), shared_rows, out, next,
                               stream_);
        });
    std::vector<float> scores(which.size());
    for (std::size_t b = 0; b < which.size(); ++b)
      scores[b] = xc[b] >= 32767 ? std::numeric_limits<float>::infinity()
                                 : viterbi_score_of_xc(xc[b], shared_length_config(target_length(which[b])).vit_move);
    return scores;
  }

  // The Forward filter keeps every row's specials of the targets it scores:
  // they are the first half of domain definition's parser passes for those
  // that pass (domain_posteriors), which then needs only Backward.
  std::vector<float> forward_scores(const std::vector<std::uint32_t>& which) override {
    const ForwardLaunch f = forward_launch();
    // batch_scores runs the targets longest first (a stable sort by length);
    // their specials go back to back in that order.
    std::vector<std::uint32_t> by_length(which);
    std::stable_sort(by_length.begin(), by_length.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return target_length(a) > target_length(b); });
    kept_forward_at_.assign(targets_->size(), -1);
    std::vector<std::uint64_t> special_offsets(by_length.size());
    std::uint64_t floats = 0;
    for (std::size_t b = 0; b < by_length.size(); ++b) {
      special_offsets[b] = floats;
      kept_forward_at_[by_length[b]] = static_cast<std::int64_t>(floats);
      floats += special_floats(by_length[b]);
    }
    reserve(kept_forward_, floats, "Forward special rows");
    kept_forward_offsets_.upload_reusing(special_offsets.data(), special_offsets.size(), "uploading Forward row offsets");
    const unsigned longest = long_entries(which.size(), [&](std::size_t t) { return target_length(which[t]); });
    return batch_scores<float>(
        which, f.shared_rows ? 0 : f.warp_bytes, kForwardWarpsPerBlock * kWarp, longest,
        [&](const BatchTarget* batch, std::uint32_t count, int blocks, void* scratch, float* out, unsigned* next) {
          const ForwardEntries entries{target_codes(), target_offsets(), batch, f.view, out,
                                       kept_forward_.data, kept_forward_offsets_.data, nullptr, nullptr};
          launch_forward_warps(blocks, f.shared_bytes(), entries, count, static_cast<float*>(scratch), f.shared_rows,
                               next, longest, std::min<unsigned>(longest, static_cast<unsigned>(blocks)), stream_);
        });
  }

  // The parser passes and their decoding on the GPU (hmm_gpu_domains.cu),
  // in batches whose special-state rows fit a memory budget.
  std::vector<DomainPosteriors> domain_posteriors(const std::vector<std::uint32_t>& which) override {
    std::vector<DomainPosteriors> posteriors(which.size());
    std::vector<std::uint32_t> by_length(which.size());
    std::iota(by_length.begin(), by_length.end(), 0u);
    std::stable_sort(by_length.begin(), by_length.end(), [&](std::uint32_t a, std::uint32_t b) {
      return target_length(which[a]) > target_length(which[b]);
    });
    for (std::size_t first = 0; first < by_length.size();) {
      std::size_t end = first, floats = 0;
      while (end < by_length.size() &&
             (end == first || floats + special_floats(which[by_length[end]]) <= kSpecialsBudget / sizeof(float)))
        floats += special_floats(which[by_length[end++]]);
      std::vector<std::uint32_t> batch(by_length.begin() + first, by_length.begin() + end);
      decode_domain_batch(which, batch, floats, posteriors);
      first = end;
    }
    return posteriors;
  }

  // Every region sampled on the GPU (hmm_gpu_sampling.cu), longest first,
  // in batches whose matrices fit a memory budget; a region whose traces hold
  // more domains than the GPU's room (or that fails there) is sampled again
  // on the CPU, whose result is the reference anyway.
  std::vector<RegionSamples> sample_regions(const std::vector<RegionTask>& tasks, int samples,
                                            std::uint32_t seed) override {
    std::vector<RegionSamples> sampled(tasks.size());
    in_budget_batches(
        tasks, [&](const RegionTask& task) { return region_bytes(task, samples); },
        [&](const std::vector<std::uint32_t>& batch) { sample_region_batch(tasks, batch, samples, seed, sampled); });
    return sampled;
  }

  // Every envelope on the GPU (hmm_gpu_envelopes.cu), longest first, in
  // batches whose matrices fit a memory budget.
  std::vector<EnvelopeRescore> rescore_envelopes(const std::vector<EnvelopeTask>& tasks) override {
    std::vector<EnvelopeRescore> rescored(tasks.size());
    in_budget_batches(tasks, [&](const EnvelopeTask& task) { return envelope_bytes(task); },
                      [&](const std::vector<std::uint32_t>& batch) { rescore_envelope_batch(tasks, batch, rescored); });
    return rescored;
  }

 private:
  static constexpr int kBatchBlock = 128;

  // Runs `run` on batches of task indices, longest task (j - i) first, each
  // batch's `bytes` within the memory budget (a task larger alone goes alone).
  template <typename Task, typename Bytes, typename Run>
  void in_budget_batches(const std::vector<Task>& tasks, Bytes bytes, Run run) {
    if (tasks.empty()) return;
    upload_envelope_profile();
    std::vector<std::uint32_t> by_length(tasks.size());
    std::iota(by_length.begin(), by_length.end(), 0u);
    std::stable_sort(by_length.begin(), by_length.end(), [&](std::uint32_t a, std::uint32_t b) {
      return tasks[a].j - tasks[a].i > tasks[b].j - tasks[b].i;
    });
    const std::size_t budget = envelope_budget();
    for (std::size_t first = 0; first < by_length.size();) {
      std::size_t end = first, used = 0;
      while (end < by_length.size() && (end == first || used + bytes(tasks[by_length[end]]) <= budget))
        used += bytes(tasks[by_length[end++]]);
      run(std::vector<std::uint32_t>(by_length.begin() + first, by_length.begin() + end));
      first = end;
    }
  }

  // The unihit profile's striped odds (the same for every length model).
  void upload_envelope_profile() {
    if (envelope_profile_ready_) return;
    const OddsProfile unihit = odds_profile(*profile_, 1, false);
    env_transitions_.upload_reusing(unihit.striped_transitions.data(), unihit.striped_transitions.size(),
                                    "uploading envelope transitions");
    env_match_.upload_reusing(unihit.striped_match.data(), unihit.striped_match.size(), "uploading envelope odds");
    envelope_profile_ready_ = true;
  }
  std::size_t envelope_bytes(const EnvelopeTask& task) const {
    const int L = task.j - task.i + 1;
    return sizeof(float) * (envelope_row_floats(L, fwd_q_) + envelope_special_floats(L)) +
           sizeof(TraceStep) * envelope_trace_room(L, profile_->M);
  }
  // 60 % of the free device memory (at least 256 MiB) for one batch of
  // matrices: each batch ends with its longest task alone on the card, so
  // the fewer batches the better (an 8 GiB cap made SMC_N's 3,884
  // envelopes six batches). Engines sharing the device take their share of
  // it, so that together they never ask for more than that 60 %.
  std::size_t envelope_budget() const {
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "reading free device memory");
    const std::size_t already = env_rows_.count * sizeof(float) + env_specials_.count * sizeof(float) +
                                env_steps_.count * sizeof(TraceStep);  // reused, so free again for the batch
    return std::max<std::size_t>(std::size_t(256) << 20, (free + already) / 10 * 6 / engines_on_device_);
  }

  std::size_t region_bytes(const RegionTask& task, int samples) const {
    const int L = task.j - task.i + 1, M = profile_->M;
    return sizeof(float) * (envelope_row_floats(L, fwd_q_) / 2 + envelope_special_floats(L) / 2 + (M + 1) + L) +
           sizeof(int) * M + sizeof(SampledPair) * region_pair_room(L, samples);
  }

  void sample_region_batch(const std::vector<RegionTask>& tasks, const std::vector<std::uint32_t>& batch, int samples,
                           std::uint32_t seed, std::vector<RegionSamples>& sampled) {
    const std::uint32_t count = static_cast<std::uint32_t>(batch.size());
    const int M = profile_->M;
    std::vector<RegionJob> jobs(count);
    std::uint64_t rows = 0, specials = 0, usage = 0, used = 0, sums = 0, pairs = 0;
    for (std::uint32_t b = 0; b < count; ++b) {
      const RegionTask& task = tasks[batch[b]];
      RegionJob& job = jobs[b];
      job.L = task.j - task.i + 1;
      job.codes_at = targets_->offsets[task.target] + task.i - 1;
      job.rows_at = rows, job.x_at = specials, job.usage_at = usage, job.used_at = used, job.sums_at = sums;
      job.pairs_at = pairs;
      job.room = region_pair_room(job.L, samples);
      job.special = special_odds(target_length(task.target), true);
      rows += envelope_row_floats(job.L, fwd_q_) / 2, specials += envelope_special_floats(job.L) / 2;
      usage += M + 1, used += M, sums += job.L, pairs += job.room;
    }
    region_jobs_.upload_reusing(jobs.data(), count, "uploading regions");
    // Grown to what a batch needs, no more: the budget is most of the card.
    if (env_rows_.count < rows) env_rows_.allocate(rows, "region rows");
    if (env_specials_.count < specials) env_specials_.allocate(specials, "region specials");
    if (region_usage_.count < usage + sums) region_usage_.allocate(usage + sums, "region null2 sums");
    if (region_used_.count < used) region_used_.allocate(used, "region nodes");
    if (region_pairs_.count < pairs) region_pairs_.allocate(pairs, "region segment pairs");
    if (region_results_.count < 2 * count) region_results_.allocate(2 * count, "region results");
    check_cuda(cudaMemsetAsync(region_usage_.data, 0, (usage + sums) * sizeof(float), stream_), "zeroing region sums");
    RegionBatch launch;
    launch.codes = target_codes(), launch.jobs = region_jobs_.data, launch.count = count;
    launch.M = M, launch.Q = fwd_q_, launch.transitions = env_transitions_.data, launch.match = env_match_.data;
    launch.members = code_members(), launch.samples = samples, launch.rng_state = EaselFastRandom(seed).state();
    launch.rows = env_rows_.data, launch.specials = env_specials_.data;
    launch.usage = region_usage_.data, launch.sums = region_usage_.data + usage, launch.used = region_used_.data;
    launch.pairs = region_pairs_.data, launch.status = region_results_.data, launch.pair_count = region_results_.data + count;
    region_forward_matrices(tasks, batch, region_jobs_.data, jobs);
    launch_region_sampling(launch, stream_);

    region_results_host_.reserve(2 * count, "region results (pinned)");
    region_sums_host_.reserve(sums, "region null2 sums (pinned)");
    region_pairs_host_.reserve(pairs, "region segment pairs (pinned)");
    check_cuda(cudaMemcpyAsync(region_results_host_.data, region_results_.data, 2 * count * sizeof(int),
                               cudaMemcpyDeviceToHost, stream_),
               "region results");
    check_cuda(cudaMemcpyAsync(region_sums_host_.data, region_usage_.data + usage, sums * sizeof(float),
                               cudaMemcpyDeviceToHost, stream_),
               "region null2 sums");
    check_cuda(cudaMemcpyAsync(region_pairs_host_.data, region_pairs_.data, pairs * sizeof(SampledPair),
                               cudaMemcpyDeviceToHost, stream_),
               "region segment pairs");
    stream_.synchronize("region sampling on the GPU");
    const int* results = region_results_host_.data;
    const float* all_sums = region_sums_host_.data;
    const SampledPair* all_pairs = region_pairs_host_.data;
    const HmmerFloatMode hmmer_mode;  // the CPU's second tries
    for (std::uint32_t b = 0; b < count; ++b) {
      const RegionTask& task = tasks[batch[b]];
      RegionSamples& out = sampled[batch[b]];
      if (results[b] != kSampled) {
        const OddsProfile multihit = odds_profile(*profile_, target_length(task.target), true);
        out = sample_target_region(multihit, targets_->begin(task.target), task.i, task.j, samples, seed);
        continue;
      }
      const SampledPair* first_pair = all_pairs + jobs[b].pairs_at;
      out.pairs.assign(first_pair, first_pair + results[count + b]);
      out.sums.assign(all_sums + jobs[b].sums_at, all_sums + jobs[b].sums_at + jobs[b].L);
    }
  }

  // The regions' Forward matrices (multihit, each target's length model),
  // every row's cells and specials, by the Forward filter's warp kernel. Its
  // inputs are members: the kernel reads them until the batch's synchronize.
  void region_forward_matrices(const std::vector<RegionTask>& tasks, const std::vector<std::uint32_t>& batch,
                               const RegionJob* device_jobs, const std::vector<RegionJob>& jobs) {
    const std::uint32_t count = static_cast<std::uint32_t>(batch.size());
    std::vector<BatchTarget> entries(count);
    std::vector<std::uint64_t> special_offsets(count);
    for (std::uint32_t b = 0; b < count; ++b) {
      const std::uint32_t target = tasks[batch[b]].target;
      entries[b] = {target, shared_length_config(target_length(target))};
      special_offsets[b] = jobs[b].x_at;
    }
    region_entries_.upload_reusing(entries.data(), count, "uploading region targets");
    region_special_offsets_.upload_reusing(special_offsets.data(), count, "uploading region row offsets");
    reserve(results_, count * sizeof(float), "region Forward scores");
    const ForwardLaunch f = forward_launch();
    const unsigned longest = long_entries(count, [&](std::size_t b) { return jobs[b].L; });
    const int blocks = warp_blocks(count, kForwardWarpsPerBlock, f.shared_rows ? 0 : f.warp_bytes, longest);
    const ForwardEntries forward{target_codes(), target_offsets(), region_entries_.data, f.view,
                                 reinterpret_cast<float*>(results_.data), env_specials_.data,
                                 region_special_offsets_.data, device_jobs, env_rows_.data};
    launch_forward_warps(blocks, f.shared_bytes(), forward, count, reinterpret_cast<float*>(rows_.data),
                         f.shared_rows, work_counter(), longest,
                         std::min<unsigned>(longest, static_cast<unsigned>(blocks)), stream_);
    check_cuda(cudaGetLastError(), "region Forward kernel launch");
  }

  // One batch of envelopes: Forward (the filter's warp kernel) and Backward
  // (hmm_gpu_domains.cu) over each envelope alone, unihit, keeping every
  // row, then decoding, optimal accuracy, its traceback and null2
  // (hmm_gpu_envelopes.cu). Each envelope's rows: Forward's (L + 1) * 12Q
  // floats, then Backward's; its specials likewise.
  void rescore_envelope_batch(const std::vector<EnvelopeTask>& tasks, const std::vector<std::uint32_t>& batch,
                              std::vector<EnvelopeRescore>& rescored) {
    const std::uint32_t count = static_cast<std::uint32_t>(batch.size());
    std::vector<EnvelopeJob> jobs(count);
    std::vector<RegionJob> forward_spans(count), backward_spans(count);
    std::vector<BatchTarget> entries(count);
    std::vector<SpecialOdds> specials(count);
    std::vector<std::uint64_t> forward_x(count), backward_x(count);
    std::uint64_t rows = 0, x = 0, steps = 0;
    for (std::uint32_t b = 0; b < count; ++b) {
      const EnvelopeTask& task = tasks[batch[b]];
      EnvelopeJob& job = jobs[b];
      job.L = task.j - task.i + 1;
      job.codes_at = targets_->offsets[task.target] + task.i - 1;
      job.rows_at = rows, job.x_at = x, job.steps_at = steps;
      job.room = envelope_trace_room(job.L, profile_->M);
      job.null2 = task.null2 ? 1 : 0;
      job.special = special_odds(target_length(task.target), false);
      rows += envelope_row_floats(job.L, fwd_q_), x += envelope_special_floats(job.L), steps += job.room;
      forward_spans[b].codes_at = job.codes_at, forward_spans[b].L = job.L, forward_spans[b].rows_at = job.rows_at;
      backward_spans[b] = forward_spans[b];
      backward_spans[b].rows_at = job.rows_at + envelope_row_floats(job.L, fwd_q_) / 2;
      LengthConfig unihit = shared_length_config(target_length(task.target));
      unihit.fwd_move = job.special.n_move, unihit.fwd_loop = job.special.n_loop;
      entries[b] = {task.target, unihit};
      specials[b] = job.special;
      forward_x[b] = job.x_at, backward_x[b] = job.x_at + envelope_special_floats(job.L) / 2;
    }
    EnvelopeInputs& in = envelope_inputs_;
    in.jobs.upload_reusing(jobs.data(), count, "uploading envelopes");
    in.forward_spans.upload_reusing(forward_spans.data(), count, "uploading envelopes");
    in.backward_spans.upload_reusing(backward_spans.data(), count, "uploading envelopes");
    in.entries.upload_reusing(entries.data(), count, "uploading envelope targets");
    in.specials.upload_reusing(specials.data(), count, "uploading envelope length models");
    in.forward_x.upload_reusing(forward_x.data(), count, "uploading envelope row offsets");
    in.backward_x.upload_reusing(backward_x.data(), count, "uploading envelope row offsets");
    // Grown to what a batch needs, no more: the budget is most of the card.
    if (env_rows_.count < rows) env_rows_.allocate(rows, "envelope rows");
    if (env_specials_.count < x) env_specials_.allocate(x, "envelope specials");
    if (env_steps_.count < steps) env_steps_.allocate(steps, "envelope traces");
    if (env_scores_.count < count) env_scores_.allocate(count, "envelope scores");
    reserve(results_, count * sizeof(float), "envelope Forward scores");
    reserve(own_scales_, count, "envelope scale flags");
    float* forward_scores = reinterpret_cast<float*>(results_.data);

    ForwardLaunch f = forward_launch();
    f.view.e_loop = jobs[0].special.e_loop, f.view.e_move = jobs[0].special.e_move;  // unihit
    const unsigned longest = long_entries(count, [&](std::size_t b) { return jobs[b].L; });
    int blocks = warp_blocks(count, kForwardWarpsPerBlock, f.shared_rows ? 0 : f.warp_bytes, longest);
    const ForwardEntries forward{target_codes(),    target_offsets(),      in.entries.data,
                                 f.view,            forward_scores,        env_specials_.data,
                                 in.forward_x.data, in.forward_spans.data, env_rows_.data};
    launch_forward_warps(blocks, f.shared_bytes(), forward, count, reinterpret_cast<float*>(rows_.data),
                         f.shared_rows, work_counter(), longest,
                         std::min<unsigned>(longest, static_cast<unsigned>(blocks)), stream_);
    check_cuda(cudaGetLastError(), "envelope Forward kernel launch");

    const std::size_t backward_bytes = backward_warp_bytes(fwd_q_);
    const bool backward_shared = backward_bytes * kBackwardWarpsPerBlock <= kMaxSharedRows;
    blocks = warp_blocks(count, kBackwardWarpsPerBlock, backward_shared ? 0 : backward_bytes, longest);
    BackwardWarpBatch backward;
    backward.codes = target_codes(), backward.offsets = target_offsets(), backward.count = count;
    backward.specials = in.specials.data, backward.special_offsets = in.backward_x.data;
    backward.forward_specials = env_specials_.data, backward.forward_offsets = in.forward_x.data;
    backward.backward_specials = env_specials_.data, backward.own_scales = own_scales_.data;
    backward.rows = reinterpret_cast<float*>(rows_.data), backward.shared_rows = backward_shared;
    backward.M = profile_->M, backward.Q = fwd_q_, backward.odds = cell_odds();
    backward.next = work_counter();
    backward.regions = in.backward_spans.data, backward.region_rows = env_rows_.data;
    split_longest(backward, blocks, [&](unsigned b) { return jobs[b].L; });
    launch_backward_warps(backward, blocks, kBackwardWarpsPerBlock, stream_);

    EnvelopeBatch launch;
    launch.jobs = in.jobs.data, launch.count = count, launch.M = profile_->M, launch.Q = fwd_q_;
    launch.transitions = env_transitions_.data, launch.match = env_match_.data;
    launch.rows = env_rows_.data, launch.specials = env_specials_.data;
    launch.forward_scores = forward_scores, launch.own_scales = own_scales_.data;
    launch.steps = env_steps_.data, launch.out = env_scores_.data;
    launch_envelope_decoding(launch, stream_);

    env_scores_host_.reserve(count, "envelope scores (pinned)");
    env_steps_host_.reserve(steps, "envelope traces (pinned)");
    check_cuda(cudaMemcpyAsync(env_scores_host_.data, env_scores_.data, count * sizeof(EnvelopeScores),
                               cudaMemcpyDeviceToHost, stream_),
               "envelope scores");
    check_cuda(cudaMemcpyAsync(env_steps_host_.data, env_steps_.data, steps * sizeof(TraceStep),
                               cudaMemcpyDeviceToHost, stream_),
               "envelope traces");
    stream_.synchronize("envelope rescoring on the GPU");
    for (std::uint32_t b = 0; b < count; ++b) {
      EnvelopeRescore& out = rescored[batch[b]];
      out.scores = env_scores_host_.data[b];
      if (!out.scores.ok) continue;
      const TraceStep* first = env_steps_host_.data + jobs[b].steps_at;
      out.steps.assign(first, first + out.scores.steps);
    }
  }
  static constexpr std::size_t kSpecialsBudget = std::size_t(256) << 20;  // bytes per array per batch

  // The Forward warp kernel's profile view and where its rows live (shared
  // memory when a block's fit).
  struct ForwardLaunch {
    ForwardStriped view;
    std::size_t warp_bytes = 0, block_bytes = 0;
    bool shared_rows = false;
    std::size_t shared_bytes() const { return shared_rows ? block_bytes : 0; }
  };
  ForwardLaunch forward_launch() {
    ForwardLaunch f{{profile_->M, fwd_q_, cell_odds(), profile_->fwd_e_loop,
                     profile_->fwd_e_move}};
    f.warp_bytes = sizeof(float) * forward_warp_floats(fwd_q_);
    f.block_bytes = f.warp_bytes * kForwardWarpsPerBlock;
    f.shared_rows = f.block_bytes <= kMaxSharedRows;
    if (f.shared_rows) allow_forward_shared_rows();
    return f;
  }

  // The Forward odds in cell order (CellOdds, hmm_gpu_domains.h), for the
  // Forward and Backward row kernels.
  void upload_cell_odds(const SearchProfile& profile) {
    const int M = profile.M, cells = kForwardLanes * fwd_q_;
    std::vector<float> match(static_cast<std::size_t>(kCodes) * cells, 0.0f), transitions(kCellTransitions * cells, 0.0f);
    for (int c = 0; c < cells && c < M; ++c) {  // node c + 1
      for (int x = 0; x < kCodes; ++x) match[x * cells + c] = profile.fwd_match[x * M + c];
      const CellTransitions<float>& t = profile.fwd_transitions[c];
      const float by_kind[kCellTransitions] = {t.bm, t.mm, t.im, t.dm, t.md, t.mi, t.ii, t.dd};
      for (int kind = 0; kind < kCellTransitions; ++kind) transitions[kind * cells + c] = by_kind[kind];
    }
    cell_match_.upload_reusing(match.data(), match.size(), "uploading Forward odds in cell order");
    cell_transitions_.upload_reusing(transitions.data(), transitions.size(),
                                     "uploading Forward transitions in cell order");
  }
  CellOdds cell_odds() const { return {cell_match_.data, cell_transitions_.data, kForwardLanes * fwd_q_}; }

  // A loaded target's length, as the kernels and length models count it (int).
  int target_length(std::uint32_t target) const { return static_cast<int>(targets_->length(target)); }
  std::size_t special_floats(std::uint32_t target) const {
    return static_cast<std::size_t>(target_length(target) + 1) * kSpecialCells;
  }

  // One batch (indices into `which`, longest first): Forward with its rows'
  // specials (the filter's kernel, or the rows it kept), then Backward and
  // the decoding (hmm_gpu_domains.cu): only the posteriors come back, a
  // quarter of the two passes' rows.
  void decode_domain_batch(const std::vector<std::uint32_t>& which, const std::vector<std::uint32_t>& batch,
                           std::size_t floats, std::vector<DomainPosteriors>& posteriors) {
    const std::uint32_t count = static_cast<std::uint32_t>(batch.size());
    std::vector<BatchTarget> entries(count);
    std::vector<std::uint32_t> targets(count);
    std::vector<SpecialOdds> specials(count);
    std::vector<std::uint64_t> offsets(count);
    std::uint64_t at = 0;
    for (std::uint32_t b = 0; b < count; ++b) {
      targets[b] = which[batch[b]];
      entries[b] = {targets[b], shared_length_config(target_length(targets[b]))};
      specials[b] = special_odds(target_length(targets[b]), true);
      offsets[b] = at;
      at += special_floats(targets[b]);
    }
    DomainInputs& in = domain_inputs_;
    in.entries.upload_reusing(entries.data(), count, "uploading domain targets");
    in.targets.upload_reusing(targets.data(), count, "uploading domain targets");
    in.specials.upload_reusing(specials.data(), count, "uploading domain length models");
    in.offsets.upload_reusing(offsets.data(), count, "uploading domain row offsets");
    reserve(backward_specials_, floats, "backward special rows");
    reserve(own_scales_, count, "backward scale flags");
    // Forward's specials: kept by the Forward filter for every target it
    // scored, else computed here.
    bool all_kept = !kept_forward_at_.empty();
    for (std::uint32_t b = 0; all_kept && b < count; ++b) all_kept = kept_forward_at_[targets[b]] >= 0;
    std::vector<std::uint64_t> forward_at(offsets);
    const float* forward_specials = kept_forward_.data;
    if (all_kept) {
      for (std::uint32_t b = 0; b < count; ++b) forward_at[b] = static_cast<std::uint64_t>(kept_forward_at_[targets[b]]);
      in.forward_at.upload_reusing(forward_at.data(), count, "uploading kept Forward row offsets");
    } else {
      reserve(forward_specials_, floats, "forward special rows");
      reserve(results_, count * sizeof(float), "forward scores");
      forward_with_specials(in.entries.data, count, reinterpret_cast<float*>(results_.data), in.offsets.data,
                            long_entries(count, [&](std::size_t b) { return target_length(targets[b]); }));
      forward_specials = forward_specials_.data;
    }
    const std::uint64_t* forward_offsets = all_kept ? in.forward_at.data : in.offsets.data;
    backward_with_specials(in.targets.data, in.specials.data, in.offsets.data, count, forward_specials,
                           forward_offsets, [&](unsigned b) { return target_length(targets[b]); });
    DomainDecodingBatch decoding;
    decoding.offsets = target_offsets(), decoding.targets = in.targets.data, decoding.count = count;
    decoding.specials = in.specials.data;
    decoding.forward_specials = forward_specials, decoding.forward_at = forward_offsets;
    decoding.backward_specials = backward_specials_.data, decoding.special_offsets = in.offsets.data;
    decoding.own_scales = own_scales_.data;
    reserve(posteriors_, floats / 2, "domain posteriors");
    decoding.posteriors = posteriors_.data;
    launch_domain_decoding(decoding, stream_);
    posteriors_host_.reserve(floats / 2, "domain posteriors (pinned)");
    check_cuda(cudaMemcpyAsync(posteriors_host_.data, posteriors_.data, floats / 2 * sizeof(float),
                               cudaMemcpyDeviceToHost, stream_),
               "domain posteriors");
    stream_.synchronize("domain definition's parser passes on the GPU");
    for (std::uint32_t b = 0; b < count; ++b) {  // mocc, btot, etot back to back
      const std::size_t rows = static_cast<std::size_t>(target_length(targets[b])) + 1;
      const float* mocc = posteriors_host_.data + offsets[b] / 2;
      DomainPosteriors& post = posteriors[batch[b]];
      post.mocc.assign(mocc, mocc + rows);
      post.btot.assign(mocc + rows, mocc + 2 * rows);
      post.etot.assign(mocc + 2 * rows, mocc + 3 * rows);
    }
  }

  // The Forward filter's warp kernel, also keeping every row's specials.
  void forward_with_specials(const BatchTarget* entries, std::uint32_t count, float* scores,
                             const std::uint64_t* special_offsets, unsigned longest) {
    const ForwardLaunch f = forward_launch();
    const int blocks = warp_blocks(count, kForwardWarpsPerBlock, f.shared_rows ? 0 : f.warp_bytes, longest);
    const ForwardEntries forward{target_codes(), target_offsets(), entries, f.view, scores,
                                 forward_specials_.data, special_offsets, nullptr, nullptr};
    launch_forward_warps(blocks, f.shared_bytes(), forward, count, reinterpret_cast<float*>(rows_.data),
                         f.shared_rows, work_counter(), longest,
                         std::min<unsigned>(longest, static_cast<unsigned>(blocks)), stream_);
    check_cuda(cudaGetLastError(), "Forward kernel launch");
  }

  template <typename Length>
  void backward_with_specials(const std::uint32_t* targets, const SpecialOdds* specials,
                              const std::uint64_t* special_offsets, std::uint32_t count, const float* forward_specials,
                              const std::uint64_t* forward_offsets, Length length) {
    const std::size_t warp_bytes = backward_warp_bytes(fwd_q_);
    const bool shared_rows = warp_bytes * kBackwardWarpsPerBlock <= kMaxSharedRows;
    const int blocks = warp_blocks(count, kBackwardWarpsPerBlock, shared_rows ? 0 : warp_bytes,
                                   long_entries(count, length));
    BackwardWarpBatch args;
    args.codes = target_codes(), args.offsets = target_offsets(), args.targets = targets, args.count = count;
    args.specials = specials, args.special_offsets = special_offsets;
    args.forward_specials = forward_specials, args.forward_offsets = forward_offsets;
    args.backward_specials = backward_specials_.data;
    args.own_scales = own_scales_.data, args.rows = reinterpret_cast<float*>(rows_.data);
    args.shared_rows = shared_rows, args.M = profile_->M, args.Q = fwd_q_;
    args.odds = cell_odds(), args.next = work_counter();
    split_longest(args, blocks, length);
    launch_backward_warps(args, blocks, kBackwardWarpsPerBlock, stream_);
  }

  // Blocks for a warp-per-target kernel over `count` targets, with global
  // rows of `warp_bytes` per warp (0: in shared memory) reserved in rows_.
  // The first `long_count` entries (the longest) each want a whole block of
  // their own: with fewer blocks, a block takes several of them one after
  // another (a batch of only long targets, as a chunk's long leg has).
  int warp_blocks(std::uint32_t count, int warps_per_block, std::size_t warp_bytes, unsigned long_count = 0) {
    const std::size_t wanted = count - long_count + static_cast<std::size_t>(long_count) * warps_per_block;
    const std::size_t allowed = warp_bytes ? std::max<std::size_t>(1, kScratchBudget / warp_bytes) : wanted;
    const std::size_t resident = static_cast<std::size_t>(sms_) * 64;
    const std::size_t warps = std::min({wanted, allowed, resident});
    const int blocks = static_cast<int>((warps + warps_per_block - 1) / warps_per_block);
    if (warp_bytes) reserve(rows_, static_cast<std::size_t>(blocks) * warps_per_block * warp_bytes, "DP rows");
    return blocks;
  }

  static constexpr std::size_t kMaxSharedRows = 200 * 1024;  // Forward rows per block in shared memory
  static constexpr std::size_t kScratchBudget = std::size_t(1) << 30;  // bytes of DP rows in global memory

  // Runs a warp-per-target batch kernel (rows of `warp_row_bytes` per warp,
  // blocks of `block_threads`) over `which`, longest first; results in
  // `which`'s order. The `long_count` longest want a block each (see
  // warp_blocks).
  template <typename Result, typename Launch>
  std::vector<Result> batch_scores(const std::vector<std::uint32_t>& which, std::size_t warp_row_bytes,
                                   int block_threads, unsigned long_count, Launch launch) {
    const std::uint32_t count = static_cast<std::uint32_t>(which.size());
    std::vector<Result> results(count);
    if (count == 0) return results;
    std::vector<std::uint32_t> by_length(count);
    std::iota(by_length.begin(), by_length.end(), 0u);
    std::stable_sort(by_length.begin(), by_length.end(), [&](std::uint32_t a, std::uint32_t b) {
      return target_length(which[a]) > target_length(which[b]);
    });
    batch_host_.reserve(count, "a filter batch (pinned)");
    for (std::uint32_t b = 0; b < count; ++b) {
      const LengthConfig config = shared_length_config(target_length(which[by_length[b]]));
      batch_host_.data[b] = {which[by_length[b]], config};
    }
    reserve(batch_, count, "a filter batch");
    check_cuda(cudaMemcpyAsync(batch_.data, batch_host_.data, count * sizeof(BatchTarget), cudaMemcpyHostToDevice,
                               stream_),
               "uploading a filter batch");
    const int blocks = warp_blocks(count, block_threads / kWarp, warp_row_bytes, long_count);
    reserve(results_, count * sizeof(Result), "filter results");
    Result* out = reinterpret_cast<Result*>(results_.data);
    launch(batch_.data, count, blocks, rows_.data, out, work_counter());
    check_cuda(cudaGetLastError(), "filter kernel launch");
    results_host_.reserve(count * sizeof(Result), "filter results (pinned)");
    check_cuda(cudaMemcpyAsync(results_host_.data, out, count * sizeof(Result), cudaMemcpyDeviceToHost, stream_),
               "filter results");
    stream_.synchronize("a filter on the GPU");
    const Result* sorted = reinterpret_cast<const Result*>(results_host_.data);
    for (std::uint32_t b = 0; b < count; ++b) results[by_length[b]] = sorted[b];
    return results;
  }

  // The loaded targets' device arrays (load_targets, share_targets).
  const std::uint8_t* target_codes() const { return loaded_->codes.data; }
  const std::uint64_t* target_offsets() const { return loaded_->offsets.data; }
  const std::uint32_t* target_order() const { return loaded_->order.data; }
  const std::uint8_t* target_tjb() const { return loaded_->tjb.data; }
  // This engine's own state for newly loaded targets.
  void targets_loaded() {
    kept_forward_at_.clear();
    reserve(xj_, targets_->size(), "allocating MSV results");
  }

  // Device buffers reused from call to call (grown when a call needs more).
  // Growing frees the old memory, which a kernel queued earlier in the call
  // (Forward, before Backward asks for more rows) may still use: the stream
  // is synchronized first rather than trusting cudaFree to wait.
  template <typename T>
  void reserve(DeviceBuffer<T>& buffer, std::size_t count, const char* what) {
    if (buffer.count >= count) return;
    if (buffer.data) stream_.synchronize(what);
    buffer.allocate(std::max(count, 2 * buffer.count), what);
  }
  // The kernels' work counter, zeroed (in stream order, after the kernels
  // queued before), and a second one after it (the Backward kernel's for its
  // longest entries).
  unsigned* work_counter() {
    reserve(counter_, 2, "a work counter");
    check_cuda(cudaMemsetAsync(counter_.data, 0, 2 * sizeof(unsigned), stream_), "zeroing the work counter");
    return counter_.data;
  }
  // How many entries are long enough for a block of warps (the Forward and
  // Backward kernels); batches run longest first, so they come first.
  template <typename Length>
  static unsigned long_entries(std::size_t count, Length length) {
    unsigned longest = 0;
    for (std::size_t b = 0; b < count; ++b)
      if (length(b) >= kLongEntryResidues) ++longest;
    return longest;
  }
  // How many of a batch's entries (lengths longest first) get a block of
  // warps in the Backward kernel, and from how many blocks.
  template <typename Length>
  static void split_longest(BackwardWarpBatch& batch, int blocks, Length length) {
    const unsigned longest = long_entries(batch.count, length);
    batch.long_count = longest;
    batch.long_blocks = std::min<unsigned>(longest, static_cast<unsigned>(blocks));
    batch.next_long = batch.next + 1;
  }
  static constexpr int kBackwardWarpsPerBlock = 4;

  std::string name_;
  int device_ = 0;
  int engines_on_device_ = 1;  // engines sharing the device's memory (make_gpu_engine)
  int sms_ = 1;
  CudaStream stream_;  // every kernel, copy and memset of the engine, in order
  // Pinned host sides of the copies: a filter batch going up, results coming
  // back (grown to the largest batch so far; the parser passes' specials are
  // at most kSpecialsBudget bytes each).
  PinnedBuffer<BatchTarget> batch_host_;
  PinnedBuffer<unsigned char> results_host_;  // a filter's results (float or int)
  PinnedBuffer<int> xj_host_;
  PinnedBuffer<float> posteriors_host_;
  PinnedBuffer<int> region_results_host_;
  PinnedBuffer<float> region_sums_host_;
  PinnedBuffer<SampledPair> region_pairs_host_;
  PinnedBuffer<EnvelopeScores> env_scores_host_;
  PinnedBuffer<TraceStep> env_steps_host_;
  DeviceBuffer<BatchTarget> batch_;
  DeviceBuffer<unsigned char> rows_, results_;
  DeviceBuffer<unsigned> counter_;
  bool warp_msv_ = true;
  const SequenceSet* targets_ = nullptr;
  const SearchProfile* profile_ = nullptr;
  int msv_words_ = 0, vit_q_ = 1, fwd_q_ = 2;
  // The loaded targets on the device, shared by the engines of one device
  // that search the same round (share_targets): read only, once uploaded.
  struct LoadedTargets {
    DeviceBuffer<std::uint8_t> codes, tjb;  // residues; each target's MSV length cost
    DeviceBuffer<std::uint64_t> offsets;
    DeviceBuffer<std::uint32_t> order;      // longest first
    std::vector<std::uint8_t> tjb_host;
  };
  std::shared_ptr<LoadedTargets> loaded_;
  DeviceBuffer<std::uint8_t> msv_cost_;
  DeviceBuffer<std::uint32_t> msv_pairs_;
  DeviceBuffer<int> xj_;
  DeviceBuffer<std::int16_t> vit_match_;
  DeviceBuffer<CellTransitions<std::int16_t>> vit_transitions_;
  DeviceBuffer<float> cell_match_, cell_transitions_;  // the Forward odds: cell_odds()
  DeviceBuffer<float> forward_specials_, backward_specials_, posteriors_;
  DeviceBuffer<float> kept_forward_;           // the Forward filter's rows' specials
  std::vector<std::int64_t> kept_forward_at_;  // per loaded target: where, or -1
  DeviceBuffer<std::uint8_t> own_scales_;
  bool envelope_profile_ready_ = false;
  DeviceBuffer<float> env_transitions_, env_match_, env_rows_, env_specials_;
  DeviceBuffer<TraceStep> env_steps_;
  DeviceBuffer<EnvelopeScores> env_scores_;
  DeviceBuffer<float> region_usage_;  // usage scratch, then the null2 sums
  DeviceBuffer<int> region_used_, region_results_;
  DeviceBuffer<SampledPair> region_pairs_;
  DeviceBuffer<BatchTarget> region_entries_;            // region_forward_matrices()'s inputs
  DeviceBuffer<std::uint64_t> region_special_offsets_;
  // A batch's inputs, reused from batch to batch (upload_reusing: every
  // batch ends with the stream's synchronize, so no kernel still reads
  // them). A buffer made and freed per batch cost a cudaMalloc and a
  // cudaFree, which waits for the whole device: the other engines' work too.
  DeviceBuffer<std::uint64_t> kept_forward_offsets_;  // the Forward filter's rows' specials, per target
  DeviceBuffer<RegionJob> region_jobs_;
  struct EnvelopeInputs {
    DeviceBuffer<EnvelopeJob> jobs;
    DeviceBuffer<RegionJob> forward_spans, backward_spans;
    DeviceBuffer<BatchTarget> entries;
    DeviceBuffer<SpecialOdds> specials;
    DeviceBuffer<std::uint64_t> forward_x, backward_x;
  } envelope_inputs_;
  struct DomainInputs {
    DeviceBuffer<BatchTarget> entries;
    DeviceBuffer<std::uint32_t> targets;
    DeviceBuffer<SpecialOdds> specials;
    DeviceBuffer<std::uint64_t> offsets, forward_at;
  } domain_inputs_;
};

}  // namespace

std::unique_ptr<HmmEngine> make_gpu_engine(int device, bool warp_msv, int engines_on_device) {
  return std::make_unique<GpuEngine>(device, warp_msv, engines_on_device);
}

}  // namespace helix::hmmsearch
