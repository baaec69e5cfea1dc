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
  const auto records = swsearch::parse_fasta(read_file_text(kGlobins), "globins");
  std::string text;
  for (std::size_t k = 0; k < count; ++k) {  // past the file's 45, its sequences again under new ids
    const auto& record = records[k % records.size()];
    const std::string copy = k < records.size() ? "" : "_copy" + std::to_string(k / records.size());
    text += ">" + record.id + copy + "\n" + swsearch::decode_protein(record.residues) + "\n";
  }
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
  const swsearch::SwParams params = swsearch::parse_sw_params(nlohmann::json::parse(read_file_text(run_dir + "/params")));
  DirectoryRuntime runtime(run_dir);
  auto engine = swsearch::make_reference_engine();
  SwResult out;
  out.result = swsearch::run_sw_job(params, *engine, runtime);
  out.hits = result_dir + "/" + spec.name + "_0_0";
  out.summary = result_dir + "/" + spec.name + "_0_1";
  write_file_atomic(out.hits, swsearch::hits_tsv(out.result));
  write_file_atomic(out.summary, swsearch::sw_summary_json(out.result));
  return out;
}

}  // namespace helix::test
