// The attention kernel of a configuration (see kernel_choice.hpp).
#include "bench/sweep/kernel_choice.hpp"

#include "common/error.hpp"
#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#endif
#include "ring/executor/backend_support.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::bench {

std::string cudnn_refusal(const Config& cfg) {
#ifndef RINGBENCH_HAVE_CUDNN
  (void)cfg;
  return "this build has no cuDNN kernel (cuDNN, or the cuDNN frontend's headers, were not found when it was "
         "configured: see the configure line's cuDNN=OFF reason; bash scripts/pypi-deps.sh cudnn-frontend fetches "
         "the headers)";
#else
  if (cfg.backend != Backend::cuda) return "cuDNN runs on the cuda backend; the cpu backend has ringbench's kernel";
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cuDNN's library did not open: " + lib.error;
  Config as_ringbench = cfg;
  as_ringbench.kernel = Kernel::ringbench;
  try {
    ring::check_backend_supports(as_ringbench);
  } catch (const InputError& e) {
    return e.rule();
  }
  return ring::sdpa_refusal(ring::make_plan(as_ringbench));
#endif
}

Kernel choose_kernel(const Config& cfg) {
  if (cfg.kernel != Kernel::automatic) return cfg.kernel;
  try {
    return cudnn_refusal(cfg).empty() ? Kernel::cudnn : Kernel::ringbench;
  } catch (const InputError&) {
    return Kernel::ringbench;
  }
}

void check_kernel(const Config& cfg) {
  if (cfg.kernel == Kernel::automatic) throw Error("check_kernel: the kernel was never chosen");
  if (cfg.kernel != Kernel::cudnn) return;
  if (const std::string why = cudnn_refusal(cfg); !why.empty()) throw InputError("kernel", "cudnn", why);
}

reports::RecordKernelChoice kernel_choice_record(Kernel requested, const Config& cfg) {
  reports::RecordKernelChoice choice{.requested = std::string(to_string(requested)),
                                     .chosen = std::string(to_string(cfg.kernel)),
                                     .why = std::nullopt,
                                     .cudnn_plans = {},
                                     .cudnn_graphs = {},
                                     .cudnn_plan_builds = std::nullopt,
                                     .cudnn_plan_build_ms = std::nullopt};
  if (requested == Kernel::automatic) {
    std::string why = "cuDNN runs this configuration";
    if (cfg.kernel != Kernel::cudnn) {
      try {
        why = cudnn_refusal(cfg);
      } catch (const InputError& e) {
        why = e.what();
      }
    }
    choice.why = why;
  }
  return choice;
}

void add_cudnn_graphs(reports::RecordKernelChoice& choice, const ring::CudnnGraphsUsed& latest, int builds,
                      double build_ms) {
  if (latest.shapes.empty()) return;
  for (const auto& [shape, facts] : latest.shapes) {
    choice.cudnn_plans[shape] = facts.plan;
    choice.cudnn_graphs[shape] = {std::string(ring::to_string(facts.implementation)), facts.build_ms};
  }
  choice.cudnn_plan_builds = builds;
  choice.cudnn_plan_build_ms = build_ms;
}

}  // namespace rb::bench
