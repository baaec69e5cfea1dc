// sw_server_kind.cpp: the project side of the swsearch kind, as the generic
// server tools see it. The work lives in sw_workunit.cpp (work generator),
// sw_check.cpp (validator) and sw_store.cpp (assimilator).
#include "core/kind.h"
#include "sw_server.h"

namespace helix {
namespace {

class SwsearchServerKind : public ServerKind {
 public:
  std::string name() const override { return "swsearch"; }
  std::vector<std::string> output_names() const override { return {"hits", "summary"}; }
  void add_workunit_command(CLI::App& parent, std::function<void(const WorkunitSpec&)> emit) const override {
    sw::add_sw_workunit_command(parent, std::move(emit));
  }
  CheckOutcome check_result(const std::vector<std::string>& files, const ServerOptions& options) const override {
    return sw::check_sw_result(files, options);
  }
  CheckOutcome compare_results(const std::vector<std::string>& files_a,
                               const std::vector<std::string>& files_b) const override {
    return sw::compare_sw_results(files_a, files_b);
  }
  void create_tables(sqlite3* db) const override { sw::create_sw_tables(db); }
  void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) const override {
    sw::store_sw_result(db, wu_id, files);
  }
};

}  // namespace

std::unique_ptr<ServerKind> make_swsearch_server_kind() { return std::make_unique<SwsearchServerKind>(); }

}  // namespace helix
