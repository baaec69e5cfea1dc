// kind_work_units.cpp: see kind_work_units.h. The sizes were chosen on the
// development machine: an uninterrupted `helix --cpu` run of each takes about
// 2-3 s of CPU time (docs/reliability.md has the figures), so that even an
// idle fast host reaches the first checkpoint (1-2 s in) well before the end.
#include "kind_work_units.h"

#include <cstdlib>
#include <filesystem>


#include "core/file_io.h"

namespace helix::faults {
namespace {
namespace fs = std::filesystem;

std::string data_file(const char* variable, const char* fallback, const std::string& name) {
  const char* dir = std::getenv(variable);
  return std::string(dir ? dir : fallback) + "/" + name;
}
std::string skimage_file(const std::string& name) {
  return data_file("HELIX_SKIMAGE_DATA", "/usr/lib/python3/dist-packages/skimage/data", name);
}
std::string hmmer_tutorial_file(const std::string& name) {
  return data_file("HELIX_HMMER_EXAMPLES", "/usr/share/doc/hmmer/examples/tutorial", name);
}
std::string ncbi_data_file(const std::string& name) {
  return data_file("HELIX_NCBI_DATA", "/usr/share/ncbi/data", name);
}
std::string uniprot_proteins() {
  return data_file("HELIX_MMSEQS_EXAMPLES", "/usr/share/doc/mmseqs2/example-data", "DB.fasta.gz");
}

std::string first_missing(const std::vector<std::string>& paths) {
  for (const std::string& path : paths)
    if (!fs::exists(path)) return path + " is not there";
  return "";
}

// The first `count` records of a FASTA text (gzipped or not), as FASTA text.
std::string first_records(const std::string& path, std::size_t count) {
  const std::string text = read_text_maybe_gzipped(path);
  std::size_t end = 0;
  for (std::size_t records = 0; records < count && end != std::string::npos; ++records)
    end = text.find("\n>", records == 0 ? 0 : end + 1);
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

// ---------------------------------------------------------------- mrf

std::string mrf_missing_data() { return ""; }  // the phantom is made by helix-wu

WorkUnit mrf_work_unit(const std::string& dir) {
  run_work_generator({"mrf", "phantom", "--out", dir + "/phantom", "--size", "240", "240", "112", "--noise", "150",
                      "--seed", "21"},
                     dir);
  return make_work_unit({"mrf", "make", "--volume", dir + "/phantom/phantom.nii.gz", "--name", "mrf_wu", "--out",
                         dir + "/wu", "--max-sweeps", "60", "--tolerance", "0", "--seed", "5"},
                        dir + "/wu", "mrf_wu");
}

// ---------------------------------------------------------------- glcm

std::string glcm_missing_data() {
  return first_missing({skimage_file("text.png"), skimage_file("microaneurysms.png")});
}

// Two images, 16 levels, distances 1-4: eight blocks (checkpoints fall between
// blocks), the larger image's a few tenths of a second each.
WorkUnit glcm_work_unit(const std::string& dir) {
  return make_work_unit({"glcm", "make", "--image", skimage_file("text.png"), "--image",
                         skimage_file("microaneurysms.png"), "--levels", "16", "--distances", "1-4", "--map-distance",
                         "2", "--name", "glcm_wu", "--out", dir + "/wu"},
                        dir + "/wu", "glcm_wu_0");
}

// ---------------------------------------------------------------- swsearch

std::string swsearch_missing_data() {
  return first_missing({hmmer_tutorial_file("globins45.fa"), uniprot_proteins(), ncbi_data_file("BLOSUM62")});
}

WorkUnit swsearch_work_unit(const std::string& dir) {
  fs::create_directories(dir);
  write_file_atomic(dir + "/queries.fa", first_records(hmmer_tutorial_file("globins45.fa"), 9));
  write_file_atomic(dir + "/proteins.fa", first_records(uniprot_proteins(), 20000));
  // --block-targets 500: this short run checkpoints several times.
  return make_work_unit({"swsearch", "make", "--db", dir + "/proteins.fa", "--queries", dir + "/queries.fa",
                         "--matrix-file", ncbi_data_file("BLOSUM62"), "--block-targets", "500", "--name", "sw",
                         "--out", dir + "/wu"},
                        dir + "/wu", "sw_b0_c0");
}

// ---------------------------------------------------------------- hmmsearch

std::string hmmsearch_missing_data() {
  return first_missing(
      {hmmer_tutorial_file("globins4.hmm"), hmmer_tutorial_file("fn3.hmm"), uniprot_proteins()});
}

WorkUnit hmmsearch_work_unit(const std::string& dir) {
  fs::create_directories(dir);
  const std::string profiles =
      read_file_text(hmmer_tutorial_file("globins4.hmm")) + read_file_text(hmmer_tutorial_file("fn3.hmm"));
  write_file_atomic(dir + "/profiles.hmm", profiles);
  write_file_atomic(dir + "/proteins.fa", first_records(uniprot_proteins(), 12500));
  return make_work_unit({"hmmsearch", "make", "--name", "hmm", "--profiles", dir + "/profiles.hmm", "--database",
                         dir + "/proteins.fa", "--block-targets", "250", "--out", dir + "/wu"},
                        dir + "/wu", "hmm_c0");
}

}  // namespace

const std::vector<KindWorkUnit>& kind_work_units() {
  static const std::vector<KindWorkUnit> kinds = {
      {"mrf", "mrf_wu", mrf_missing_data, mrf_work_unit},
      {"glcm", "glcm_wu_0", glcm_missing_data, glcm_work_unit},
      {"swsearch", "sw_b0_c0", swsearch_missing_data, swsearch_work_unit},
      {"hmmsearch", "hmm_c0", hmmsearch_missing_data, hmmsearch_work_unit},
  };
  return kinds;
}

namespace {

// $HELIX_FAULT_WU_DIR/<kind> when the variable is set, else "".
std::string shared_work_unit_dir(const KindWorkUnit& kind) {
  const char* shared = std::getenv("HELIX_FAULT_WU_DIR");
  return shared ? std::string(shared) + "/" + kind.kind : "";
}

// Written last: the WU in the shared directory is complete.
constexpr const char* kCompleteMark = "complete";

}  // namespace

WorkUnit work_unit_for(const KindWorkUnit& kind, const std::string& scratch) {
  const std::string shared = shared_work_unit_dir(kind);
  if (shared.empty()) return kind.make(scratch);
  if (fs::exists(shared + "/" + kCompleteMark)) return read_work_unit(shared + "/wu", kind.work_unit_name);
  fs::remove_all(shared);
  kind.make(shared);
  // Keep only the WU itself: what a moved build needs to carry.
  for (const auto& entry : fs::directory_iterator(shared))
    if (entry.path().filename() != "wu") fs::remove_all(entry.path());
  write_file_atomic(shared + "/" + kCompleteMark, std::string("made by fault_tests\n"));
  return read_work_unit(shared + "/wu", kind.work_unit_name);
}

std::string why_no_work_unit(const KindWorkUnit& kind) {
  const std::string shared = shared_work_unit_dir(kind);
  if (!shared.empty() && fs::exists(shared + "/" + kCompleteMark)) return "";
  return kind.missing_data();
}

void PrintTo(const KindWorkUnit& kind, std::ostream* out) { *out << kind.kind; }

}  // namespace helix::faults
