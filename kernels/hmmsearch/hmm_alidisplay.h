// hmm_alidisplay.h: one domain's alignment as hmmsearch 3.3.2 shows it
// (HMMER's P7_ALIDISPLAY): built from the domain's optimal-accuracy trace,
// and printed in blocks under the domain table.
//
// Contents: make_alignment_display(), encode_posterior(),
//           alignment_display_text(), append_alignment_display_text().
//
// What the lines hold (one character per trace step, from the domain's
// first match state to its last, so a display starts and ends on M):
//   model  the consensus residue of the node ('.' on an insert), as the
//          model file writes it: upper case where the node is conserved
//   mline  the residue itself where it equals the consensus (in the
//          consensus' case), '+' where its match odds are above 1, else ' '
//   aseq   the target: matched residues upper case, inserted ones lower
//          case, '-' for a deletion
//   ppline the residue's posterior probability, '0'..'9' then '*' ('.' on a
//          deletion)
//   rfline, csline  the model's RF and CS annotation ('.' on an insert),
//          only when the model has them. HMMER 3.3.2 never shows its MM line.
#pragma once
#include <cstdint>
#include <string>

#include "hmm_domains.h"
#include "hmm_dp.h"
#include "hmm_profile.h"

namespace helix::hmmsearch {

// The display of domain `which` (0 = the first B..E segment) of `trace`, a
// trace whose residue indices i are 1..L in the whole target `codes`
// (codes[i - 1]) and whose pp holds each residue's posterior. The model's
// consensus (and RF/CS, where present) come from `profile`. Throws
// std::invalid_argument when the trace has no such domain, the domain has no
// match state, or a step between its first and last match is not M, D or I.
AlignmentDisplay make_alignment_display(const Trace& trace, const SearchProfile& profile,
                                        const std::uint8_t* codes, int L, int which = 0);

// A posterior probability as one display character: '0' below 0.05, then
// one digit per tenth, '*' from 0.95 on.
char encode_posterior(float p);

// The display in blocks as hmmsearch prints it: each block's CS and RF
// lines, the model line with its node range, the mline, the target line with
// its residue range ("-" when the block has no residue), the PP line; a blank
// line between blocks. `linewidth` (hmmsearch --textw, 120 by default; 0 =
// one block) bounds a line, names and coordinates included, but every block
// holds at least `min_width` columns. The names shown are the model's and
// the target's.
std::string alignment_display_text(const AlignmentDisplay& display, const std::string& model_name,
                                   const std::string& target_name, int linewidth = 120, int min_width = 40);
// The same appended to `text` (a report's alignments, without a copy each).
void append_alignment_display_text(std::string& text, const AlignmentDisplay& display, const std::string& model_name,
                                   const std::string& target_name, int linewidth = 120, int min_width = 40);

}  // namespace helix::hmmsearch
