// The sweep runner.
#include "bench/sweep_runner.hpp"

#include <csignal>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "bench/environment.hpp"
#include "bench/interrupt.hpp"
#include "common/nvtx.hpp"
#include "bench/progress.hpp"
#include "bench/run_record.hpp"
#include "common/error.hpp"
#include "reports/config_json.hpp"
#include "reports/html_report.hpp"
#include "reports/results_writer.hpp"
#include "ring/executor.hpp"
#include "ring/executor_cuda.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// Throws InputError for a configuration this build cannot run or that breaks a rule.
void check_runnable(const Config& cfg) {
  if (cfg.transport != Transport::local)
    throw InputError("transport", std::string(to_string(cfg.transport)),
                     "this build runs ranks in one process: the local transport (mpi and nccl are not built yet)");
  if (cfg.backend == Backend::cuda) {
#ifdef RINGBENCH_HAVE_CUDA
    if (!ring::cuda_device_available()) throw InputError("backend", "cuda", "no CUDA device is available on this machine");
    if (cfg.dtype != DType::bfloat16)
      throw InputError("dtype", std::string(to_string(cfg.dtype)), "the cuda backend runs bfloat16");
    if (cfg.head_dim != 64 && cfg.head_dim != 128)
      throw InputError("head-dim", std::to_string(cfg.head_dim), "the cuda attention kernel supports D = 64 and 128");
#else
    throw InputError("backend", "cuda", "this build has no CUDA backend (nvcc was not found when it was configured)");
#endif
  } else if (cfg.dtype == DType::bfloat16) {
    throw InputError("dtype", "bfloat16", "the cpu backend runs float64 or float32; bfloat16 needs the cuda backend");
  }
  (void)ring::make_plan(cfg);
}

// Full-attention reference rows, kept while consecutive configurations share inputs and rows.
class ReferenceCache {
 public:
  const std::vector<double>& rows(const Config& cfg, const ring::CheckRows& check) {
    const std::string key = fmt::format("{}/{}/{}/{}/{}/{}/{}/{}", cfg.seq, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                        cfg.causal, cfg.seed, to_string(cfg.dtype), check.positions.size());
    if (key != key_ || check.positions != positions_) {
      const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      value_ = ring::reference_rows(cfg, check.positions, threads);
      key_ = key;
      positions_ = check.positions;
    }
    return value_;
  }

 private:
  std::string key_;
  std::vector<std::int64_t> positions_;
  std::vector<double> value_;
};

std::string ok_detail(const json& rec) {
  const auto& t = rec["timing"];
  return fmt::format("median {:.3f} ms ±{:.1f}%  {:.3f} TFLOP/s  max_err {:.2e}", t["median_ms"].get<double>(),
                     t["noise_pct"].get<double>(), rec["metrics"]["attention_tflops"].get<double>(),
                     rec["correctness"]["max_abs_err"].get<double>());
}

std::int64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    std::int64_t kb = 0;
    in >> kb;
    if (key == "MemAvailable:") return kb * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

std::string signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig); }

}  // namespace

FaultSpec parse_fault(const std::string& s) {
  if (s.empty()) return {};
  const auto at = s.find('@');
  const std::string kind = s.substr(0, at);
  if (at == std::string::npos || (kind != "throw" && kind != "hang" && kind != "corrupt" && kind != "fatal"))
    throw InputError("--inject-fault", s, "must be KIND@N with KIND one of throw, hang, corrupt, fatal");
  try {
    std::size_t used = 0;
    const int n = std::stoi(s.substr(at + 1), &used);
    if (n < 0 || used != s.size() - at - 1) throw std::invalid_argument("n");
    return {kind, n};
  } catch (const std::logic_error&) {
    throw InputError("--inject-fault", s, "N must be a configuration index >= 0");
  }
}

SweepOutcome run_sweep(const SweepSpec& spec, const RunOptions& opts) {
  const auto configs = expand(spec);
  // Validate everything before writing anything, so bad input never leaves a results file behind.
  std::vector<std::string> invalid(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    try {
      check_runnable(configs[i]);
    } catch (const InputError& e) {
      if (!opts.skip_invalid)
        throw InputError(e.where(), e.value(), fmt::format("{} (configuration {})", e.rule(), configs[i].label()));
      invalid[i] = e.what();
    }
  }

  reports::ResultsWriter writer(opts.out_dir);
  Progress progress(static_cast<int>(configs.size()));
  ReferenceCache refs;
  SweepOutcome outcome;
  InterruptGuard interrupts;
  const std::int64_t memory_limit =
      opts.memory_limit_bytes > 0 ? opts.memory_limit_bytes : available_memory_bytes() / 10 * 9;
  std::string stopped;  // why the rest of the sweep is not run
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& cfg = configs[i];
    const int idx = static_cast<int>(i);
    progress.start(idx, cfg.label());
    json rec;
    std::string skip = !stopped.empty() ? "not run: " + stopped : invalid[i];
    if (skip.empty() && memory_limit > 0) {
      const auto need = estimated_bytes(ring::make_plan(cfg), opts);
      if (need > memory_limit)
        skip = fmt::format("needs an estimated {:.2f} GiB of host memory; {:.2f} GiB may be used", static_cast<double>(need) / 1073741824.0,
                           static_cast<double>(memory_limit) / 1073741824.0);
    }
#ifdef RINGBENCH_HAVE_CUDA
    if (skip.empty() && cfg.backend == Backend::cuda) {
      const auto need = ring::cuda_executor_bytes(ring::make_plan(cfg));
      const auto free_bytes = ring::cuda_free_memory_bytes();
      if (need > free_bytes / 10 * 9)
        skip = fmt::format("needs an estimated {:.2f} GiB of device memory; {:.2f} GiB are free",
                           static_cast<double>(need) / 1073741824.0, static_cast<double>(free_bytes) / 1073741824.0);
    }
#endif
    if (!skip.empty()) {
      rec = skipped_record(cfg, skip);
      ++outcome.skipped;
      writer.append(rec);
      progress.finish(idx, cfg.label(), "skipped", skip);
      continue;
    }
    try {
      nvtx::ScopedRange range(std::string(nvtx::kRangeConfig) + " " + cfg.label());
      rec = run_configuration(
          cfg, opts, [&](const ring::CheckRows& rows) -> const std::vector<double>& { return refs.rows(cfg, rows); },
          idx);
    } catch (const FatalError& e) {
      rec = failed_record(cfg, fmt::format("fatal: {}", e.what()));
      outcome.fatal = true;
      stopped = fmt::format("the sweep stopped after a fatal error in {}", cfg.label());
    } catch (const std::exception& e) {
      rec = failed_record(cfg, e.what());
    }
    if (const int sig = interrupt_signal(); sig != 0 && stopped.empty()) {
      outcome.interrupted_by = sig;
      stopped = fmt::format("the sweep was interrupted by {}", signal_name(sig));
    }
    writer.append(rec);
    if (rec["status"] == "ok") {
      ++outcome.ok;
      progress.finish(idx, cfg.label(), "ok", ok_detail(rec));
    } else {
      ++outcome.failed;
      progress.finish(idx, cfg.label(), "FAILED", rec["reason"].get<std::string>());
    }
  }
  json header{{"tool", tool_info(opts.argv)},
              {"host", host_info()},
              {"profile", to_json(spec)},
              {"stopped", stopped.empty() ? json(nullptr) : json(stopped)}};
  outcome.results_json = writer.finish(header);
  outcome.results_jsonl = writer.jsonl_path();
  // The report is a view of what was measured: a problem rendering it never fails the sweep.
  try {
    outcome.report_html = reports::write_report_next_to(outcome.results_json);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ringbench: warning: report.html not written: {}\n", e.what());
  }
  return outcome;
}

}  // namespace rb::bench
