// hmm_search.h: one profile against one chunk of targets, all of hmmsearch's
// per-target work: the filter pipeline (hmm_pipeline.h), then, for the
// targets that passed Forward, domain definition (whole-target posteriors,
// region sampling and envelope rescoring on the engine, the rest on the
// host: hmm_domains.h) and their report records (hmm_report.h).
#pragma once
#include <vector>

#include "hmm_domains.h"
#include "hmm_engine.h"
#include "hmm_pipeline.h"
#include "hmm_report.h"

namespace helix::hmmsearch {

// Domain definition of the targets that passed Forward, as the app runs it
// for a block: whole-target posteriors, the sampling of every multi-domain
// region and every envelope's rescoring on the engine (each for the whole
// block in one call); regions, clustering and the domains' records on the
// host. passed[p] is a loaded target's index; its
// residues are targets[first + passed[p]]. `host_threads` share the host's
// part target by target; the result does not depend on their number.
std::vector<DomainDefinition> define_passed_domains(const SearchProfile& profile,
                                                    const std::vector<TargetSequence>& targets, std::size_t first,
                                                    const std::vector<std::uint32_t>& passed, HmmEngine& engine,
                                                    int host_threads = 1);

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
