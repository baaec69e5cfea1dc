// hmm_search.h: one profile against one chunk of targets, all of hmmsearch's
// per-target work: the filter pipeline (hmm_pipeline.h), then, for the
// targets that passed Forward, domain definition (whole-target posteriors,
// region sampling and envelope rescoring on the engine, the rest on the
// host: hmm_domains.h) and their report records (hmm_report.h); the chunk's
// longest targets optionally on a second engine at once (search_and_define).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/phase_clock.h"
#include "hmm_domains.h"
#include "hmm_engine.h"
#include "hmm_pipeline.h"
#include "hmm_report.h"

namespace helix::hmmsearch {

// Domain definition of the targets that passed Forward, as the app runs it
// for a block: whole-target posteriors, the sampling of every multi-domain
// region and every envelope's rescoring on the engine (each for the whole
// block in one call); regions, clustering and the domains' records on the
// host. passed[p] is a loaded target's index (the engine's); its residues
// are *passed_targets[p]. `host_threads` share the host's part target by
// target; the result does not depend on their number.
std::vector<DomainDefinition> define_passed_domains(const SearchProfile& profile,
                                                    const std::vector<const TargetSequence*>& passed_targets,
                                                    const std::vector<std::uint32_t>& passed, HmmEngine& engine,
                                                    int host_threads = 1);

// Targets this long or longer are a chunk's long leg (ChunkLegs): on the GPU
// each gets a block of warps (hmm_gpu_domains.h's kLongEntryResidues), whose
// Forward and Backward rows run one after another, a row at a time: titin's
// take longer than the rest of a chunk's whole search for most profiles.
constexpr std::size_t kLongLegResidues = 2000;

// A chunk's targets (targets[first, first + count)) in two legs, searched
// at once on two engines (search_and_define()): the long targets and the
// rest. Indices are the chunk's (0 .. count-1), ascending.
struct ChunkLegs {
  std::size_t first = 0, count = 0;
  std::vector<std::uint32_t> rest, longest;
  SequenceSet rest_targets, long_targets;  // their residues: what each leg's engine loads
};
// Without `split` (or when every target is long) all are in the rest: one
// engine searches them all.
ChunkLegs split_chunk(const std::vector<TargetSequence>& targets, std::size_t first, std::size_t count, bool split);

// One profile's search of a chunk: the filters (search_chunk) and the
// passed targets' domain definition (define_passed_domains). `engine` holds
// legs.rest_targets; with a long leg, `long_engine` holds legs.long_targets
// and searches them on a host thread of its own while `engine` searches the
// rest (a long target's rows then overlap the rest's whole search instead
// of following it). Targets are the chunk's indices, passed in target
// order, Z the chunk's size unless options set it: the same result, bit for
// bit, as one engine holding the whole chunk. Loads the profile into both.
// Throws std::invalid_argument for a long leg without a long engine.
struct ProfileSearch {
  ChunkSearch search;
  std::vector<DomainDefinition> definitions;  // of search.passed, in its order
  PhaseTime filters, domains;                 // added over the legs' threads
};
ProfileSearch search_and_define(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                const ChunkLegs& legs, HmmEngine& engine, HmmEngine* long_engine,
                                const PipelineOptions& options, int host_threads = 1);

// The ReportTargets hmmsearch keeps of the passed targets of a search of
// targets[first, ...) given their domain definitions (search_and_define()):
// those that kept a domain and whose E-value (over Z = options.database_sequences,
// or `chunk_size`) is <= options.report_evalue.
std::vector<ReportTarget> report_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      std::size_t first, const ChunkSearch& search,
                                      std::vector<DomainDefinition> definitions, const PipelineOptions& options,
                                      std::size_t chunk_size, int host_threads = 1);

// The ReportTargets hmmsearch keeps in its hit list for the targets of
// `search` that passed Forward: those whose domain definition kept a domain
// and whose E-value (over Z = options.database_sequences, or the chunk's
// size) is <= options.report_evalue. `targets` are the chunk's sequences (for
// names); `engine` holds the chunk and the profile. `host_threads` share the
// host's part target by target; each target's result does not depend on
// which thread defines it (the sampling generator is reseeded per region).
std::vector<ReportTarget> domain_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      const ChunkSearch& search, HmmEngine& engine, const PipelineOptions& options,
                                      int host_threads = 1);

}  // namespace helix::hmmsearch
