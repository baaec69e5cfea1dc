// sequence_set.h: encoded sequences back to back in one array, with where
// each starts: the layout in which the sequence kinds hold their targets
// (swsearch's database chunk and its blocks, hmmsearch's blocks of targets),
// search them on the CPU, and upload them to the GPU as two arrays that a
// kernel indexes by sequence (its residues at residues + offsets[t]).
//
// Contents:
//   SequenceSet   residues back to back, offsets[t] where sequence t starts;
//                 size(), length(), begin() / end(), append(), slice()
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace helix {

// Sequences of residue codes, each kind's own alphabet (swsearch's matrix
// order, hmmsearch's digital codes), back to back: sequence t is
// residues[offsets[t] .. offsets[t + 1]). offsets has size() + 1 entries,
// offsets[0] = 0, never decreasing.
struct SequenceSet {
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};

  // How many sequences.
  std::size_t size() const { return offsets.size() - 1; }
  // Residues of sequence t (t < size()).
  std::size_t length(std::size_t t) const { return offsets[t + 1] - offsets[t]; }
  // Sequence t's first residue, and one past its last.
  const std::uint8_t* begin(std::size_t t) const { return residues.data() + offsets[t]; }
  const std::uint8_t* end(std::size_t t) const { return residues.data() + offsets[t + 1]; }

  // Adds `sequence` as the last sequence.
  void append(const std::vector<std::uint8_t>& sequence) {
    residues.insert(residues.end(), sequence.begin(), sequence.end());
    offsets.push_back(residues.size());
  }
  // Sequences [first, first + count) (first + count <= size()) as a set of
  // their own, offsets from 0.
  SequenceSet slice(std::size_t first, std::size_t count) const {
    SequenceSet part;
    part.residues.assign(begin(first), residues.data() + offsets[first + count]);
    part.offsets.reserve(count + 1);
    for (std::size_t k = 1; k <= count; ++k) part.offsets.push_back(offsets[first + k] - offsets[first]);
    return part;
  }
};

}  // namespace helix
