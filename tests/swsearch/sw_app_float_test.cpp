// sw_app_float_test.cpp: the app computes E-values as the server does, down to
// subnormal doubles. Debian's libboinc_api.so.7 sets flush-to-zero when it is
// loaded (core/float_environment.h); the app clears it again. Without that, a
// hit whose E-value is subnormal printed 0.000e+00 and the validator, which
// recomputes in IEEE mode, rejected a correct result (found on a real
// metastudent-data chunk, hit score 2,726); and the validator itself refused
// to read a subnormal back.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "sw_job.h"
#include "sw_server.h"
#include "sw_statistics.h"

namespace helix::swsearch {
namespace {

namespace fs = std::filesystem;

const char* app_binary() {
  const char* from_environment = std::getenv("HELIX_APP_BINARY");
  return from_environment ? from_environment : HELIX_APP_BINARY;
}

std::string data_path(const char* variable, const char* fallback, const char* file) {
  const char* dir = std::getenv(variable);
  return std::string(dir ? dir : fallback) + "/" + file;
}

TEST(SwApp, SubnormalEvaluesArePrintedAsTheServerComputesThem) {
  const std::string blosum62 = data_path("HELIX_NCBI_DATA", "/usr/share/ncbi/data", "BLOSUM62");
  const std::string globins = data_path("HELIX_HMMER_EXAMPLES", "/usr/share/doc/hmmer/examples/tutorial", "globins45.fa");
  if (!fs::exists(blosum62) || !fs::exists(globins)) GTEST_SKIP() << "ncbi-data or hmmer-examples not installed";
  const ScoreMatrix matrix = read_ncbi_matrix(blosum62);
  const KarlinAltschul ka = karlin_altschul("BLOSUM62", GapPenalties{});

  // The query: real globins back to back, cut where its score against itself
  // (the sum of the diagonal) puts the self hit's E-value among the subnormals.
  const std::vector<FastaRecord> records = parse_fasta(read_file_text(globins), "globins45.fa");
  const std::uint64_t database_residues = 100000;
  FastaRecord query{"subnormal_query", "", {}};
  int self_score = 0;
  for (const FastaRecord& record : records)
    for (std::uint8_t code : record.residues)
      if (query.residues.empty() || evalue(ka, self_score, query.residues.size(), database_residues) > 1e-312) {
        query.residues.push_back(code);
        self_score += matrix.score[code][code];
      }
  const double expected = evalue(ka, self_score, query.residues.size(), database_residues);
  ASSERT_GT(expected, 0.0);
  ASSERT_LT(expected, std::numeric_limits<double>::min()) << "the test needs a subnormal E-value";

  const fs::path slot = fs::temp_directory_path() / ("sw_app_float_" + std::to_string(getpid()));
  fs::remove_all(slot);
  fs::create_directories(slot);
  write_file_atomic((slot / "database").string(), encode_chunk(make_chunk({query}, {0})));
  write_file_atomic((slot / "queries").string(), ">" + query.id + "\n" + decode_protein(query.residues) + "\n");
  fs::copy_file(blosum62, slot / "matrix");
  const nlohmann::json params = {{"kind", "swsearch"},      {"matrix_name", "BLOSUM62"}, {"gap_open", 12},
                                 {"gap_extend", 1},         {"top_hits", 1},             {"alignments", 1},
                                 {"database_residues", database_residues}, {"database_sequences", 100}};
  write_file_atomic((slot / "params").string(), params.dump());
  const std::string command = "cd '" + slot.string() + "' && '" + app_binary() + "' --cpu";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_file_text((slot / "stderr.txt").string());

  const auto rows = parse_hits_tsv(read_file_text((slot / "hits").string()));
  ASSERT_EQ(rows.size(), 1u);
  char printed[32];
  std::snprintf(printed, sizeof printed, "%.3e", expected);
  EXPECT_EQ(rows[0][2], std::to_string(self_score));
  EXPECT_EQ(rows[0][4], printed);
  // The validator reads the subnormal back (strtod's ERANGE is no error here)
  // and finds it equal to its own.
  const CheckOutcome checked = check_sw_result({(slot / "hits").string(), (slot / "summary").string()}, {});
  EXPECT_EQ(checked.verdict, Verdict::kValid) << checked.reason;
  fs::remove_all(slot);
}

}  // namespace
}  // namespace helix::swsearch
