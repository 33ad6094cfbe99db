// The sweep runner.
#include "bench/sweep_runner.hpp"

#include <map>
#include <thread>

#include <fmt/format.h>

#include "bench/environment.hpp"
#include "bench/progress.hpp"
#include "bench/run_record.hpp"
#include "common/error.hpp"
#include "reports/config_json.hpp"
#include "reports/results_writer.hpp"
#include "ring/executor.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// Throws InputError for a configuration this build cannot run or that breaks a rule.
void check_runnable(const Config& cfg) {
  if (cfg.backend != Backend::cpu)
    throw InputError("backend", std::string(to_string(cfg.backend)),
                     "this build runs the cpu backend only (the cuda backend is not built yet)");
  if (cfg.transport != Transport::local)
    throw InputError("transport", std::string(to_string(cfg.transport)),
                     "the cpu backend in one process uses the local transport");
  if (cfg.dtype == DType::bfloat16)
    throw InputError("dtype", "bfloat16", "the cpu backend runs float64 or float32; bfloat16 needs the cuda backend");
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

}  // namespace

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
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& cfg = configs[i];
    const int idx = static_cast<int>(i);
    progress.start(idx, cfg.label());
    json rec;
    if (!invalid[i].empty()) {
      rec = skipped_record(cfg, invalid[i]);
      ++outcome.skipped;
      writer.append(rec);
      progress.finish(idx, cfg.label(), "skipped", invalid[i]);
      continue;
    }
    try {
      rec = run_configuration(cfg, opts, [&](const ring::CheckRows& rows) -> const std::vector<double>& {
        return refs.rows(cfg, rows);
      });
    } catch (const std::exception& e) {
      rec = failed_record(cfg, e.what());
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
  json header{{"tool", tool_info(opts.argv)}, {"host", host_info()}, {"profile", to_json(spec)}};
  outcome.results_json = writer.finish(header);
  outcome.results_jsonl = writer.jsonl_path();
  return outcome;
}

}  // namespace rb::bench
