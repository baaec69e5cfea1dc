// hmm_state.cpp: the hmmsearch job's checkpoint state, encoded and decoded
// (hmm_state.h).
#include "hmm_state.h"

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/checkpoint.h"
#include "hmm_field_text.h"

namespace helix::hmmsearch {
namespace {

// 02: part 2's state (each passed target's domain definition saved with it).
constexpr char kStateMagic[8] = {'H', 'X', 'H', 'M', 'S', 'T', '0', '2'};

void put_counts(ByteWriter& w, const PipelineCounts& c) {
  for (std::uint64_t v : {c.targets, c.residues, c.past_msv, c.past_bias, c.past_viterbi, c.past_forward})
    w.put<std::uint64_t>(v);
}
PipelineCounts get_counts(ByteReader& r) {
  PipelineCounts c;
  for (std::uint64_t* v : {&c.targets, &c.residues, &c.past_msv, &c.past_bias, &c.past_viterbi, &c.past_forward})
    *v = r.get<std::uint64_t>();
  return c;
}

void put_passed(ByteWriter& w, const PassedTarget& t) {
  w.put<std::uint32_t>(t.target);
  for (float v : {t.msv_nats, t.filter_nats, t.viterbi_nats, t.forward_nats, t.null_nats, t.score_bits}) w.put<float>(v);
  w.put<double>(t.ln_p);
  w.put<std::uint8_t>(t.viterbi_run), w.put<std::uint8_t>(t.reported);
}
PassedTarget get_passed(ByteReader& r) {
  PassedTarget t;
  t.target = r.get<std::uint32_t>();
  for (float* v : {&t.msv_nats, &t.filter_nats, &t.viterbi_nats, &t.forward_nats, &t.null_nats, &t.score_bits})
    *v = r.get<float>();
  t.ln_p = r.get<double>();
  t.viterbi_run = r.get<std::uint8_t>() != 0;
  t.reported = r.get<std::uint8_t>() != 0;
  return t;
}

// A target's domain definition in the checkpoint: the "domains" file's
// fields (exact text), so that one encoding serves both.
void put_domains(ByteWriter& w, const TargetDomains& d) {
  for (const std::string& field : target_fields(d)) w.put_string(field);
  for (std::size_t k = 0; k < d.definition.domains.size(); ++k)
    for (const std::string& field : domain_fields(d.definition.domains[k], k)) w.put_string(field);
}

std::vector<std::string> get_fields(ByteReader& r, std::size_t count) {
  std::vector<std::string> fields;
  for (std::size_t k = 0; k < count; ++k) fields.push_back(r.get_string(1 << 24));
  return fields;
}

TargetDomains get_domains(ByteReader& r) {
  TargetDomains d = target_domains_of(get_fields(r, kTargetFieldNames.size()), "checkpoint");
  for (DomainHit& hit : d.definition.domains) hit = domain_hit_of(get_fields(r, kDomainFieldNames.size()), "checkpoint");
  return d;
}

}  // namespace

std::string state_fingerprint(const HmmParams& params) { return hmm_params_json(params).dump(); }

std::vector<std::uint8_t> encode_state(const JobState& state, const std::string& print) {
  ByteWriter w = begin_checkpoint(kStateMagic, print);
  w.put<std::uint32_t>(state.next_block);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(state.profiles.size()));
  for (const ProfileState& profile : state.profiles) {
    put_counts(w, profile.counts);
    w.put<std::uint64_t>(profile.passed.size());
    for (std::size_t k = 0; k < profile.passed.size(); ++k) {
      put_passed(w, profile.passed[k]);
      put_domains(w, profile.domains[k]);
    }
  }
  return std::move(w.bytes());
}

bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& print, const HmmParams& params,
                  std::uint32_t blocks, JobState& state) {
  return read_checkpoint(bytes, kStateMagic, print, [&](ByteReader& r) {
    JobState loaded;
    loaded.next_block = r.get<std::uint32_t>();
    if (loaded.next_block > blocks || r.get<std::uint32_t>() != params.profile_count) return false;
    loaded.profiles.resize(params.profile_count);
    for (ProfileState& profile : loaded.profiles) {
      profile.counts = get_counts(r);
      const auto n = r.get<std::uint64_t>();
      if (n > params.chunk_targets) return false;
      for (std::uint64_t k = 0; k < n; ++k) {
        profile.passed.push_back(get_passed(r));
        if (profile.passed.back().target >= params.chunk_targets) return false;
        profile.domains.push_back(get_domains(r));
      }
    }
    if (r.remaining() != 0) return false;
    state = std::move(loaded);
    return true;
  });
}

}  // namespace helix::hmmsearch
