// hmm_field_text.h: the exact text of hmmsearch results' numbers and of a
// target's domain definition, field by field. One list of fields serves the
// "scores" and "domains" files, the checkpoint and the exact comparisons, so
// that equal texts are equal values. Internal to the kind's app library (the
// job's files, state and checks); other code reads hmm_result_files.h.
//
// Contents:
//   hex_float()                                  a number as C99 %a (exact; one text per value but NaN's)
//   canonical_integer(), canonical_double(), canonical_float()   a field read back, refused unless written so
//   kTargetFieldNames, kDomainFieldNames         the "domains" file's field names after profile and target_ordinal
//   target_fields(), domain_fields()             a target's and a domain's fields as text
//   target_domains_of(), domain_hit_of()         fields back (canonical text only; InputError naming `where`)
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_domains.h"
#include "hmm_target_domains.h"

namespace helix::hmmsearch {

std::string hex_float(double value);

// A decimal integer written as std::to_string writes it, at most `high`;
// InputError "<what> '<text>' ..." otherwise.
std::uint64_t canonical_integer(const std::string& text, std::uint64_t high, const std::string& what);
// A number written as hex_float writes it (so equal values are equal text).
double canonical_double(const std::string& text, const std::string& what);
// The same, and a float's value.
float canonical_float(const std::string& text, const std::string& what);

extern const std::vector<std::string> kTargetFieldNames;
extern const std::vector<std::string> kDomainFieldNames;

std::vector<std::string> target_fields(const TargetDomains& d);
// Domain number `index` (from 0) of its target.
std::vector<std::string> domain_fields(const DomainHit& h, std::size_t index);

// Fields of a target line (after profile and target_ordinal); domains sized
// by its count, to be filled by domain_hit_of. Canonical text only.
TargetDomains target_domains_of(const std::vector<std::string>& f, const std::string& where);
DomainHit domain_hit_of(const std::vector<std::string>& f, const std::string& where);

}  // namespace helix::hmmsearch
