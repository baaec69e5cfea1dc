// sw_workunit_test.cpp: `helix-wu swsearch make` on globins45.fa: chunks in
// FASTA order sharing one file per chunk, whole-database totals in every WU,
// the cost estimate, and bad input refused with nothing written.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "server_test_util.h"
#include "sw_test_util.h"
#include "workunit_writer.h"
#include "swsearch/sw_server.h"
#include "swsearch/sw_summary.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

std::uint64_t residues_of(const std::vector<swsearch::FastaRecord>& records) {
  std::uint64_t total = 0;
  for (const auto& r : records) total += r.residues.size();
  return total;
}

TEST(SwWorkunit, OneWuPerBatchAndChunkWithWholeDatabaseTotals) {
  SKIP_WITHOUT_SW_DATA();
  const std::string dir = scratch_dir("sw_wu"), out = dir + "/out";
  const auto database = swsearch::parse_fasta(read_file_text(kGlobins), "globins");
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 3),
                              "--chunk-residues", "2300", "--queries-per-wu", "2", "--name", "gl", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(database.size(), 45u);
  ASSERT_EQ(run.specs.size(), 2u * 3u);  // batches {0,1}, {2}; chunks of <= 2300 residues
  EXPECT_EQ(run.specs[0].name, "gl_b0_c0");
  EXPECT_EQ(run.specs[5].name, "gl_b1_c2");
  std::uint64_t ordinal = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    const WorkunitSpec& spec = run.specs[c];
    ASSERT_EQ(spec.inputs.size(), 4u);
    EXPECT_EQ(spec.inputs[0].first, "params");
    EXPECT_EQ(spec.inputs[3].second, out + "/gl.chunk_" + std::to_string(c) + ".hxsw");
    EXPECT_EQ(run.specs[3 + c].inputs[3].second, spec.inputs[3].second);  // shared by both batches
    EXPECT_EQ(spec.inputs[1].second, out + "/gl.BLOSUM62");
    EXPECT_EQ(spec.outputs, (std::vector<std::string>{"hits", "summary"}));
    const auto params = swsearch::parse_sw_params(nlohmann::json::parse(read_file_text(spec.inputs[0].second)));
    EXPECT_EQ(params.search, "gl");  // the report finds a search's stored chunks by it
    EXPECT_EQ(params.database_residues, residues_of(database));
    EXPECT_EQ(params.database_sequences, 45u);
    EXPECT_EQ(params.gaps.open, 12);
    EXPECT_EQ(params.gaps.extend, 1);
    EXPECT_EQ(params.block_targets, 65536u);  // the app's default: one block for most chunks
    const auto chunk = swsearch::decode_chunk(read_file_bytes(spec.inputs[3].second), params.database_residues);
    EXPECT_LE(chunk.targets.residues.size(), 2300u);
    // Chunks hold consecutive FASTA records: ordinals continue from the last chunk's.
    std::vector<std::uint64_t> ordinals = chunk.ordinals;
    std::sort(ordinals.begin(), ordinals.end());
    for (std::uint64_t o : ordinals) {
      EXPECT_EQ(o, ordinal);
      EXPECT_EQ(chunk.ids[std::find(chunk.ordinals.begin(), chunk.ordinals.end(), o) - chunk.ordinals.begin()],
                database[o].id);
      ++ordinal;
    }
    const double query_residues = database[0].residues.size() + database[1].residues.size();
    EXPECT_DOUBLE_EQ(spec.fpops_estimate, query_residues * chunk.targets.residues.size() * swsearch::kOpsPerCell);
    EXPECT_DOUBLE_EQ(spec.fpops_bound, 20 * spec.fpops_estimate);
    EXPECT_TRUE(fs::exists(out + "/" + spec.name + ".wu_template.xml"));
  }
  EXPECT_EQ(ordinal, 45u);
  const auto queries = swsearch::parse_fasta(read_file_text(run.specs[3].inputs[2].second), "batch 1");
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0].id, database[2].id);
}

// Job size matching (core/size_class.h): the GPU class's defaults put more
// queries (and 10 x the residues) in a WU, an explicit size option still wins,
// the class goes on create_work's command line, and nothing the app, the
// validator or the assimilator reads changes with it.
TEST(SwWorkunit, SizeClassesSetTheDefaultsAndMarkTheWorkUnits) {
  SKIP_WITHOUT_SW_DATA();
  const std::string dir = scratch_dir("sw_wu_class"), queries = globin_queries(dir, 200);
  auto make = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"swsearch", "make", "--db", kGlobins, "--queries", queries,
                                  "--name", "gl", "--out", dir + "/" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_sw_wu(args);
  };
  const WuRun none = make("none", {}), cpu = make("cpu", {"--size-class", "cpu"});
  const WuRun gpu = make("gpu", {"--size-class", "gpu"});
  const WuRun sized = make("sized", {"--size-class", "GPU", "--queries-per-wu", "16", "--chunk-residues", "2300"});
  ASSERT_EQ(none.error + cpu.error + gpu.error + sized.error, "");
  EXPECT_EQ(none.specs.size(), 3u);  // 200 queries, 96 a WU, one chunk of 6,519 residues
  ASSERT_EQ(cpu.specs.size(), 3u);
  EXPECT_EQ(gpu.specs.size(), 1u);          // 4,096 a WU
  EXPECT_EQ(sized.specs.size(), 13u * 3u);  // the explicit sizes: 16 queries a WU, three chunks
  for (const auto& spec : none.specs) EXPECT_EQ(spec.size_class, -1);
  for (const auto& spec : cpu.specs) EXPECT_EQ(spec.size_class, 0);
  for (const auto& spec : gpu.specs) EXPECT_EQ(spec.size_class, 1);
  for (const auto& spec : sized.specs) EXPECT_EQ(spec.size_class, 1);
  const std::string gpu_script = read_file_text(dir + "/gpu/gl_b0_c0.create_work.sh");
  EXPECT_NE(gpu_script.find("  --size_class 1 \\\n  gl_b0_c0.params.json"), std::string::npos) << gpu_script;
  EXPECT_EQ(read_file_text(dir + "/none/gl_b0_c0.create_work.sh").find("--size_class"), std::string::npos);
  for (std::size_t k = 0; k < cpu.specs.size(); ++k) {
    EXPECT_EQ(read_file_text(cpu.specs[k].inputs[0].second), read_file_text(none.specs[k].inputs[0].second));
    EXPECT_EQ(input_template_xml(cpu.specs[k]), input_template_xml(none.specs[k]));
  }
  const WuRun unknown = make("unknown", {"--size-class", "tpu"});
  EXPECT_NE(unknown.error.find("--size-class"), std::string::npos) << unknown.error;
  EXPECT_FALSE(fs::exists(dir + "/unknown"));
}

TEST(SwWorkunit, BlockTargetsSetsTheTargetsBetweenCheckpoints) {
  SKIP_WITHOUT_SW_DATA();
  const std::string dir = scratch_dir("sw_wu_blocks"), out = dir + "/out";
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 1),
                              "--block-targets", "7", "--name", "gl", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 1u);
  const auto params = swsearch::parse_sw_params(nlohmann::json::parse(read_file_text(run.specs[0].inputs[0].second)));
  EXPECT_EQ(params.block_targets, 7u);
  // A search name that is not a plain name (it becomes part of file names) is refused.
  nlohmann::json json = swsearch::sw_params_json(params);
  json["search"] = "../elsewhere";
  EXPECT_THROW(swsearch::parse_sw_params(json), helix::InputError);
  json.erase("search");  // older WUs have none
  EXPECT_EQ(swsearch::parse_sw_params(json).search, "");
}

// Each refusal is one line naming the problem, and --out stays empty.
void expect_refused(const std::vector<std::string>& extra, const std::string& db_text, const std::string& needle) {
  const std::string dir = scratch_dir("sw_wu_bad"), out = dir + "/out";
  write_file_atomic(dir + "/db.fa", db_text);
  std::vector<std::string> args{"swsearch", "make", "--db", dir + "/db.fa", "--queries", globin_queries(dir, 1),
                                "--name", "bad", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = run_sw_wu(args);
  EXPECT_NE(run.error.find(needle), std::string::npos) << run.error;
  EXPECT_EQ(run.error.find('\n'), std::string::npos) << run.error;
  EXPECT_TRUE(run.specs.empty());
  EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out));
}

TEST(SwWorkunit, BadInputIsRefusedWithNothingWritten) {
  SKIP_WITHOUT_SW_DATA();
  const std::string good = ">a\nMKVLAAGIVG\n>b\nMHHHWWKLLA\n";
  expect_refused({}, ">a\nMKV1LA\n", "'1'");
  expect_refused({}, ">a\nMKVLA\n>b\n", "b");  // truncated: a header with no sequence
  expect_refused({}, ">a\n\n>b\nMKV\n", "a");   // empty sequence
  expect_refused({"--matrix", "NOSUCH62"}, good, "unknown matrix NOSUCH62");
  expect_refused({"--gap-open", "-11"}, good, "");
  expect_refused({"--gap-open", "30", "--gap-extend", "5"}, good, "");  // no Karlin-Altschul estimate
  expect_refused({"--block-targets", "0"}, good, "block_targets");
  expect_refused({"--block-targets", "16777217"}, good, "block_targets");
}

// A WU's result summary grows with its queries: make refuses a batch whose
// summary could pass the summary's limit (the client would refuse the file),
// and the bound it checks holds for the widest numbers and awkward ids.
TEST(SwWorkunit, BatchesWhoseSummaryCouldPassItsLimitAreRefused) {
  SKIP_WITHOUT_SW_DATA();
  const std::string dir = scratch_dir("sw_wu_summary"), out = dir + "/out";
  std::string queries;  // 20 queries of 60,000-character ids: about 1.2 MB of summary
  for (int q = 0; q < 20; ++q) queries += ">" + std::string(60000, 'a' + q) + "\nMKVLAAGIVG\n";
  write_file_atomic(dir + "/queries.fa", queries);
  auto make = [&](const char* per_wu) {
    return run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", dir + "/queries.fa", "--queries-per-wu",
                      per_wu, "--name", "sum", "--out", out});
  };
  const WuRun refused = make("20");
  EXPECT_NE(refused.error.find("queries 1-20: a WU's result summary could reach"), std::string::npos) << refused.error;
  EXPECT_EQ(refused.error.find('\n'), std::string::npos) << refused.error;
  EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out));
  const WuRun halves = make("10");
  EXPECT_EQ(halves.error, "");
  EXPECT_EQ(halves.specs.size(), 2u);

  swsearch::SearchResult result;
  result.engine = std::string(1024, 'e');
  result.chunk_targets = result.chunk_residues = ~std::uint64_t{0};
  std::vector<std::string> ids;
  for (int q = 0; q < 300; ++q) {
    swsearch::QueryHits hits{q % 2 ? std::string(q, '"') : std::string(q, '\x01'), 2147483647, {}};
    if (q < 2) hits.hits.resize(10000);
    for (auto& hit : hits.hits) hit.score = -2147483647 - 1;
    ids.push_back(hits.query_id);
    result.queries.push_back(std::move(hits));
  }
  EXPECT_LE(swsearch::sw_summary_json(result).size(), swsearch::summary_bytes_bound(result.params, ids));
}

}  // namespace
}  // namespace helix::test
