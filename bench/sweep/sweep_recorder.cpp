// results.jsonl and the progress lines during a sweep, results.json and the report after it.
#include "bench/sweep/sweep_recorder.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/result_record.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "reports/html/html_report.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// The headline rate is per rank (per GPU on the cuda backend), beside the slowest rank's own rate:
// never the sum over ranks, which can exceed one device's peak.
std::string ok_detail(const json& rec) {
  // Every sample dropped as throttled so far: no timing to show, only why.
  if (!rec["timing"].is_object()) return rec.value("reason", std::string("no timed sample kept"));
  const auto& t = rec["timing"];
  const auto& m = rec["metrics"];
  const bool gpu = rec["config"].value("backend", "") == "cuda";
  auto num = [](const json& v) { return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : std::string("-"); };
  const json& noise = t["noise_pct"];
  return fmt::format("median {:.3f} ms ±{}%  {} TFLOP/s per {} (slowest rank {})  max_err {:.2e}",
                     t["median_ms"].get<double>(), noise.is_number() ? fmt::format("{:.1f}", noise.get<double>()) : "-",
                     num(m["attention_tflops"]), gpu ? "GPU" : "rank",
                     num(m.value("attention_tflops_slowest_rank", json(nullptr))),
                     rec["correctness"]["max_abs_err"].get<double>());
}

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

}  // namespace

SweepRecorder::SweepRecorder(const std::vector<Config>& configs, const RunOptions& opts)
    : configs_(configs), progress_(static_cast<int>(configs.size()), opts.primary ? stderr : nullptr) {
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

void SweepRecorder::start(std::size_t i, int round, int rounds) {
  progress_.start(static_cast<int>(i), configs_[i].label(), round, rounds);
}

void SweepRecorder::close(ConfigurationSlot& slot, std::size_t i, const json& rec, RunStatus status, bool write,
                          const std::string& detail) {
  if (write && writer_) writer_->append(rec);
  slot.status = status;
  const std::string verdict(status == RunStatus::failed ? "FAILED" : to_string(status));
  slot.rounds.reset();  // its candidate passes are not needed any more
  progress_.finish(static_cast<int>(i), configs_[i].label(), verdict, detail);
}

void SweepRecorder::skip(ConfigurationSlot& slot, std::size_t i, const std::string& reason) {
  start(i, 0, 1);
  close(slot, i, skipped_record(configs_[i], reason), RunStatus::skipped, true, reason);
}

void SweepRecorder::keep(ConfigurationSlot& slot, std::size_t i, const SweepStop& stop) {
  const json rec = slot.rounds->record();
  close(slot, i, rec, slot.rounds->standing().status, false,
        fmt::format("{}  ({} of {} rounds: {})", ok_detail(rec), slot.rounds->rounds_done(), slot.rounds->rounds(),
                    stop.reason));
}

void SweepRecorder::keep_rounds_run(ConfigurationSlot& slot, std::size_t i, const SweepStop& stop) {
  start(i, 0, 1);
  keep(slot, i, stop);
}

void SweepRecorder::record_round(ConfigurationSlot& slot, std::size_t i, int round, const RoundResult& result,
                                 const SweepStop& stop) {
  const ConfigurationRounds& run = *slot.rounds;
  const int done = run.rounds_done();
  if (!result.failure.empty() && result.signal != 0 && done > 0) {
    // The signal cut this round short, not a fault of the configuration: its earlier rounds stand.
    keep(slot, i, stop);
  } else if (!result.failure.empty()) {
    // A failure in a later round keeps the earlier rounds' timing beside its reason.
    const std::string reason = done > 0 ? fmt::format("round {} of {}: {}", round + 1, run.rounds(), result.failure)
                                        : result.failure;
    json rec = done > 0 ? run.record() : failed_record(configs_[i], result.failure);
    rec["status"] = to_string(RunStatus::failed);
    rec["reason"] = reason;
    close(slot, i, rec, RunStatus::failed, true, reason);
  } else {
    const json rec = run.record();
    if (run.finished()) {
      const ConfigurationRounds::Standing now = run.standing();
      close(slot, i, rec, now.status, true, now.status == RunStatus::ok ? ok_detail(rec) : now.reason);
    } else {
      if (writer_) writer_->append(rec);  // what is measured so far survives a kill
      progress_.round(static_cast<int>(i), configs_[i].label(), round, run.adaptive() ? 0 : run.rounds(),
                      ok_detail(rec));
    }
  }
}

SweepOutcome SweepRecorder::finish(std::vector<ConfigurationSlot>& slots, const SweepStop& stop, const SweepSpec& spec,
                                   const RunOptions& opts) {
  SweepOutcome outcome;
  outcome.fatal = stop.fatal;
  outcome.interrupted_by = stop.signal;
  for (auto& slot : slots) {
    if (!slot.status && slot.rounds) slot.status = slot.rounds->standing().status;
    if (slot.status == RunStatus::ok)
      ++outcome.ok;
    else if (slot.status == RunStatus::skipped)
      ++outcome.skipped;
    else
      ++outcome.failed;
  }
  if (!writer_) return outcome;
  json header{{"tool", tool_info(opts.argv)},
              {"host", host_info()},
              {"profile", to_json(spec)},
              {"stopped", stop.stopped() ? json(stop.reason) : json(nullptr)}};
  if (const ring::World* w = world()) header["distributed"] = distributed_info(*w);
  outcome.results_json = writer_->finish(header);
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
