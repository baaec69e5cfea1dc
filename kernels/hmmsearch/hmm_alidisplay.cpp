#include "hmm_alidisplay.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "core/text_format.h"

namespace helix::hmmsearch {

namespace {

// The trace steps a domain's display covers: its first through last M.
struct DisplaySpan {
  int first = -1, last = -1;
};

DisplaySpan domain_span(const Trace& trace, int which) {
  int z = 0;
  for (int seen = -1; z < trace.size(); ++z)  // just past the which-th B
    if (trace.state[z] == kTraceB && ++seen == which) break;
  if (z >= trace.size()) throw std::invalid_argument("alignment display: the trace has no domain " + std::to_string(which));
  DisplaySpan span;
  for (; z < trace.size() && trace.state[z] != kTraceE; ++z)
    if (trace.state[z] == kTraceM) {
      if (span.first < 0) span.first = z;
      span.last = z;
    }
  if (span.first < 0) throw std::invalid_argument("alignment display: domain " + std::to_string(which) + " has no match state");
  return span;
}

// Easel's digital code of a symbol, either case (-1 for none): the
// consensus may be lower case where the node is weakly conserved. A table,
// since every match step of every displayed domain asks.
int symbol_code(char symbol) {
  static const std::array<int, 256> codes = [] {
    std::array<int, 256> table;
    table.fill(-1);
    for (int c = 1; c < 256; ++c) {
      const char* found = std::strchr(kSymbols, std::toupper(c));
      if (found != nullptr) table[c] = static_cast<int>(found - kSymbols);
    }
    return table;
  }();
  return codes[static_cast<unsigned char>(symbol)];
}

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// A node's annotation character on a model line, '.' on an insert.
void add_annotation(std::string& line, const std::string& annotation, std::uint8_t state, int k) {
  if (!annotation.empty()) line += state == kTraceI ? '.' : annotation[k];
}

}  // namespace

char encode_posterior(float p) {
  // In double, as HMMER rounds it: p + 0.05 decides the digit.
  return p + 0.05 >= 1.0 ? '*' : static_cast<char>(static_cast<char>((p + 0.05) * 10.0) + '0');
}

AlignmentDisplay make_alignment_display(const Trace& trace, const SearchProfile& profile,
                                        const std::uint8_t* codes, int L, int which) {
  const DisplaySpan span = domain_span(trace, which);
  if (static_cast<int>(profile.consensus.size()) != profile.M + 1)
    throw std::invalid_argument("alignment display: the profile carries no consensus line");
  AlignmentDisplay display;
  display.hmmfrom = trace.k[span.first], display.hmmto = trace.k[span.last], display.M = profile.M;
  display.sqfrom = trace.i[span.first], display.sqto = trace.i[span.last], display.L = L;
  const bool has_posteriors = static_cast<int>(trace.pp.size()) == trace.size();
  // Each line gets one character a step: sized once, not grown as it goes.
  const std::size_t steps = static_cast<std::size_t>(span.last - span.first + 1);
  for (std::string* line : {&display.model, &display.mline, &display.aseq}) line->reserve(steps);
  if (has_posteriors) display.ppline.reserve(steps);
  for (int z = span.first; z <= span.last; ++z) {
    const std::uint8_t state = trace.state[z];
    const int k = trace.k[z], i = trace.i[z];
    if ((state != kTraceM && state != kTraceD && state != kTraceI) || k < 0 || k > profile.M || i < 0 || i > L)
      throw std::invalid_argument("alignment display: trace step " + std::to_string(z) + " is not a valid M, D or I");
    add_annotation(display.rfline, profile.reference, state, k);
    add_annotation(display.csline, profile.structure, state, k);
    if (has_posteriors) display.ppline += state == kTraceD ? '.' : encode_posterior(trace.pp[z]);
    if (state == kTraceI) {
      display.model += '.', display.mline += ' ', display.aseq += lower(kSymbols[codes[i - 1]]);
      continue;
    }
    const char consensus = profile.consensus[k];
    display.model += consensus;
    if (state == kTraceD) {
      display.mline += ' ', display.aseq += '-';
      continue;
    }
    const int x = codes[i - 1];
    if (x == symbol_code(consensus)) display.mline += consensus;
    else if (profile.fwd_match[static_cast<std::size_t>(x) * profile.M + k - 1] > 1.0f) display.mline += '+';
    else display.mline += ' ';
    display.aseq += upper(kSymbols[x]);
  }
  return display;
}

namespace {

int decimal_width(long n) {
  int width = n < 0 ? 1 : 0;
  for (; n != 0; n /= 10) ++width;
  return width;
}

// A model or target line: the name right-aligned, the first position
// right-aligned, the block, the last position left-aligned.
void append_coordinate_line(std::string& out, const std::string& name, int namewidth, std::string_view from,
                            std::string_view block, std::string_view to, int coordwidth) {
  out += "  ";
  append_right_aligned(out, name, namewidth);
  out += ' ';
  append_right_aligned(out, from, coordwidth);
  out += ' ';
  out += block;
  out += ' ';
  append_left_aligned(out, to, coordwidth);
  out += '\n';
}

// An annotation or middle line: indented to the alignment's column.
void append_plain_line(std::string& out, int indent, std::string_view text, const char* tag) {
  out += "  ";
  out.append(static_cast<std::size_t>(indent), ' ');
  out += ' ';
  out += text;
  out += tag;
  out += '\n';
}

}  // namespace

std::string alignment_display_text(const AlignmentDisplay& display, const std::string& model_name,
                                   const std::string& target_name, int linewidth, int min_width) {
  std::string text;
  append_alignment_display_text(text, display, model_name, target_name, linewidth, min_width);
  return text;
}

void append_alignment_display_text(std::string& text, const AlignmentDisplay& display, const std::string& model_name,
                                   const std::string& target_name, int linewidth, int min_width) {
  const int N = static_cast<int>(display.model.size());
  const int namewidth = static_cast<int>(std::max(model_name.size(), target_name.size()));
  const int coordwidth = std::max(std::max(decimal_width(display.hmmfrom), decimal_width(display.hmmto)),
                                  std::max(decimal_width(display.sqfrom), decimal_width(display.sqto)));
  int width = linewidth > 0 ? linewidth - namewidth - 2 * coordwidth - 5 : N;
  if (width < N && width < min_width) width = min_width;  // a narrow --textw still gets min_width columns
  if (width < 1) width = 1;
  const int indent = namewidth + coordwidth + 1;
  long k1 = display.hmmfrom, i1 = display.sqfrom;
  const bool forward = display.sqfrom < display.sqto;
  for (int pos = 0; pos < N; pos += width) {
    if (pos > 0) text += "\n";
    auto block = [&](const std::string& line) { return std::string_view(line).substr(line.empty() ? 0 : pos, width); };
    const std::string_view model = block(display.model), aseq = block(display.aseq);
    const long nk = static_cast<long>(model.size() - std::count(model.begin(), model.end(), '.'));
    const long ni = static_cast<long>(aseq.size() - std::count(aseq.begin(), aseq.end(), '-'));
    const long k2 = k1 + nk - 1, i2 = forward ? i1 + ni - 1 : i1 - ni + 1;
    if (!display.csline.empty()) append_plain_line(text, indent, block(display.csline), " CS");
    if (!display.rfline.empty()) append_plain_line(text, indent, block(display.rfline), " RF");
    if (!display.mmline.empty()) append_plain_line(text, indent, block(display.mmline), " MM");
    append_coordinate_line(text, model_name, namewidth, std::to_string(k1), model, std::to_string(k2), coordwidth);
    append_plain_line(text, indent, block(display.mline), "");
    if (ni > 0) {
      append_coordinate_line(text, target_name, namewidth, std::to_string(i1), aseq, std::to_string(i2), coordwidth);
    } else {  // a block of deletions only: no residue range, both dashes right-aligned
      const std::string dash = std::string(static_cast<std::size_t>(std::max(coordwidth - 1, 0)), ' ') + "-";
      append_coordinate_line(text, target_name, namewidth, "-", aseq, dash, coordwidth);
    }
    if (!display.ppline.empty()) append_plain_line(text, indent, block(display.ppline), " PP");
    k1 += nk;
    i1 = forward ? i1 + ni : i1 - ni;
  }
}

}  // namespace helix::hmmsearch
