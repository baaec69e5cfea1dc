// hmm_store.cpp: accepted hmmsearch results in SQLite, and a search merged
// over its chunks. Five tables (docs/hmmsearch.md):
//   hmmsearch_chunks    one row per WU: its search, chunk and params
//   hmmsearch_profiles  one row per (WU, profile): the model and its filter counts
//   hmmsearch_passed    one row per (WU, profile, target past Forward): every
//                       score, as REAL (floats and doubles are stored exactly)
//   hmmsearch_targets   the same rows' domain definition: scores and counts
//   hmmsearch_domains   one row per domain: coordinates, scores, alignment display
// Storing a WU first deletes what it had stored, so re-assimilating is a no-op
// and a replaced result leaves nothing of the old one. hmm_report() gathers a
// search's rows, ordered as one whole-database run orders its targets.
#include <algorithm>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/sqlite_support.h"
#include "hmm_server.h"

namespace helix::hmmsearch {

void create_hmm_tables(sqlite3* db) {
  execute(db,
          "CREATE TABLE IF NOT EXISTS hmmsearch_chunks ("
          " wu_id INTEGER PRIMARY KEY, search TEXT NOT NULL, chunk INTEGER NOT NULL, chunks INTEGER NOT NULL,"
          " first_ordinal INTEGER NOT NULL, chunk_targets INTEGER NOT NULL, chunk_residues INTEGER NOT NULL,"
          " database_sequences INTEGER NOT NULL, database_residues INTEGER NOT NULL, profile_count INTEGER NOT NULL,"
          " report_evalue REAL NOT NULL, F1 REAL NOT NULL, F2 REAL NOT NULL, F3 REAL NOT NULL,"
          " bias_filter INTEGER NOT NULL, engine TEXT NOT NULL, params TEXT NOT NULL);"
          "CREATE INDEX IF NOT EXISTS hmmsearch_chunks_by_search ON hmmsearch_chunks (search, chunk, wu_id);"
          "CREATE TABLE IF NOT EXISTS hmmsearch_profiles ("
          " wu_id INTEGER NOT NULL, profile INTEGER NOT NULL, name TEXT NOT NULL, accession TEXT NOT NULL,"
          " description TEXT NOT NULL, M INTEGER NOT NULL, targets INTEGER NOT NULL, residues INTEGER NOT NULL,"
          " past_msv INTEGER NOT NULL, past_bias INTEGER NOT NULL, past_viterbi INTEGER NOT NULL,"
          " past_forward INTEGER NOT NULL, PRIMARY KEY (wu_id, profile));"
          "CREATE TABLE IF NOT EXISTS hmmsearch_passed ("
          " wu_id INTEGER NOT NULL, profile INTEGER NOT NULL, target_ordinal INTEGER NOT NULL,"
          " target_name TEXT NOT NULL, description TEXT NOT NULL, msv_nats REAL NOT NULL, filter_nats REAL NOT NULL,"
          " viterbi_run INTEGER NOT NULL, viterbi_nats REAL NOT NULL, forward_nats REAL NOT NULL,"
          " null_nats REAL NOT NULL, score_bits REAL NOT NULL,"
          " ln_p REAL NOT NULL, reported INTEGER NOT NULL, PRIMARY KEY (wu_id, profile, target_ordinal));"
          "CREATE TABLE IF NOT EXISTS hmmsearch_targets ("
          " wu_id INTEGER NOT NULL, profile INTEGER NOT NULL, target_ordinal INTEGER NOT NULL,"
          " length INTEGER NOT NULL, dropped INTEGER NOT NULL, score_bits REAL NOT NULL, pre_score_bits REAL NOT NULL,"
          " sum_score_bits REAL NOT NULL, ln_p REAL NOT NULL, best_domain INTEGER NOT NULL, nexpected REAL NOT NULL,"
          " nregions INTEGER NOT NULL, nclustered INTEGER NOT NULL, noverlaps INTEGER NOT NULL,"
          " nenvelopes INTEGER NOT NULL, domains INTEGER NOT NULL, PRIMARY KEY (wu_id, profile, target_ordinal));"
          "CREATE TABLE IF NOT EXISTS hmmsearch_domains ("
          " wu_id INTEGER NOT NULL, profile INTEGER NOT NULL, target_ordinal INTEGER NOT NULL, domain INTEGER NOT NULL,"
          " ienv INTEGER NOT NULL, jenv INTEGER NOT NULL, iali INTEGER NOT NULL, jali INTEGER NOT NULL,"
          " envsc_nats REAL NOT NULL, domcorrection_nats REAL NOT NULL, dombias_nats REAL NOT NULL, oasc REAL NOT NULL,"
          " bitscore REAL NOT NULL, ln_p REAL NOT NULL, hmmfrom INTEGER NOT NULL, hmmto INTEGER NOT NULL,"
          " M INTEGER NOT NULL, sqfrom INTEGER NOT NULL, sqto INTEGER NOT NULL, L INTEGER NOT NULL,"
          " rfline TEXT NOT NULL, mmline TEXT NOT NULL, csline TEXT NOT NULL, model TEXT NOT NULL, mline TEXT NOT NULL,"
          " aseq TEXT NOT NULL, ppline TEXT NOT NULL, PRIMARY KEY (wu_id, profile, target_ordinal, domain));");
}

namespace {

constexpr const char* kTables[] = {"hmmsearch_chunks", "hmmsearch_profiles", "hmmsearch_passed", "hmmsearch_targets",
                                   "hmmsearch_domains"};

void store_domains(sqlite3* db, long long wu_id, const std::vector<ScoreRow>& rows) {
  Statement target(db, "INSERT INTO hmmsearch_targets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Statement domain(db,
                   "INSERT INTO hmmsearch_domains VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                   " ?, ?, ?, ?, ?, ?, ?)");
  for (const ScoreRow& row : rows) {
    const TargetDomains& t = row.domains;
    const DomainDefinition& def = t.definition;
    const auto profile = static_cast<long long>(row.profile), ordinal = static_cast<long long>(row.ordinal);
    target.bind(wu_id).bind(profile).bind(ordinal).bind(static_cast<long long>(t.length));
    target.bind(static_cast<long long>(t.scores.dropped)).bind(static_cast<double>(t.scores.score_bits));
    target.bind(static_cast<double>(t.scores.pre_score_bits)).bind(static_cast<double>(t.scores.sum_score_bits));
    target.bind(t.scores.ln_p).bind(static_cast<long long>(t.scores.best_domain));
    target.bind(static_cast<double>(def.nexpected));
    for (int count : {def.nregions, def.nclustered, def.noverlaps, def.nenvelopes}) target.bind(static_cast<long long>(count));
    target.bind(static_cast<long long>(def.domains.size())).run();
    for (std::size_t k = 0; k < def.domains.size(); ++k) {
      const DomainHit& d = def.domains[k];
      const AlignmentDisplay& a = d.alignment;
      domain.bind(wu_id).bind(profile).bind(ordinal).bind(static_cast<long long>(k));
      for (int v : {d.ienv, d.jenv, d.iali, d.jali}) domain.bind(static_cast<long long>(v));
      for (float v : {d.envsc_nats, d.domcorrection_nats, d.dombias_nats, d.oasc, d.bitscore})
        domain.bind(static_cast<double>(v));
      domain.bind(d.ln_p);
      for (long v : {static_cast<long>(a.hmmfrom), static_cast<long>(a.hmmto), static_cast<long>(a.M), a.sqfrom, a.sqto, a.L})
        domain.bind(static_cast<long long>(v));
      for (const std::string* line : {&a.rfline, &a.mmline, &a.csline, &a.model, &a.mline, &a.aseq, &a.ppline})
        domain.bind(*line);
      domain.run();
    }
  }
}

}  // namespace

void store_hmm_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  if (files.size() != kResultFiles)
    throw InputError("an hmmsearch result has 6 files (tblout, domtblout, out, scores, domains, summary)");
  const auto summary = nlohmann::json::parse(read_file_text(files[kSummaryFile]), nullptr, false);
  if (summary.is_discarded() || !summary.is_object() || !summary.contains("params") || !summary.contains("profiles"))
    throw InputError("summary " + files[kSummaryFile] + " is not an hmmsearch summary");
  const HmmParams params = parse_hmm_params(summary.at("params"));
  std::vector<ScoreRow> rows = parse_scores_tsv(read_file_text(files[kScoresFile]), params.first_ordinal);
  parse_domains_tsv(read_file_text(files[kDomainsFile]), rows);
  for (const char* table : kTables) {
    Statement remove(db, (std::string("DELETE FROM ") + table + " WHERE wu_id = ?").c_str());
    remove.bind(wu_id).run();
  }
  Statement chunk(db, "INSERT INTO hmmsearch_chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  chunk.bind(wu_id).bind(params.search).bind(static_cast<long long>(params.chunk));
  chunk.bind(static_cast<long long>(params.chunks)).bind(static_cast<long long>(params.first_ordinal));
  chunk.bind(static_cast<long long>(params.chunk_targets)).bind(static_cast<long long>(params.chunk_residues));
  chunk.bind(static_cast<long long>(params.database_sequences)).bind(static_cast<long long>(params.database_residues));
  chunk.bind(static_cast<long long>(params.profile_count)).bind(params.report_evalue);
  chunk.bind(params.F1).bind(params.F2).bind(params.F3).bind(static_cast<long long>(params.bias_filter));
  chunk.bind(summary.value("engine", std::string())).bind(hmm_params_json(params).dump()).run();

  Statement profile(db, "INSERT INTO hmmsearch_profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  long long index = 0;
  for (const auto& p : summary.at("profiles")) {
    profile.bind(wu_id).bind(index++).bind(p.at("name").get<std::string>()).bind(p.at("accession").get<std::string>());
    profile.bind(p.at("description").get<std::string>()).bind(p.at("M").get<long long>());
    for (const char* count : {"targets", "residues", "past_msv", "past_bias", "past_viterbi", "past_forward"})
      profile.bind(p.at(count).get<long long>());
    profile.run();
  }

  Statement passed(db, "INSERT INTO hmmsearch_passed VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const ScoreRow& row : rows) {
    const PassedTarget& s = row.scores;
    passed.bind(wu_id).bind(static_cast<long long>(row.profile)).bind(static_cast<long long>(row.ordinal));
    passed.bind(row.name).bind(row.description).bind(static_cast<double>(s.msv_nats));
    passed.bind(static_cast<double>(s.filter_nats)).bind(static_cast<long long>(s.viterbi_run));
    passed.bind(static_cast<double>(s.viterbi_nats));
    passed.bind(static_cast<double>(s.forward_nats)).bind(static_cast<double>(s.null_nats));
    passed.bind(static_cast<double>(s.score_bits)).bind(s.ln_p).bind(static_cast<long long>(s.reported)).run();
  }
  store_domains(db, wu_id, rows);
}

namespace {

bool tables_exist(sqlite3* db) {
  Query query(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'hmmsearch_chunks'");
  return query.step() && query.integer(0) == 1;
}

// The rows' domain definitions of one stored WU (`rows`: its rows, by
// profile then ordinal, as hmmsearch_passed gives them).
void load_domains(sqlite3* db, long long wu_id, std::vector<ScoreRow>& rows, const std::string& search) {
  const std::string damaged = "search " + search + ": WU " + std::to_string(wu_id) +
                              "'s domain definitions are missing or do not match its rows (stored before part 2?"
                              " re-assimilate it)";
  Query targets(db,
                "SELECT profile, target_ordinal, length, dropped, score_bits, pre_score_bits, sum_score_bits, ln_p,"
                " best_domain, nexpected, nregions, nclustered, noverlaps, nenvelopes, domains FROM hmmsearch_targets"
                " WHERE wu_id = ? ORDER BY profile, target_ordinal");
  targets.bind(1, wu_id);
  for (ScoreRow& row : rows) {
    if (!targets.step() || targets.integer(0) != row.profile || targets.integer(1) != static_cast<long long>(row.ordinal))
      throw InputError(damaged);
    TargetDomains& t = row.domains;
    t.length = static_cast<long>(targets.integer(2));
    t.scores.dropped = targets.integer(3) != 0;
    t.scores.score_bits = static_cast<float>(targets.real(4));
    t.scores.pre_score_bits = static_cast<float>(targets.real(5));
    t.scores.sum_score_bits = static_cast<float>(targets.real(6));
    t.scores.ln_p = targets.real(7);
    t.scores.best_domain = static_cast<int>(targets.integer(8));
    t.definition.nexpected = static_cast<float>(targets.real(9));
    t.definition.nregions = static_cast<int>(targets.integer(10));
    t.definition.nclustered = static_cast<int>(targets.integer(11));
    t.definition.noverlaps = static_cast<int>(targets.integer(12));
    t.definition.nenvelopes = static_cast<int>(targets.integer(13));
    t.definition.domains.resize(static_cast<std::size_t>(targets.integer(14)));
  }
  if (targets.step()) throw InputError(damaged);
  Query domains(db,
                "SELECT profile, target_ordinal, domain, ienv, jenv, iali, jali, envsc_nats, domcorrection_nats,"
                " dombias_nats, oasc, bitscore, ln_p, hmmfrom, hmmto, M, sqfrom, sqto, L, rfline, mmline, csline,"
                " model, mline, aseq, ppline FROM hmmsearch_domains WHERE wu_id = ?"
                " ORDER BY profile, target_ordinal, domain");
  domains.bind(1, wu_id);
  for (ScoreRow& row : rows)
    for (std::size_t k = 0; k < row.domains.definition.domains.size(); ++k) {
      if (!domains.step() || domains.integer(0) != row.profile ||
          domains.integer(1) != static_cast<long long>(row.ordinal) || domains.integer(2) != static_cast<long long>(k))
        throw InputError(damaged);
      DomainHit& d = row.domains.definition.domains[k];
      d.ienv = static_cast<int>(domains.integer(3)), d.jenv = static_cast<int>(domains.integer(4));
      d.iali = static_cast<int>(domains.integer(5)), d.jali = static_cast<int>(domains.integer(6));
      float* floats[] = {&d.envsc_nats, &d.domcorrection_nats, &d.dombias_nats, &d.oasc, &d.bitscore};
      for (int f = 0; f < 5; ++f) *floats[f] = static_cast<float>(domains.real(7 + f));
      d.ln_p = domains.real(12);
      AlignmentDisplay& a = d.alignment;
      a.hmmfrom = static_cast<int>(domains.integer(13)), a.hmmto = static_cast<int>(domains.integer(14));
      a.M = static_cast<int>(domains.integer(15));
      a.sqfrom = domains.integer(16), a.sqto = domains.integer(17), a.L = domains.integer(18);
      std::string* lines[] = {&a.rfline, &a.mmline, &a.csline, &a.model, &a.mline, &a.aseq, &a.ppline};
      for (int l = 0; l < 7; ++l) *lines[l] = domains.text(19 + l);
    }
  if (domains.step()) throw InputError(damaged);
}

// The params every WU of a search shares (chunk-specific members zeroed).
nlohmann::json search_wide(HmmParams params) {
  params.chunk = 0, params.first_ordinal = 0, params.chunk_targets = 1, params.chunk_residues = 1;
  params.chunk_bytes = 5;
  return hmm_params_json(params);
}

}  // namespace

std::vector<std::string> hmm_searches(sqlite3* db) {
  std::vector<std::string> searches;
  if (!tables_exist(db)) return searches;
  Query query(db, "SELECT DISTINCT search FROM hmmsearch_chunks ORDER BY search");
  while (query.step()) searches.push_back(query.text(0));
  return searches;
}

SearchReport hmm_report(sqlite3* db, const std::string& search, bool allow_partial) {
  if (!tables_exist(db)) throw InputError("no hmmsearch results are stored");
  SearchReport report;
  std::vector<long long> wu_ids;  // one per stored chunk, in chunk order
  {
    Query chunks(db, "SELECT wu_id, chunk, params FROM hmmsearch_chunks WHERE search = ? ORDER BY chunk, wu_id");
    chunks.bind(1, search);
    long long last_chunk = -1;
    nlohmann::json shared;
    while (chunks.step()) {
      if (chunks.integer(1) == last_chunk) continue;  // a chunk stored twice: the lowest wu_id
      last_chunk = chunks.integer(1);
      const HmmParams params = parse_hmm_params(nlohmann::json::parse(chunks.text(2)));
      if (wu_ids.empty()) report.params = params, shared = search_wide(params);
      if (search_wide(params) != shared)
        throw InputError("search " + search + ": chunk " + std::to_string(params.chunk) +
                         " was made with other search-wide params than chunk " + std::to_string(report.params.chunk));
      wu_ids.push_back(chunks.integer(0));
    }
  }
  if (wu_ids.empty()) throw InputError("no hmmsearch search named " + search + " is stored");
  report.chunks_stored = static_cast<std::uint32_t>(wu_ids.size());
  if (!allow_partial && report.chunks_stored != report.params.chunks)
    throw InputError("search " + search + ": " + std::to_string(report.chunks_stored) + " of its " +
                     std::to_string(report.params.chunks) + " chunks are stored (--partial to report anyway)");

  report.profiles.resize(report.params.profile_count);
  std::vector<std::vector<ScoreRow>> rows(report.params.profile_count);
  for (std::size_t k = 0; k < wu_ids.size(); ++k) {
    Query profiles_of(db,
                      "SELECT profile, name, accession, description, M, targets, residues, past_msv, past_bias, "
                      "past_viterbi, past_forward FROM hmmsearch_profiles WHERE wu_id = ? ORDER BY profile");
    profiles_of.bind(1, wu_ids[k]);
    std::uint32_t seen = 0;
    while (profiles_of.step()) {
      const auto p = static_cast<std::uint32_t>(profiles_of.integer(0));
      if (p >= report.profiles.size()) throw InputError("search " + search + ": a profile index beyond profile_count");
      ProfileOutcome& outcome = report.profiles[p];
      const ProfileOutcome stored{profiles_of.text(1), profiles_of.text(2), profiles_of.text(3),
                                  static_cast<int>(profiles_of.integer(4)), {}};
      if (k == 0) {
        outcome.name = stored.name, outcome.accession = stored.accession;
        outcome.description = stored.description, outcome.M = stored.M;
      } else if (stored.name != outcome.name || stored.accession != outcome.accession ||
                 stored.description != outcome.description || stored.M != outcome.M) {
        throw InputError("search " + search + ": profile " + std::to_string(p) + " differs between chunks");
      }
      PipelineCounts counts;
      counts.targets = profiles_of.integer(5), counts.residues = profiles_of.integer(6);
      counts.past_msv = profiles_of.integer(7), counts.past_bias = profiles_of.integer(8);
      counts.past_viterbi = profiles_of.integer(9), counts.past_forward = profiles_of.integer(10);
      outcome.counts += counts;
      ++seen;
    }
    if (seen != report.profiles.size()) throw InputError("search " + search + ": a WU lacks some profiles' counts");
    Query passed_of(db,
                    "SELECT profile, target_ordinal, target_name, description, msv_nats, filter_nats, viterbi_run, "
                    "viterbi_nats, forward_nats, null_nats, score_bits, ln_p, reported FROM hmmsearch_passed "
                    "WHERE wu_id = ? "
                    "ORDER BY profile, target_ordinal");
    passed_of.bind(1, wu_ids[k]);
    std::vector<ScoreRow> wu_rows;
    while (passed_of.step()) {
      ScoreRow row;
      row.profile = static_cast<std::uint32_t>(passed_of.integer(0));
      if (row.profile >= rows.size()) throw InputError("search " + search + ": a profile index beyond profile_count");
      row.ordinal = static_cast<std::uint64_t>(passed_of.integer(1));
      row.name = passed_of.text(2);
      row.description = passed_of.text(3);
      PassedTarget& s = row.scores;
      s.msv_nats = static_cast<float>(passed_of.real(4));
      s.filter_nats = static_cast<float>(passed_of.real(5));
      s.viterbi_run = passed_of.integer(6) != 0;
      s.viterbi_nats = static_cast<float>(passed_of.real(7));
      s.forward_nats = static_cast<float>(passed_of.real(8));
      s.null_nats = static_cast<float>(passed_of.real(9));
      s.score_bits = static_cast<float>(passed_of.real(10));
      s.ln_p = passed_of.real(11);
      s.reported = passed_of.integer(12) != 0;
      wu_rows.push_back(std::move(row));
    }
    load_domains(db, wu_ids[k], wu_rows, search);
    for (ScoreRow& row : wu_rows) rows[row.profile].push_back(std::move(row));
  }
  // Per profile in ordinal order, as one whole-database run has them (chunks
  // are consecutive ordinals, so this only guards against odd chunkings).
  for (auto& list : rows) {
    std::stable_sort(list.begin(), list.end(), [](const ScoreRow& a, const ScoreRow& b) { return a.ordinal < b.ordinal; });
    for (ScoreRow& row : list) report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace helix::hmmsearch
