// The gpu tests' configurations (see gpu_cases.hpp).
#include "gpu_cases.hpp"

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/executor/backend_support.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"
#include "tests/ring/documents_fixture.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring::test {

std::string GpuCase::name() const {
  return cfg.label() + " mode " + std::string(to_string(mode)) + " launch " + std::string(to_string(launch));
}

Config gpu_config(int c, Split split, Variant variant, Kernel kernel) {
  Config cfg;
  cfg.seq = 2LL * c * 48;
  cfg.cp = c;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = c % 2 ? 64 : 128;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  cfg.kernel = kernel;
  return cfg;
}

bool cuda_runs(const Config& cfg) {
  try {
    check_backend_supports(cfg);
    const Plan plan = make_plan(cfg);
    return cfg.kernel != Kernel::cudnn || sdpa_refusal(plan).empty();
  } catch (const InputError&) {
    return false;
  }
}

namespace {

// cfg, and cfg packed with the corner documents (doc-zigzag only so: it is the split of documents).
std::vector<Config> with_documents_axis(const Config& cfg) {
  std::vector<Config> out;
  if (cfg.split != Split::doc_zigzag) out.push_back(cfg);
  out.push_back(rb::test::with_corner_documents(cfg));
  return out;
}

// cfg under every phase, and under each dK/dV design where the design changes what runs.
std::vector<Config> with_phase_axis(Config cfg) {
  std::vector<Config> out;
  for (const Phase phase : {Phase::fwd, Phase::bwd, Phase::fwd_bwd}) {
    cfg.phase = phase;
    if (!dkv_matters(phase, cfg.variant)) {
      out.push_back(cfg);
      continue;
    }
    for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
      cfg.dkv = dkv;
      out.push_back(cfg);
    }
  }
  return out;
}

}  // namespace

std::vector<GpuCase> gpu_cases(Kernel kernel) {
  std::vector<GpuCase> out;
  for (int c : {1, 2, 3, 4, 8})
    for (const Split split : every_split())
      for (const Variant variant : every_variant())
        for (const Config& by_variant : testing::exchange_cases(gpu_config(c, split, variant, kernel)))
          for (const Config& by_docs : with_documents_axis(by_variant))
            for (const Config& cfg : with_phase_axis(by_docs)) {
              if (!cuda_runs(cfg)) continue;
              for (const auto mode : {CudaRankMode::isolated, CudaRankMode::concurrent})
                for (const auto launch : {CudaLaunch::graph, CudaLaunch::eager}) out.push_back({cfg, mode, launch});
            }
  return out;
}

Config link_model_config() {
  Config cfg = gpu_config(2, Split::contiguous, Variant::ring, Kernel::ringbench);
  cfg.head_dim = 64;
  cfg.link_gbps = 0.1;  // 0.1 Gbit/s: a block of 96 rows x 2 x 2 heads x 64 x 2 bytes takes ~3.9 ms
  return cfg;
}

Config abort_config() {
  Config cfg = gpu_config(2, Split::zigzag, Variant::ring, Kernel::ringbench);
  cfg.head_dim = 64;
  return cfg;
}

std::vector<GpuCase> transfer_span_cases() {
  std::vector<GpuCase> out;
  for (const GpuCase& g : gpu_cases(Kernel::ringbench))
    if (g.cfg.cp == 4 && g.cfg.split == Split::zigzag && g.cfg.phase == Phase::fwd && !g.cfg.documents.given() &&
        g.launch == CudaLaunch::graph)
      out.push_back(g);
  return out;
}

std::vector<Config> refused_configs() {
  Config fp32 = gpu_config(2, Split::contiguous, Variant::ring, Kernel::ringbench);
  fp32.head_dim = 64;
  fp32.dtype = DType::float32;
  Config d96 = fp32;
  d96.dtype = DType::bfloat16;
  d96.head_dim = 96;
  return {fp32, d96};
}

}  // namespace rb::ring::test
