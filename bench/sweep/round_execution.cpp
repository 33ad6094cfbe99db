// One round on every process, the reference it checks against, and the agreement on its verdict.
#include "bench/sweep/round_execution.hpp"

#include <algorithm>
#include <csignal>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/interrupt.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/nvtx.hpp"
#include "common/transport.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// What one process saw of a round, for the agreement that follows it on an MPI job.
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
  const json j{{"threw", mine.threw},
               {"induced", mine.induced},
               {"fatal", mine.fatal},
               {"signal", mine.signal},
               {"reason", mine.reason}};
  const auto all = w.allgather_strings(json_text(j));
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

std::string signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig); }

}  // namespace

ReferenceCache::ReferenceCache() {
  const ring::World* w = world();
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int on_host = w ? w->ranks_on_this_host() : 1;
  threads_ = std::max(1, hardware / on_host);
}

const std::vector<double>& ReferenceCache::rows(const Config& cfg, const ring::CheckRows& check,
                                                ring::ProcessGroup* group) {
  const std::string key = fmt::format("{}/{}/{}/{}/{}/{}/{}/{}", cfg.seq, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                      cfg.causal, cfg.seed, to_string(cfg.dtype), check.positions.size());
  if (key != key_ || check.positions != positions_) {
    if (!group) {
      value_ = ring::reference_rows(cfg, check.positions, threads_);
    } else {
      const std::size_t n = check.positions.size(), p = static_cast<std::size_t>(group->size());
      const std::size_t r = static_cast<std::size_t>(group->rank()), lo = n * r / p, hi = n * (r + 1) / p;
      const std::vector<std::int64_t> mine(check.positions.begin() + lo, check.positions.begin() + hi);
      const std::size_t width = static_cast<std::size_t>(cfg.heads) * cfg.head_dim;
      value_.assign(n * width, 0.0);
      const auto part = ring::reference_rows(cfg, mine, threads_);
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

RoundResult execute_round(ConfigurationRounds& rounds, int round, ReferenceCache& references) {
  ring::World* w = world();
  const Config& cfg = rounds.config();
  const bool distributed = is_distributed(cfg.transport);
  std::unique_ptr<ring::ProcessGroup> group = distributed && w ? w->open_group() : nullptr;
  RankOutcome mine;
  auto failed_here = [&](const std::string& reason) {
    mine.threw = true;
    mine.reason = reason;
    if (group) group->notify_failure(reason);  // peers waiting on this rank stop now
  };
  try {
    nvtx::ScopedRange range(fmt::format("{} {} round {}", nvtx::kRangeConfig, cfg.label(), round + 1));
    rounds.run_round([&](const ring::CheckRows& rows)
                         -> const std::vector<double>& { return references.rows(cfg, rows, group.get()); },
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
  RoundResult result{mine.threw ? mine.reason : "", mine.fatal, mine.signal};
  if (w && distributed) result.failure = reconcile(*w, mine, result.fatal, result.signal);
  return result;
}

void SweepStop::note(const RoundResult& result, const Config& cfg) {
  if (result.fatal && !stopped()) {
    fatal = true;
    reason = fmt::format("the sweep stopped after a fatal error in {}", cfg.label());
  }
  if (result.signal != 0 && !stopped()) {
    signal = result.signal;
    reason = fmt::format("the sweep was interrupted by {}", signal_name(result.signal));
  }
}

}  // namespace rb::bench
