// One round on every process, the reference it checks against, and the agreement on its verdict.
#include "bench/sweep/round_execution.hpp"

#include <algorithm>
#include <csignal>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "bench/sweep/interrupt.hpp"
#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "common/transport.hpp"

namespace rb::bench {
namespace {

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
  // The documents are part of what the rows attend to (docs/design.md §3c): their lengths and where
  // padding put them.
  const std::string docs = cfg.documents.given() ? fmt::format("{}/{}", documents_digest(cfg.documents.lengths),
                                                               documents_digest(document_extents(cfg)))
                                                 : std::string();
  const std::string key = fmt::format("{}/{}/{}/{}/{}/{}/{}/{}/{}", cfg.seq, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                      cfg.causal, cfg.seed, to_string(cfg.dtype), check.positions.size(), docs);
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

RoundResult execute_round(ConfigurationRounds& rounds, int round, ReferenceCache& references, const SampleGate& gate) {
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
                     group.get(), gate);
  } catch (const RoundCut& e) {
    // Not a fault of the configuration: the sweep stops, and the rounds before this one stand.
    RoundResult cut{e.what(), false, interrupt_signal()};
    cut.cut = true;
    return cut;
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
  if (w && distributed) return agree_on_round(*w, mine);
  return RoundResult{mine.threw ? mine.reason : "", mine.fatal, mine.signal};
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
