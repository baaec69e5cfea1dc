// mrf_server_kind.cpp: the project side of the mrf kind, as the generic server
// tools see it. The work lives in mrf_workunit.cpp (work generator),
// mrf_check.cpp (validator) and mrf_store.cpp (assimilator).
#include "core/kind.h"
#include "mrf_server.h"

namespace helix {
namespace {

class MrfServerKind : public ServerKind {
 public:
  std::string name() const override { return "mrf"; }
  std::vector<std::string> output_names() const override { return {"labels", "summary"}; }
  void add_workunit_command(CLI::App& parent, std::function<void(const WorkunitSpec&)> emit) const override {
    mrf::add_mrf_workunit_command(parent, std::move(emit));
  }
  CheckOutcome check_result(const std::vector<std::string>& files, const ServerOptions& options) const override {
    return mrf::check_mrf_result(files, options);
  }
  CheckOutcome compare_results(const std::vector<std::string>& files_a,
                               const std::vector<std::string>& files_b) const override {
    return mrf::compare_mrf_results(files_a, files_b);
  }
  void create_tables(sqlite3* db) const override { mrf::create_mrf_tables(db); }
  void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) const override {
    mrf::store_mrf_result(db, wu_id, files);
  }
};

}  // namespace

std::unique_ptr<ServerKind> make_mrf_server_kind() { return std::make_unique<MrfServerKind>(); }

}  // namespace helix
