// The sweep runner.
#include "bench/sweep/sweep_runner.hpp"

#include <algorithm>
#include <csignal>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/interrupt.hpp"
#include "common/nvtx.hpp"
#include "bench/sweep/progress.hpp"
#include "bench/sweep/result_record.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "reports/results/config_json.hpp"
#include "reports/html/html_report.hpp"
#include "reports/results/results_writer.hpp"
#include "ring/executor.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// Throws InputError for a configuration this build cannot run or that breaks a rule.
void check_runnable(const Config& cfg) {
  check_backend(cfg, world());
  (void)ring::make_plan(cfg);
}

// Full-attention reference rows, kept while consecutive configurations share inputs and rows.
class ReferenceCache {
 public:
  // With a group, each process computes a slice of the rows and the slices are summed: every
  // process ends with all of them, for 1/c of the work each.
  const std::vector<double>& rows(const Config& cfg, const ring::CheckRows& check, ring::ProcessGroup* group,
                                  int threads) {
    const std::string key = fmt::format("{}/{}/{}/{}/{}/{}/{}/{}", cfg.seq, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                        cfg.causal, cfg.seed, to_string(cfg.dtype), check.positions.size());
    if (key != key_ || check.positions != positions_) {
      if (!group) {
        value_ = ring::reference_rows(cfg, check.positions, threads);
      } else {
        const std::size_t n = check.positions.size(), p = static_cast<std::size_t>(group->size());
        const std::size_t r = static_cast<std::size_t>(group->rank()), lo = n * r / p, hi = n * (r + 1) / p;
        const std::vector<std::int64_t> mine(check.positions.begin() + lo, check.positions.begin() + hi);
        const std::size_t width = static_cast<std::size_t>(cfg.heads) * cfg.head_dim;
        value_.assign(n * width, 0.0);
        const auto part = ring::reference_rows(cfg, mine, threads);
        std::copy(part.begin(), part.end(), value_.begin() + lo * width);
        try {
          group->sum(value_);
        } catch (...) {
          key_.clear();  // a half-summed value must not be reused
          throw;
        }
      }
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
                     num(m["attention_tflops"]),
                     gpu ? "GPU" : "rank", num(m.value("attention_tflops_slowest_rank", json(nullptr))),
                     rec["correctness"]["max_abs_err"].get<double>());
}

// An estimate in GiB; a saturated one (common/size_estimate.hpp) says so rather than print 8e9 GiB.
std::string gib_text(std::int64_t bytes) {
  if (bytes == std::numeric_limits<std::int64_t>::max()) return "more than 8 EiB (beyond what int64 counts)";
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / 1073741824.0);
}

std::string signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig); }

}  // namespace

FaultSpec parse_fault(const std::string& s) {
  if (s.empty()) return {};
  const auto at = s.find('@');
  const std::string kind = s.substr(0, at);
  if (at == std::string::npos || (kind != "throw" && kind != "hang" && kind != "corrupt" && kind != "fatal" && kind != "throttle"))
    throw InputError("--inject-fault", s,
                     "must be KIND@N or KIND@N/R with KIND one of throw, hang, corrupt, fatal, throttle");
  auto number = [&](const std::string& text, int least, const char* rule) {
    try {
      std::size_t used = 0;
      const int n = std::stoi(text, &used);
      if (n < least || used != text.size()) throw std::invalid_argument("n");
      return n;
    } catch (const std::logic_error&) {
      throw InputError("--inject-fault", s, rule);
    }
  };
  const std::string rest = s.substr(at + 1);
  const auto slash = rest.find('/');
  FaultSpec f{kind, number(rest.substr(0, slash), 0, "N must be a configuration index >= 0"), -1};
  if (slash != std::string::npos) f.round = number(rest.substr(slash + 1), 1, "R must be a round >= 1") - 1;
  return f;
}

namespace {

// What one process saw of a configuration, for the agreement that follows it on an MPI job.
struct RankOutcome {
  bool threw = false;    // the configuration failed on this process with an exception
  bool induced = false;  // ... because a peer failed first (PeerFailure)
  bool fatal = false;
  int signal = 0;
  std::string reason;
};

// Every process brings its outcome of a round; all leave with the same failure (empty: none) and
// the same decision to stop. The cause named is the first rank whose failure was its own, not a
// peer's echo.
std::string reconcile(ring::World& w, const RankOutcome& mine, bool& fatal, int& signal) {
  const json j{{"threw", mine.threw}, {"induced", mine.induced}, {"fatal", mine.fatal}, {"signal", mine.signal},
               {"reason", mine.reason}};
  const auto all = w.allgather_strings(j.dump());
  int cause = -1;
  for (int pass = 0; pass < 2 && cause < 0; ++pass)
    for (std::size_t k = 0; k < all.size() && cause < 0; ++k) {
      const json o = json::parse(all[k]);
      if (o["threw"].get<bool>() && (pass == 1 || !o["induced"].get<bool>())) cause = static_cast<int>(k);
    }
  for (const auto& s : all) {
    const json o = json::parse(s);
    fatal = fatal || o["fatal"].get<bool>();
    signal = std::max(signal, o["signal"].get<int>());
  }
  if (cause < 0) return "";
  const json o = json::parse(all[static_cast<std::size_t>(cause)]);
  return fmt::format("rank {}: {}", cause, o["reason"].get<std::string>());
}

// A sweep lists each configuration once: an axis value given twice would give two runs one id.
std::vector<Config> unique_configs(const std::vector<Config>& all) {
  std::vector<Config> out;
  std::set<std::string> seen;
  for (const auto& c : all)
    if (seen.insert(reports::config_id(c)).second) out.push_back(c);
  return out;
}

// Runs at the end of a loop iteration however it ends (a `continue` included).
struct ScheduleNext {
  std::function<void()> then;
  ~ScheduleNext() { then(); }
};

// The order of the rounds: (configuration, round) pairs.
std::vector<std::pair<std::size_t, int>> round_order(std::size_t configs, int rounds, bool interleave) {
  std::vector<std::pair<std::size_t, int>> order;
  if (interleave) {
    for (int r = 0; r < rounds; ++r)
      for (std::size_t i = 0; i < configs; ++i) order.emplace_back(i, r);
  } else {
    for (std::size_t i = 0; i < configs; ++i)
      for (int r = 0; r < rounds; ++r) order.emplace_back(i, r);
  }
  return order;
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

SweepOutcome run_sweep(const SweepSpec& spec, const RunOptions& opts_in) {
  ring::World* w = world();
  RunOptions opts = opts_in;
  opts.primary = is_primary();
  const auto configs = unique_configs(expand(spec));
  // Validate everything before writing anything, so bad input never leaves a results file behind.
  // Every MPI rank validates the same configurations (agreed in run_command), so all fail alike.
  std::vector<std::string> invalid(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    try {
      check_runnable(configs[i]);
    } catch (const InputError& e) {
      if (!opts.skip_invalid)
        throw AgreedInputError(e.where(), e.value(),
                               fmt::format("{} (configuration {})", e.rule(), configs[i].label()));
      invalid[i] = e.what();
    }
  }

  // The output folder is locked only once the sweep is known to be valid, so bad input leaves no
  // folder behind; the lock is held until results.json and the report are written. Every rank
  // learns whether rank 0 got it.
  std::optional<OutputDirLock> lock;
  std::optional<InputError> busy;
  if (opts.primary) {
    try {
      lock.emplace("--out", opts.out_dir);
    } catch (const InputError& e) {
      busy = e;
    }
  }
  agree_on_input(busy, "");
  if (busy) throw *busy;
  std::optional<reports::ResultsWriter> writer;
  if (opts.primary) writer.emplace(opts.out_dir);
  Progress progress(static_cast<int>(configs.size()), opts.primary ? stderr : nullptr);
  ReferenceCache refs;
  SweepOutcome outcome;
  InterruptGuard interrupts;
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int on_host = w ? w->ranks_on_this_host() : 1;
  const int ref_threads = std::max(1, hardware / on_host);
  std::int64_t memory_limit =
      opts.memory_limit_bytes > 0 ? opts.memory_limit_bytes : available_memory_bytes() / 10 * 9 / on_host;
  if (w) memory_limit = w->min(memory_limit);  // every rank skips the same configurations
  const int local_devices = local_cuda_devices(opts);
  // Per configuration: its run, from its first round until its last, and its final status.
  struct Slot {
    std::unique_ptr<ConfigurationRounds> run;
    std::string status;  // "ok", "failed" or "skipped" once closed; empty while open
  };
  std::vector<Slot> slots(configs.size());
  int max_repeats = 1;
  for (const auto& c : configs) max_repeats = std::max(max_repeats, c.repeats);
  std::string stopped;  // why the rest of the sweep is not run
  // Fixed repeats: every round is known up front. Adaptive (--max-noise): each configuration starts
  // with its first round, and after each round that leaves it open its next is scheduled, at the end
  // of the queue when interleaved (so the rounds still go round-robin) or right after otherwise.
  const bool adaptive = opts.stopping.adaptive();
  auto order = round_order(configs.size(), adaptive ? 1 : std::clamp(opts.rounds, 1, max_repeats), opts.interleave);
  for (std::size_t at = 0; at < order.size(); ++at) {
    const auto [i, round] = order[at];
    const ScheduleNext next{[&, i = i, round = round] {
      const Slot& s = slots[i];
      if (!adaptive || !s.status.empty() || !s.run || s.run->finished() || s.run->rounds_done() != round + 1) return;
      if (opts.interleave)
        order.emplace_back(i, round + 1);
      else
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(at) + 1, {i, round + 1});
    }};
    Slot& slot = slots[i];
    const Config& cfg = configs[i];
    const int idx = static_cast<int>(i);
    const bool distributed = cfg.transport != Transport::local;
    if (!slot.status.empty() || (round > 0 && (!slot.run || round >= slot.run->rounds()))) continue;
    auto close = [&](const json& rec, bool write, const std::string& verdict, const std::string& detail) {
      if (write && writer) writer->append(rec);
      slot.status = rec["status"].get<std::string>();
      slot.run.reset();  // its candidate passes are not needed any more
      progress.finish(idx, cfg.label(), verdict, detail);
    };
    // The sweep stopped after this configuration ran some rounds: they stay, and its last line in
    // results.jsonl (already written) is its record.
    auto keep_rounds_run = [&] {
      const json rec = slot.run->record();
      close(rec, false, rec["status"] == "ok" ? "ok" : "FAILED",
            fmt::format("{}  ({} of {} rounds: {})", ok_detail(rec), slot.run->rounds_done(), slot.run->rounds(),
                        stopped));
    };
    if (round > 0 && !stopped.empty()) {
      progress.start(idx, cfg.label());
      keep_rounds_run();
      continue;
    }
    if (round == 0) {
      std::string skip = !stopped.empty() ? "not run: " + stopped : invalid[i];
      if (skip.empty() && memory_limit > 0) {
        const auto need = estimated_host_bytes(ring::make_plan(cfg), opts, distributed ? cfg.cp : 1);
        if (need > memory_limit)
          skip = fmt::format("needs an estimated {} of host memory; {:.2f} GiB may be used", gib_text(need),
                             static_cast<double>(memory_limit) / 1073741824.0);
      }
      if (skip.empty() && cfg.backend == Backend::cuda) {
        if (const auto device = device_memory(ring::make_plan(cfg), local_devices);
            device && device->needed_bytes > device->free_bytes / 10 * 9)
          skip = fmt::format("needs an estimated {} of device memory; {:.2f} GiB are free", gib_text(device->needed_bytes),
                             static_cast<double>(device->free_bytes) / 1073741824.0);
      }
      if (w && distributed) {
        // Device memory differs per rank: every rank skips if any must, with that rank's reason.
        const auto reasons = w->allgather_strings(skip);
        for (std::size_t k = 0; k < reasons.size() && skip.empty(); ++k)
          if (!reasons[k].empty()) skip = fmt::format("rank {}: {}", k, reasons[k]);
      }
      if (!skip.empty()) {
        progress.start(idx, cfg.label());
        close(skipped_record(cfg, skip), true, "skipped", skip);
        continue;
      }
      slot.run = std::make_unique<ConfigurationRounds>(ring::make_plan(cfg), opts, idx);
    }
    progress.start(idx, cfg.label(), round, slot.run->rounds());
    std::unique_ptr<ring::ProcessGroup> group = distributed && w ? w->open_group() : nullptr;
    RankOutcome mine;
    auto failed_here = [&](const std::string& reason) {
      mine.threw = true;
      mine.reason = reason;
      if (group) group->notify_failure(reason);  // peers waiting on this rank stop now
    };
    try {
      nvtx::ScopedRange range(fmt::format("{} {} round {}", nvtx::kRangeConfig, cfg.label(), round + 1));
      slot.run->run_round(
          [&](const ring::CheckRows& rows) -> const std::vector<double>& {
            return refs.rows(cfg, rows, group.get(), ref_threads);
          },
          group.get());
    } catch (const FatalError& e) {
      mine.fatal = true;
      failed_here(fmt::format("fatal: {}", e.what()));
    } catch (const ring::PeerFailure& e) {
      mine.threw = mine.induced = true;
      mine.reason = e.what();
    } catch (const std::exception& e) {
      failed_here(e.what());
    }
    mine.signal = interrupt_signal();
    bool fatal = mine.fatal;
    int signal = mine.signal;
    std::string failure = mine.threw ? mine.reason : "";
    if (w && distributed) failure = reconcile(*w, mine, fatal, signal);
    group.reset();
    if (fatal && stopped.empty()) {
      outcome.fatal = true;
      stopped = fmt::format("the sweep stopped after a fatal error in {}", cfg.label());
    }
    if (signal != 0 && stopped.empty()) {
      outcome.interrupted_by = signal;
      stopped = fmt::format("the sweep was interrupted by {}", signal_name(signal));
    }
    const int done = slot.run->rounds_done();
    if (!failure.empty() && signal != 0 && done > 0) {
      // The signal cut this round short, not a fault of the configuration: its earlier rounds stand.
      keep_rounds_run();
    } else if (!failure.empty()) {
      // A failure in a later round keeps the earlier rounds' timing beside its reason.
      json rec = done > 0 ? slot.run->record() : failed_record(cfg, failure);
      rec["status"] = "failed";
      rec["reason"] = done > 0 ? fmt::format("round {} of {}: {}", round + 1, slot.run->rounds(), failure) : failure;
      close(rec, true, "FAILED", rec["reason"].get<std::string>());
    } else {
      const json rec = slot.run->record();
      if (slot.run->finished())
        close(rec, true, rec["status"] == "ok" ? "ok" : "FAILED",
              rec["status"] == "ok" ? ok_detail(rec) : rec["reason"].get<std::string>());
      else {
        if (writer) writer->append(rec);  // what is measured so far survives a kill
        progress.round(idx, cfg.label(), round, slot.run->rounds(), ok_detail(rec));
      }
    }
  }
  for (auto& slot : slots) {
    if (slot.status.empty() && slot.run) slot.status = slot.run->record()["status"].get<std::string>();
    if (slot.status == "ok") ++outcome.ok;
    else if (slot.status == "skipped") ++outcome.skipped;
    else ++outcome.failed;
  }
  if (!writer) return outcome;
  json header{{"tool", tool_info(opts.argv)},
              {"host", host_info()},
              {"profile", to_json(spec)},
              {"stopped", stopped.empty() ? json(nullptr) : json(stopped)}};
  if (w) header["distributed"] = distributed_info(*w);
  outcome.results_json = writer->finish(header);
  outcome.results_jsonl = writer->jsonl_path();
  // The report is a view of what was measured: a problem rendering it never fails the sweep.
  try {
    outcome.report_html = reports::write_report_next_to(outcome.results_json);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ringbench: warning: report.html not written: {}\n", e.what());
  }
  return outcome;
}

}  // namespace rb::bench
