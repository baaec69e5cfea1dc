// hmm_file_test.cpp: the HMMER3/f parser on hmmer-examples' real profiles
// (values checked against the files' own text) and on damaged copies.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "hmm_file.h"

namespace helix::hmmsearch {
namespace {

namespace fs = std::filesystem;
const std::string kExamples = "/usr/share/doc/hmmer/examples/";

class HmmFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kExamples + "tutorial/globins4.hmm")) GTEST_SKIP() << "hmmer-examples is not installed";
    globins4_ = read_file_text(kExamples + "tutorial/globins4.hmm");
  }
  // The error message parse_hmm_file gives for `text` ("" if it parses).
  static std::string error_of(const std::string& text) {
    try {
      parse_hmm_file(text, "damaged.hmm");
      return "";
    } catch (const InputError& e) {
      return e.what();
    }
  }
  std::string globins4_;
};

TEST_F(HmmFile, Globins4AsTheFileWritesIt) {
  const std::vector<ProfileHmm> models = parse_hmm_file(globins4_, "globins4.hmm");
  ASSERT_EQ(models.size(), 1u);
  const ProfileHmm& h = models[0];
  EXPECT_EQ(h.name, "globins4");
  EXPECT_EQ(h.length, 149);
  EXPECT_EQ(h.sequences, 4);
  EXPECT_DOUBLE_EQ(h.effective_sequences, 0.964844);
  EXPECT_DOUBLE_EQ(h.msv.mu_or_tau, -9.9014);
  EXPECT_DOUBLE_EQ(h.msv.lambda, 0.70957);
  EXPECT_DOUBLE_EQ(h.viterbi.mu_or_tau, -10.7224);
  EXPECT_DOUBLE_EQ(h.forward.mu_or_tau, -4.1637);
  ASSERT_TRUE(h.has_compo);
  EXPECT_DOUBLE_EQ(h.compo[0], 2.36553);   // A
  EXPECT_DOUBLE_EQ(h.compo[19], 3.62921);  // Y
  EXPECT_DOUBLE_EQ(h.insert_emissions[0][0], 2.68640);
  EXPECT_DOUBLE_EQ(h.transitions[0][kMM], 0.57544);
  EXPECT_DOUBLE_EQ(h.transitions[0][kDM], 0.0);
  EXPECT_TRUE(std::isinf(h.transitions[0][kDD]));
  EXPECT_DOUBLE_EQ(h.match_emissions[1][0], 1.70038);
  EXPECT_DOUBLE_EQ(h.match_emissions[1][17], 1.67328);  // V, the consensus
  EXPECT_EQ(h.consensus[1], 'v');
  EXPECT_DOUBLE_EQ(h.transitions[1][kDD], 1.23405);
  EXPECT_DOUBLE_EQ(h.match_emissions[149][8], 1.57593);  // K
  EXPECT_EQ(h.consensus[149], 'k');
  EXPECT_TRUE(std::isinf(h.transitions[149][kMD]));  // no delete after the last node
  EXPECT_TRUE(std::isinf(h.transitions[149][kDD]));
}

TEST_F(HmmFile, EveryProteinProfileOfTheExamplesParses) {
  // Tutorial and testsuite profiles (some gzipped); nucleic-acid ones must be refused as such.
  int protein = 0, nucleic = 0;
  for (const auto& dir : {kExamples + "tutorial", kExamples + "testsuite"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string path = entry.path().string();
      if (path.find(".hmm") == std::string::npos || path.find(".hmm2") != std::string::npos) continue;
      const std::string text = read_text_maybe_gzipped(path);
      if (text.rfind("HMMER3/", 0) != 0) continue;  // HMMER2 files: not ours
      const bool amino = text.find("\nALPH  amino") != std::string::npos;
      if (amino) {
        const auto models = parse_hmm_file(text, path);
        for (const auto& h : models) {
          EXPECT_EQ(static_cast<int>(h.match_emissions.size()), h.length + 1) << path;
          EXPECT_NE(text.find("LENG  " + std::to_string(h.length)), std::string::npos) << path;
        }
        protein += static_cast<int>(models.size());
      } else {
        EXPECT_NE(error_of(text).find("not a protein model"), std::string::npos) << path;
        ++nucleic;
      }
    }
  }
  std::printf("%d protein models parsed, %d nucleic-acid files refused\n", protein, nucleic);
  EXPECT_GE(protein, 10);
  EXPECT_GE(nucleic, 1);
  const auto smc = parse_hmm_file(read_text_maybe_gzipped(kExamples + "testsuite/SMC_N.hmm.gz"), "SMC_N");
  EXPECT_EQ(smc.front().name, "SMC_N");  // HMMER 3.0's HMMER3/e
  EXPECT_EQ(smc.front().length, 1142);
  EXPECT_EQ(smc.front().accession, "PF02463.10");
  EXPECT_DOUBLE_EQ(smc.front().gathering[0], -95.80);
  EXPECT_EQ(smc.front().consensus[1], 'y');
}

TEST_F(HmmFile, SeveralModelsInOneFile) {
  const std::string fn3 = read_file_text(kExamples + "tutorial/fn3.hmm");
  const auto models = parse_hmm_file(globins4_ + fn3 + globins4_, "three.hmm");
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[1].name, "fn3");
  EXPECT_EQ(models[2].length, 149);
  // hmmsearch 3.3.2 refuses a file whose models mix HMMER3/f and HMMER3/e
  // ("bad file format"); so does helix, naming the model. One format of
  // either kind is read.
  const std::string smc_e = read_text_maybe_gzipped(kExamples + "testsuite/SMC_N.hmm.gz");
  ASSERT_EQ(smc_e.rfind("HMMER3/e", 0), 0u);
  EXPECT_NE(error_of(globins4_ + smc_e).find("model 2 is HMMER3/e after HMMER3/f models"), std::string::npos)
      << error_of(globins4_ + smc_e);
  EXPECT_NE(error_of(smc_e + globins4_).find("model 2 is HMMER3/f after HMMER3/e models"), std::string::npos);
  EXPECT_EQ(parse_hmm_file(smc_e + smc_e, "two 3/e").size(), 2u);
}

TEST_F(HmmFile, DamagedFilesGiveOneClearError) {
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = globins4_;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_NE(error_of(globins4_.substr(0, globins4_.size() / 2)).find("ends early"), std::string::npos);
  EXPECT_NE(error_of(globins4_.substr(0, globins4_.size() - 3)).find("ends early"), std::string::npos);  // no "//"
  EXPECT_NE(error_of(replaced("LENG  149", "LENG  150")).find("expected node 150"), std::string::npos);
  EXPECT_NE(error_of(replaced("LENG  149", "LENG  148")).find("more nodes than LENG"), std::string::npos);
  // Found by fuzzing (tests/fuzz/corpus/fuzz_hmm_file/crash-leng-out-of-int-range): a count
  // past int's range was cast to int (undefined behaviour) before its range check.
  EXPECT_NE(error_of(replaced("LENG  149", "LENG  9e72")).find("LENG must be an integer in 1..100000"), std::string::npos);
  EXPECT_NE(error_of(replaced("LENG  149", "LENG  149.5")).find("LENG must be an integer"), std::string::npos);
  EXPECT_NE(error_of(replaced("NSEQ  4", "NSEQ  1e300")).find("NSEQ must be an integer"), std::string::npos);
  EXPECT_NE(error_of(replaced("1.70038", "1.7oo38")).find("not a -ln(probability)"), std::string::npos);
  EXPECT_NE(error_of(replaced("1.70038", "0.10038")).find("sum to"), std::string::npos);
  EXPECT_NE(error_of(replaced("HMMER3/f", "HMMER3/b")).find("not an HMMER3 profile"), std::string::npos);
  EXPECT_NE(error_of(replaced("STATS LOCAL MSV       -9.9014  0.70957\n", "")).find("STATS"), std::string::npos);
  EXPECT_NE(error_of(replaced("ALPH  amino", "ALPH  dna")).find("not a protein model"), std::string::npos);
  EXPECT_NE(error_of("").find("holds no profile"), std::string::npos);
  EXPECT_THROW(read_hmm_file("/no/such/file.hmm"), InputError);
  for (const std::string& message :
       {error_of(globins4_.substr(0, 1000)), error_of(replaced("1.70038", "x"))})
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

}  // namespace
}  // namespace helix::hmmsearch
