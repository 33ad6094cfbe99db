// On the CPU, in every build: every configuration a gpu test or a CUDA micro-benchmark runs is one the
// cuda backend takes (ring/executor/backend_support.hpp, and the cudnn refusals of
// ring/plan/sdpa_pieces.hpp), and the gpu tests take their cases from gpu_cases(), never from
// every_variant(). Issue 50: three gpu tests looped over every_variant() after ulysses and the hybrid
// joined it, and threw on a GPU while every CPU run skipped them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "bench/micro/cuda_bench_cases.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "gpu_cases.hpp"
#include "ring/executor/backend_support.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring::test {
namespace {

// The rule the executor applies (make_cuda_executor), and the cudnn one its ranks apply at setup.
void expect_runs(const Config& cfg) {
  SCOPED_TRACE(cfg.label());
  EXPECT_NO_THROW(check_backend_supports(cfg));
  if (cfg.kernel == Kernel::cudnn) {
    EXPECT_EQ(sdpa_refusal(make_plan(cfg)), "");
  }
}

TEST(GpuCases, EveryCaseIsOneTheBackendRuns) {
  for (const Kernel kernel : {Kernel::ringbench, Kernel::cudnn})
    for (const GpuCase& g : gpu_cases(kernel)) {
      EXPECT_EQ(g.cfg.kernel, kernel);
      expect_runs(g.cfg);
    }
  for (const GpuCase& g : transfer_span_cases()) expect_runs(g.cfg);
  expect_runs(link_model_config());
  expect_runs(abort_config());
}

// The cases cover what the backend runs, and nothing it refuses is in them: per variant, every split
// that runs without documents, every c, both rank modes and both launches. Each variant the backend
// takes appears, so a variant that lands on the cuda backend is in the gpu tests the day it lands.
TEST(GpuCases, CoverEverySplitVariantAndCTheBackendRuns) {
  const auto cases = gpu_cases(Kernel::ringbench);
  std::set<Variant> variants;
  std::map<std::string, int> per_config;
  for (const GpuCase& g : cases) {
    variants.insert(g.cfg.variant);
    ++per_config[g.cfg.label()];
  }
  for (const auto& [label, n] : per_config) EXPECT_EQ(n, 4) << label << ": 2 rank modes x 2 launches";
  for (const Variant v : every_variant()) {
    bool runs = false;
    for (const Split s : {Split::contiguous, Split::zigzag, Split::striped})
      for (int c : {1, 2, 4}) runs = runs || cuda_runs(gpu_config(c, s, v, Kernel::ringbench));
    EXPECT_EQ(variants.count(v), runs ? 1u : 0u) << to_string(v);
  }
  // Today's backend: the forward of ring, allgather and ring-bidirectional, no documents; 5 c x 3
  // splits x 3 variants x 2 modes x 2 launches. This count changes with the backend's rule, on purpose.
  EXPECT_EQ(cases.size(), 5u * 3 * 3 * 2 * 2);
  for (const GpuCase& g : cases) {
    EXPECT_EQ(g.cfg.phase, Phase::fwd) << g.name();
    EXPECT_FALSE(g.cfg.documents.given()) << g.name();
  }
  // No cudnn refusal (the Stats alignment of odd piece rows) drops a case: both kernels run the same.
  EXPECT_EQ(gpu_cases(Kernel::cudnn).size(), cases.size());
}

// What the backend refuses never reaches a gpu test, and the configurations the refusal test expects
// refused are.
TEST(GpuCases, RefusedConfigurationsAreRefusedAndNeverCases) {
  for (const Config& cfg : refused_configs()) {
    SCOPED_TRACE(cfg.label());
    EXPECT_THROW(check_backend_supports(cfg), InputError);
    EXPECT_FALSE(cuda_runs(cfg));
  }
  Config ulysses = gpu_config(4, Split::zigzag, Variant::ulysses, Kernel::ringbench);
  ulysses.ulysses_degree = 4;
  EXPECT_FALSE(cuda_runs(ulysses));  // the backend's rule of this build (no all-to-all on the GPU yet)
  Config bwd = gpu_config(2, Split::zigzag, Variant::ring, Kernel::ringbench);
  bwd.phase = Phase::fwd_bwd;
  EXPECT_FALSE(cuda_runs(bwd));
}

TEST(GpuCases, EveryCudaMicroBenchmarkConfigurationRuns) {
  for (const auto seq : micro::kCudaPassSeqs) expect_runs(micro::cuda_pass_config(seq));
  for (const int d : micro::kCudaAttentionDims)
    for (const auto s : micro::kCudaAttentionSeqs)
      for (const int group : micro::kCudaAttentionGroups)
        for (const Kernel kernel : {Kernel::ringbench, Kernel::cudnn}) {
          const Config cfg = micro::cuda_attention_config(d, s, group, kernel);
          expect_runs(cfg);
          if (kernel != Kernel::cudnn) continue;
          // The benchmark runs one pair's pieces without a plan: each must pass the Stats rule.
          for (const bool diag : {false, true})
            for (const auto& piece : pair_pieces(micro::cuda_attention_pair(s, diag), true))
              EXPECT_TRUE(stats_aligned(piece, cfg)) << cfg.label() << " piece at row " << piece.q_row0;
        }
}

// The loops of the gpu tests and the CUDA benchmarks come from the rule above: a gpu test that loops
// over every_variant() or every_split() again would take in what the backend refuses.
TEST(GpuCases, NoGpuTestOrCudaBenchmarkLoopsOverEveryVariant) {
  namespace fs = std::filesystem;
  const fs::path root(RINGBENCH_SOURCE_DIR);
  const std::regex banned(R"(\bevery_(variant|split)\s*\()");
  int files = 0;
  for (const auto& [dir, prefix] :
       {std::pair{root / "tests/device", std::string()}, std::pair{root / "bench/micro", std::string("cuda_")}})
    for (const auto& entry : fs::directory_iterator(dir)) {
      const auto name = entry.path().filename().string();
      // The rule's own files name every_variant() to filter it.
      if (name.rfind(prefix, 0) != 0 || name.rfind("gpu_cases.", 0) == 0 || name == "test_gpu_cases.cpp") continue;
      if (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp" && entry.path().extension() != ".cu")
        continue;
      ++files;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      EXPECT_FALSE(std::regex_search(text.str(), banned))
          << entry.path() << " loops over every_variant()/every_split(): take the cases from gpu_cases()";
    }
  EXPECT_GE(files, 5);  // the gpu tests and the CUDA benchmarks were read
}

}  // namespace
}  // namespace rb::ring::test
