// assimilator_crash_test.cpp: helix-assimilate is idempotent and
// transactional, for every kind, proven on full dumps of the database (every
// table's schema and every row, blobs byte for byte):
//   - storing the same result twice leaves the dump exactly as after once;
//   - a real crash part-way leaves the dump exactly as before the store, or
//     (a kill after COMMIT) exactly as after it. Crashes are SIGKILLs of the
//     real program: after its Nth row change inside the transaction (the
//     HELIX_ASSIMILATE_KILL_AFTER_ROWS switch of assimilator/main.cpp, N from
//     the first row to the last, so the dump must be the "before" one), and at
//     random times during a run. After each, a normal run completes the store.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "glcm_test_util.h"
#include "hmm_test_util.h"
#include "server_test_util.h"
#include "sw_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

constexpr int kRandomKills = 20;

// Every table's CREATE statement and its rows (sorted, so the dump does not
// depend on storage order), opened read-write so that a hot journal left by a
// crash is rolled back first, as the next helix-assimilate would.
std::string dump(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK) << path;
  std::string text;
  sqlite3_stmt* tables = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &tables, nullptr);
  while (sqlite3_step(tables) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(tables, 0));
    text += reinterpret_cast<const char*>(sqlite3_column_text(tables, 1)) + std::string("\n");
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(db, ("SELECT * FROM \"" + name + "\"").c_str(), -1, &rows, nullptr);
    std::vector<std::string> lines;
    while (sqlite3_step(rows) == SQLITE_ROW) {
      std::string line;
      for (int c = 0; c < sqlite3_column_count(rows); ++c) {
        const int type = sqlite3_column_type(rows, c);
        const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(rows, c));
        const int size = sqlite3_column_bytes(rows, c);
        line += std::to_string(type) + ":";
        for (int b = 0; b < size; ++b) line += "0123456789abcdef"[bytes[b] >> 4], line += "0123456789abcdef"[bytes[b] & 15];
        line += "|";
      }
      lines.push_back(line);
    }
    sqlite3_finalize(rows);
    std::sort(lines.begin(), lines.end());
    for (const std::string& line : lines) text += line + "\n";
  }
  sqlite3_finalize(tables);
  sqlite3_close(db);
  return text;
}

struct Exit {
  bool killed = false;  // by SIGKILL
  int code = -1;
};

// Runs helix-assimilate --db DB WU_ID FILES... with `env` added; when
// kill_after_us >= 0, SIGKILLs it that many microseconds after the start.
Exit assimilate(const std::string& db, long long wu_id, const std::vector<std::string>& files, const std::string& env,
                long kill_after_us = -1) {
  std::vector<std::string> words{HELIX_ASSIMILATE, "--db", db, std::to_string(wu_id)};
  words.insert(words.end(), files.begin(), files.end());
  std::vector<char*> argv, envp;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::string env_entry = env;
  for (char** entry = environ; *entry; ++entry) envp.push_back(*entry);
  if (!env_entry.empty()) envp.push_back(env_entry.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (kill_after_us >= 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us));
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Exit exit;
  exit.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  exit.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return exit;
}

// One kind's proof. `earlier` is stored first (as WU 1: the database is not
// empty), then `result` (as WU 2) is the store that is crashed.
void prove_store_is_atomic(const std::string& tag, const std::vector<std::string>& earlier,
                           const std::vector<std::string>& result) {
  const std::string dir = scratch_dir(tag);
  const std::string base = dir + "/base.sqlite", full = dir + "/full.sqlite", trial = dir + "/trial.sqlite";
  ASSERT_EQ(assimilate(base, 1, earlier, "").code, 0);
  const std::string before = dump(base);
  fs::copy_file(base, full);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(assimilate(full, 2, result, "").code, 0);
  const long run_us = static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
  const std::string after = dump(full);
  ASSERT_NE(before, after);
  // Idempotent: the same result again changes nothing.
  ASSERT_EQ(assimilate(full, 2, result, "").code, 0);
  EXPECT_EQ(dump(full), after) << "storing the same result twice changed the database";

  // Killed after its Nth row change: N = 1, 2, 3, 5, 8, ... until a run completes.
  int row_kills = 0;
  for (long long n = 1, previous = 1;; std::tie(n, previous) = std::make_pair(n + previous, n)) {
    fs::remove(trial + "-journal");  // never let a stale journal meet a fresh copy
    fs::copy_file(base, trial, fs::copy_options::overwrite_existing);
    const Exit exit = assimilate(trial, 2, result, "HELIX_ASSIMILATE_KILL_AFTER_ROWS=" + std::to_string(n));
    if (!exit.killed) {
      EXPECT_EQ(exit.code, 0);
      EXPECT_EQ(dump(trial), after);
      break;
    }
    ++row_kills;
    EXPECT_EQ(dump(trial), before) << "killed after row change " << n << ": the database is not as it was";
    ASSERT_EQ(assimilate(trial, 2, result, "").code, 0);  // the retry completes it
    EXPECT_EQ(dump(trial), after);
  }
  EXPECT_GE(row_kills, 3);

  // Killed at random times within a normal run's duration.
  std::mt19937 random(20261123);
  int as_before = 0, as_after = 0;
  for (int k = 0; k < kRandomKills; ++k) {
    fs::remove(trial + "-journal");
    fs::copy_file(base, trial, fs::copy_options::overwrite_existing);
    assimilate(trial, 2, result, "", std::uniform_int_distribution<long>(0, run_us)(random));
    const std::string state = dump(trial);
    EXPECT_TRUE(state == before || state == after) << "trial " << k << ": a half-stored result";
    as_before += state == before, as_after += state == after;
  }
  std::printf("[ %s ] %d kills after row N, %d random kills within %ld us: %d as before, %d as after\n", tag.c_str(),
              row_kills, kRandomKills, run_us, as_before, as_after);
}

TEST(AssimilatorCrash, Mrf) {
  const GenuineResult g = genuine_result("crash_mrf");
  prove_store_is_atomic("crash_mrf", g.files(), g.files());
}

TEST(AssimilatorCrash, Glcm) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine g = glcm_genuine("crash");
  prove_store_is_atomic("crash_glcm", g.files(), g.files());
}

TEST(AssimilatorCrash, Swsearch) {
  SKIP_WITHOUT_SW_DATA();
  const std::string dir = scratch_dir("crash_sw_wu");
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 3), "--top-hits",
                              "8", "--alignments", "3", "--chunk-residues", "2300", "--name", "cr", "--out", dir + "/in"});
  ASSERT_EQ(run.error, "");
  ASSERT_GE(run.specs.size(), 2u);
  const SwResult first = run_sw_spec(run.specs[0], dir), second = run_sw_spec(run.specs[1], dir);
  prove_store_is_atomic("crash_sw", second.files(), first.files());
}

TEST(AssimilatorCrash, Hmmsearch) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("crash_hmm_wu");
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "cr", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm", "fn3.hmm"}), "--database",
                               tutorial_file("globins45.fa"), "--chunk-residues", "3000", "--out", dir + "/in"});
  ASSERT_EQ(run.error, "");
  ASSERT_GE(run.specs.size(), 2u);
  const HmmResult first = run_hmm_spec(run.specs[0], dir), second = run_hmm_spec(run.specs[1], dir);
  prove_store_is_atomic("crash_hmm", second.files(), first.files());
}

}  // namespace
}  // namespace helix::test
