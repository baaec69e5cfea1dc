// hmm_server_kind.cpp: the project side of the hmmsearch kind, as the generic
// server tools see it. The work lives in hmm_workunit.cpp (work generator and
// the merged report), hmm_check.cpp (validator) and hmm_store.cpp (assimilator).
#include "core/kind.h"
#include "hmm_server.h"

namespace helix {
namespace {

class HmmsearchServerKind : public ServerKind {
 public:
  std::string name() const override { return "hmmsearch"; }
  std::vector<std::string> output_names() const override { return {"tblout", "domtblout", "out", "scores", "domains", "summary"}; }
  void add_workunit_command(CLI::App& parent, std::function<void(const WorkunitSpec&)> emit) const override {
    hmm::add_hmm_workunit_command(parent, std::move(emit));
  }
  CheckOutcome check_result(const std::vector<std::string>& files, const ServerOptions& options) const override {
    return hmm::check_hmm_result(files, options);
  }
  CheckOutcome compare_results(const std::vector<std::string>& files_a,
                               const std::vector<std::string>& files_b) const override {
    return hmm::compare_hmm_results(files_a, files_b);
  }
  void create_tables(sqlite3* db) const override { hmm::create_hmm_tables(db); }
  void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) const override {
    hmm::store_hmm_result(db, wu_id, files);
  }
};

}  // namespace

std::unique_ptr<ServerKind> make_hmmsearch_server_kind() { return std::make_unique<HmmsearchServerKind>(); }

}  // namespace helix
