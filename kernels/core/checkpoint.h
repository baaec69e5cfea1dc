// checkpoint.h: what every kind's checkpoint shares: the envelope around its
// state, and the tail of a block of its checkpointed loop.
//
// Contents:
//   begin_checkpoint()            a ByteWriter holding the envelope; the kind appends its payload
//   open_checkpoint()             a ByteReader at the payload, or nothing for another WU's state
//   read_checkpoint()             open_checkpoint() and the kind's payload decoder, false on any mismatch or damage
//   checkpoint_block_boundary()   after a block: save when due or asked to stop, then stop if asked
//
// The envelope, little-endian (byte_codec.h):
//   8 bytes magic (the kind's state format and version, e.g. "HXHMST02") |
//   u64 fingerprint length | fingerprint bytes | the kind's payload.
// The fingerprint is the kind's text of what the state belongs to (its WU's
// params JSON, and for some kinds the inputs' sizes): a checkpoint is resumed
// only by the WU that wrote it; anything else starts afresh.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "byte_codec.h"
#include "errors.h"
#include "runtime.h"

namespace helix {

// Fingerprints longer than this are refused when reading (a damaged length).
constexpr std::size_t kMaxCheckpointFingerprint = 1 << 20;

// A writer holding `magic` and `fingerprint`; append the payload, then save
// its bytes(). Never throws but for memory.
ByteWriter begin_checkpoint(const char (&magic)[8], const std::string& fingerprint);

// A reader of `bytes` positioned at the payload, or nullopt when the bytes do
// not start with `magic` and `fingerprint` (another kind's, format's or WU's
// state, or a truncated envelope). The reader refers to `bytes`, which must
// outlive it. Never throws InputError.
std::optional<ByteReader> open_checkpoint(const std::vector<std::uint8_t>& bytes, const char (&magic)[8],
                                          const std::string& fingerprint);

// open_checkpoint(), then decode_payload(ByteReader&) -> bool on the payload.
// Returns false when the envelope is not this WU's, when decode_payload
// returns false, or when it throws InputError (a truncated or damaged
// payload: ByteReader's short reads, zstd's errors). decode_payload should
// change the caller's state only once it has read everything, when the caller
// keeps its state on false.
template <typename DecodePayload>
bool read_checkpoint(const std::vector<std::uint8_t>& bytes, const char (&magic)[8], const std::string& fingerprint,
                     DecodePayload&& decode_payload) {
  try {
    std::optional<ByteReader> payload = open_checkpoint(bytes, magic, fingerprint);
    return payload && decode_payload(*payload);
  } catch (const InputError&) {
    return false;
  }
}

// The tail of one block of a checkpointed loop, once the block's results are
// in the state (and its progress reported): when the client asks the task to
// stop, or a checkpoint is due, saves encode_state() (called only then); then,
// when asked to stop, throws StopRequested. A restart resumes after this block.
template <typename EncodeState>
void checkpoint_block_boundary(Runtime& runtime, EncodeState&& encode_state) {
  const bool stop = runtime.should_stop();
  if (stop || runtime.checkpoint_due()) runtime.save_state(encode_state());
  if (stop) throw StopRequested();
}

}  // namespace helix
