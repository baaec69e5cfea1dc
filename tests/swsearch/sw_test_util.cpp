// sw_test_util.cpp: see sw_test_util.h.
#include "sw_test_util.h"

#include <filesystem>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/directory_runtime.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "server_test_util.h"
#include "swsearch/sw_server.h"
#include "workunit_writer.h"

namespace helix::test {
namespace fs = std::filesystem;

bool sw_data_present() { return fs::exists(kGlobins) && fs::exists(kBlosum62); }

std::string globin_queries(const std::string& dir, std::size_t count) {
  const auto records = sw::parse_fasta(read_file_text(kGlobins), "globins");
  std::string text;
  for (std::size_t k = 0; k < count; ++k) text += ">" + records[k].id + "\n" + sw::decode_protein(records[k].residues) + "\n";
  const std::string path = dir + "/queries.fa";
  write_file_atomic(path, text);
  return path;
}

WuRun run_sw_wu(const std::vector<std::string>& args) {
  return run_workunit_command("swsearch", args);
}

SwResult run_sw_spec(const WorkunitSpec& spec, const std::string& result_dir) {
  const std::string run_dir = scratch_dir("sw_run");
  for (const auto& [logical, path] : spec.inputs) fs::copy_file(path, run_dir + "/" + logical);
  const sw::SwParams params = sw::parse_sw_params(nlohmann::json::parse(read_file_text(run_dir + "/params")));
  DirectoryRuntime runtime(run_dir);
  auto engine = sw::make_reference_engine();
  SwResult out;
  out.result = sw::run_sw_job(params, *engine, runtime);
  out.hits = result_dir + "/" + spec.name + "_0_0";
  out.summary = result_dir + "/" + spec.name + "_0_1";
  write_file_atomic(out.hits, sw::hits_tsv(out.result));
  write_file_atomic(out.summary, sw::sw_summary_json(out.result));
  return out;
}

}  // namespace helix::test
