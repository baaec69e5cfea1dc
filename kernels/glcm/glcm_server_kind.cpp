// glcm_server_kind.cpp: the project side of the glcm kind, as the generic
// server tools see it. The work lives in glcm_workunit.cpp (work generator,
// with glcm_batch.cpp, glcm_well.cpp and glcm_render.cpp), glcm_check.cpp
// (validator) and glcm_store.cpp (assimilator).
#include "core/kind.h"
#include "glcm_server.h"

namespace helix {
namespace {

class GlcmServerKind : public ServerKind {
 public:
  std::string name() const override { return "glcm"; }
  std::vector<std::string> output_names() const override { return {"features", "maps", "summary"}; }
  void add_workunit_command(CLI::App& parent, std::function<void(const WorkunitSpec&)> emit) const override {
    glcm::add_glcm_workunit_command(parent, std::move(emit));
  }
  CheckOutcome check_result(const std::vector<std::string>& files, const ServerOptions& options) const override {
    return glcm::check_glcm_result(files, options);
  }
  CheckOutcome compare_results(const std::vector<std::string>& files_a,
                               const std::vector<std::string>& files_b) const override {
    return glcm::compare_glcm_results(files_a, files_b);
  }
  void create_tables(sqlite3* db) const override { glcm::create_glcm_tables(db); }
  void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) const override {
    glcm::store_glcm_result(db, wu_id, files);
  }
};

}  // namespace

std::unique_ptr<ServerKind> make_glcm_server_kind() { return std::make_unique<GlcmServerKind>(); }

}  // namespace helix
