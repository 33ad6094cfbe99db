// results.jsonl and the console's rows during a sweep, results.json and the report after it.
#include "bench/sweep/sweep_recorder.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/flops_unit.hpp"
#include "common/utc_time.hpp"
#include "reports/html/html_report.hpp"
#include "reports/results/config_json.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

json distributed_info(const ring::World& w) {
  json ranks = json::array();
  for (int r = 0; r < w.size(); ++r)
    ranks.push_back({{"rank", r},
                     {"host", w.hosts()[static_cast<std::size_t>(r)]},
                     {"clock_offset_ns", w.clock_offsets_ns()[static_cast<std::size_t>(r)]},
                     {"clock_rtt_ns", w.clock_rtt_ns()[static_cast<std::size_t>(r)]}});
  return {{"library", w.library()},
          {"world_size", w.size()},
          {"clock_sync",
           "ping-pong with rank 0, best of 16 rounds; offset uncertain by at most rtt/2 (docs/distributed.md)"},
          {"ranks", ranks}};
}

std::vector<std::string> labels_of(const std::vector<Config>& configs) {
  std::vector<std::string> labels;
  labels.reserve(configs.size());
  for (const auto& c : configs) labels.push_back(c.label());
  return labels;
}

ProgressOptions progress_options(const std::vector<Config>& configs, const RunOptions& opts) {
  ProgressOptions p;
  p.mode = opts.console;
  p.rounds = opts.rounds;
  p.interleave = opts.interleave;
  p.per_gpu = !configs.empty() && configs.front().backend == Backend::cuda;
  // One backend a sweep, so one unit for its rate column, known before its first row.
  if (!configs.empty()) p.rate_unit = flops_unit(to_string(configs.front().backend));
  return p;
}

}  // namespace

SweepRecorder::SweepRecorder(const std::vector<Config>& configs, const RunOptions& opts)
    : configs_(configs),
      started_utc_(utc_now_iso8601()),
      progress_(labels_of(configs), progress_options(configs, opts), opts.primary ? stderr : nullptr) {
  std::optional<InputError> busy;
  if (opts.primary) {
    try {
      lock_.emplace("--out", opts.out_dir);
    } catch (const InputError& e) {
      busy = e;
    }
  }
  agree_on_input(busy, "");
  if (busy) throw *busy;
  if (opts.primary) writer_.emplace(opts.out_dir);
}

void SweepRecorder::start(std::size_t i, int round, int rounds) { progress_.start(static_cast<int>(i), round, rounds); }

void SweepRecorder::record(std::size_t i, const RecordEntry& entry) {
  if (entry.append && writer_) writer_->append(entry.record);
  if (!entry.closed) {
    progress_.round(static_cast<int>(i), entry.round, entry.rounds, entry.record);
    return;
  }
  const std::string verdict(*entry.closed == RunStatus::failed ? "FAILED" : to_string(*entry.closed));
  progress_.finish(static_cast<int>(i), verdict, entry.record, entry.detail);
}

SweepOutcome SweepRecorder::finish(const std::vector<RunStatus>& ended, const SweepStop& stop, const SweepSpec& spec,
                                   const RunOptions& opts) {
  progress_.end_of_sweep();  // after the last row, before the count `run` prints
  SweepOutcome outcome;
  outcome.fatal = stop.fatal;
  outcome.interrupted_by = stop.signal;
  for (const RunStatus status : ended) {
    if (status == RunStatus::ok)
      ++outcome.ok;
    else if (status == RunStatus::skipped)
      ++outcome.skipped;
    else
      ++outcome.failed;
  }
  if (!writer_) return outcome;
  json header{{"tool", tool_info(opts.argv)},
              {"host", host_info()},
              {"run_time", {{"started_utc", started_utc_}, {"finished_utc", utc_now_iso8601()}}},
              {"profile", to_json(spec)},
              {"stopped", stop.stopped() ? json(stop.reason) : json(nullptr)}};
  if (const ring::World* w = world()) header["distributed"] = distributed_info(*w);
  if (opts.pairing) header["pairing"] = to_json(*opts.pairing);  // an A/B run (round_pacing.hpp)
  std::vector<std::string> order;
  for (const auto& c : configs_) order.push_back(reports::config_id(c));
  outcome.results_json = writer_->finish(header, order);
  outcome.results_jsonl = writer_->jsonl_path();
  // The report is a view of what was measured: a problem rendering it never fails the sweep.
  try {
    outcome.report_html = reports::write_report_next_to(outcome.results_json);
  } catch (const std::exception& e) {
    print_quietly(stderr, fmt::format("ringbench: warning: report.html not written: {}\n", e.what()));
  }
  return outcome;
}

}  // namespace rb::bench
