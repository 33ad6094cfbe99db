// The program simulator's schedule (op_simulator.hpp). Times are settled in the programs' order,
// one cursor per rank: an op of its own rank is settled when reached (what it waits for is earlier
// in its list), a transfer in two stages, its copy once its peers are ready and its end once the
// peers it holds for have copied; a rank whose transfer waits on a peer not yet reached stops there
// until a later sweep. Every rank lists its transfers in one order, so each sweep settles at least
// one more; a sweep that settles nothing is a schedule in which every rank waits on another.
#include "model/op_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::model {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

void check(std::span<const RankOps> ranks) {
  const int c = static_cast<int>(ranks.size());
  for (int r = 0; r < c; ++r) {
    const RankOps& ro = ranks[static_cast<std::size_t>(r)];
    if (ro.lanes < 1) throw Error(fmt::format("program simulator: rank {} has {} lanes", r, ro.lanes));
    for (std::size_t i = 0; i < ro.ops.size(); ++i) {
      const SimOp& op = ro.ops[i];
      auto bad = [&](const std::string& what) {
        return Error(fmt::format("program simulator: rank {} op {} ({}): {}", r, i, op.name, what));
      };
      if (op.lane < 0 || op.lane >= ro.lanes) throw bad(fmt::format("lane {} of {}", op.lane, ro.lanes));
      if (!std::isfinite(op.seconds) || op.seconds < 0) throw bad(fmt::format("{} seconds", op.seconds));
      for (const int d : op.deps)
        if (d < 0 || static_cast<std::size_t>(d) >= i) throw bad(fmt::format("waits for op {}, not an earlier one", d));
      for (const int p : op.group)
        if (p < 0 || p >= c) throw bad(fmt::format("member {} of {} ranks", p, c));
      if (op.from >= c || op.to >= c) throw bad(fmt::format("peers {} and {} of {} ranks", op.from, op.to, c));
    }
  }
}

// Per rank and lane, its transfers in order; per op, which of its lane's transfers it is.
struct Meetings {
  std::vector<std::vector<std::vector<int>>> by_lane;  // [r][lane] -> op indices
  std::vector<std::vector<int>> ordinal;               // [r][i] -> k, or -1

  explicit Meetings(std::span<const RankOps> ranks) {
    for (const RankOps& ro : ranks) {
      by_lane.emplace_back(static_cast<std::size_t>(ro.lanes));
      ordinal.emplace_back(ro.ops.size(), -1);
      for (std::size_t i = 0; i < ro.ops.size(); ++i) {
        if (!ro.ops[i].meets()) continue;
        auto& lane = by_lane.back()[static_cast<std::size_t>(ro.ops[i].lane)];
        ordinal.back()[i] = static_cast<int>(lane.size());
        lane.push_back(static_cast<int>(i));
      }
    }
  }
};

struct Times {
  std::vector<std::vector<double>> ready, start, copy_end, end;  // [r][i]
};

class Scheduler {
 public:
  Scheduler(std::span<const RankOps> ranks, const Meetings& m, bool with_comm)
      : ranks_(ranks), m_(m), with_comm_(with_comm) {
    for (const RankOps& ro : ranks) {
      for (auto* v : {&t_.ready, &t_.start, &t_.copy_end, &t_.end}) v->emplace_back(ro.ops.size(), kUnknown);
      lane_free_.emplace_back(static_cast<std::size_t>(ro.lanes), 0.0);
    }
    cursor_.assign(ranks.size(), 0);
  }

  Times run() {
    for (;;) {
      bool moved = false, done = true;
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        moved = advance(static_cast<int>(r)) || moved;
        done = done && cursor_[r] == ranks_[r].ops.size();
      }
      if (done) return std::move(t_);
      if (!moved) throw Error(stuck());
    }
  }

 private:
  const SimOp& op(int r, int i) const { return ranks_[static_cast<std::size_t>(r)].ops[static_cast<std::size_t>(i)]; }
  double& at(std::vector<std::vector<double>>& v, int r, int i) {
    return v[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
  }
  double seconds(const SimOp& o) const {
    return (o.meets() || o.kind == IntervalKind::comm) && !with_comm_ ? 0.0 : o.seconds;
  }

  // The op of peer p that rank r's op i meets; throws where p's does not name r back.
  int partner(int r, int i, int p, bool as_sender) const {
    const SimOp& mine = op(r, i);
    const int k = m_.ordinal[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
    const auto& lanes = m_.by_lane[static_cast<std::size_t>(p)];
    int q = -1;  // none: the peer has no such lane, or fewer transfers on it
    if (static_cast<std::size_t>(mine.lane) < lanes.size()) {
      const auto& lane = lanes[static_cast<std::size_t>(mine.lane)];
      if (static_cast<std::size_t>(k) < lane.size()) q = lane[static_cast<std::size_t>(k)];
    }
    const SimOp* theirs = q >= 0 ? &op(p, q) : nullptr;
    const bool pairs = theirs && (mine.group.empty() ? (as_sender ? theirs->to == r : theirs->from == r)
                                                     : theirs->group == mine.group);
    if (!pairs)
      throw Error(
          fmt::format("program simulator: rank {}'s transfer {} of lane {} ({} step {}) meets rank {}, whose "
                      "transfer {} of that lane does not name rank {}",
                      r, k, mine.lane, mine.name, mine.step, p, k, r));
    return q;
  }

  // Settles what it can of rank r's ops from its cursor on; true where anything was settled.
  bool advance(int r) {
    bool moved = false;
    std::size_t& i = cursor_[static_cast<std::size_t>(r)];
    auto& free = lane_free_[static_cast<std::size_t>(r)];
    while (i < ranks_[static_cast<std::size_t>(r)].ops.size()) {
      const int n = static_cast<int>(i);
      const SimOp& o = op(r, n);
      double& ready = at(t_.ready, r, n);
      if (std::isnan(ready)) {
        ready = free[static_cast<std::size_t>(o.lane)];
        for (const int d : o.deps) ready = std::max(ready, at(t_.end, r, d));
        moved = true;
      }
      double& copy_end = at(t_.copy_end, r, n);
      if (std::isnan(copy_end)) {
        double start = ready;
        auto wait_ready = [&](int p, bool as_sender) {
          const double pr = at(t_.ready, p, partner(r, n, p, as_sender));
          start = std::max(start, pr);
          return !std::isnan(pr);
        };
        bool can = true;
        if (o.from >= 0) can = wait_ready(o.from, true);
        for (const int p : o.group) can = wait_ready(p, false) && can;
        if (!can) return moved;
        at(t_.start, r, n) = start;
        copy_end = start + seconds(o);
        moved = true;
      }
      double end = copy_end;
      if (o.to >= 0) {
        const double theirs = at(t_.copy_end, o.to, partner(r, n, o.to, false));
        if (std::isnan(theirs)) return moved;
        end = std::max(end, theirs);
      }
      at(t_.end, r, n) = end;
      free[static_cast<std::size_t>(o.lane)] = end;
      ++i;
      moved = true;
    }
    return moved;
  }

  std::string stuck() const {
    std::string where;
    for (std::size_t r = 0; r < ranks_.size() && where.size() < 200; ++r)
      if (cursor_[r] < ranks_[r].ops.size()) {
        const SimOp& o = ranks_[r].ops[cursor_[r]];
        where += fmt::format("{}rank {} at op {} ({} step {})", where.empty() ? "" : ", ", r, cursor_[r], o.name,
                             o.step);
      }
    return "program simulator: every rank waits on another: " + where;
  }

  std::span<const RankOps> ranks_;
  const Meetings& m_;
  bool with_comm_;
  Times t_;
  std::vector<std::vector<double>> lane_free_;
  std::vector<std::size_t> cursor_;
};

// |U(intervals)|, and |U(a) ∩ U(b)|.
using Spans = std::vector<std::pair<double, double>>;
Spans merged(Spans s) {
  std::erase_if(s, [](const auto& x) { return x.second <= x.first; });
  std::sort(s.begin(), s.end());
  Spans out;
  for (const auto& x : s)
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  return out;
}
double length(const Spans& u) {
  double n = 0;
  for (const auto& [a, b] : u) n += b - a;
  return n;
}
double common(const Spans& a, const Spans& b) {
  double n = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    n += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return n;
}

}  // namespace

OpSimulation simulate_ops(std::span<const RankOps> ranks, OpSimOptions options) {
  check(ranks);
  const Meetings meetings(ranks);
  const Times t = Scheduler(ranks, meetings, true).run();
  const Times bare = Scheduler(ranks, meetings, false).run();
  const int c = static_cast<int>(ranks.size());
  OpSimulation sim;
  sim.ranks = c;
  for (int r = 0; r < c; ++r)
    for (const double e : t.end[static_cast<std::size_t>(r)]) sim.pass_s = std::max(sim.pass_s, e);
  for (const auto& ends : bare.end)
    for (const double e : ends) sim.pass_without_comm_s = std::max(sim.pass_without_comm_s, e);
  auto ns = [](double s) { return static_cast<std::int64_t>(std::llround(s * 1e9)); };
  sim.per_rank.resize(static_cast<std::size_t>(c));
  for (int r = 0; r < c; ++r) {
    const RankOps& ro = ranks[static_cast<std::size_t>(r)];
    const auto rr = static_cast<std::size_t>(r);
    Spans compute, comm;
    RankSimulation& rs = sim.per_rank[rr];
    for (std::size_t i = 0; i < ro.ops.size(); ++i) {
      const SimOp& o = ro.ops[i];
      const double b = t.start[rr][i], e = o.meets() ? t.copy_end[rr][i] : b + o.seconds;
      rs.finish_s = std::max(rs.finish_s, t.end[rr][i]);
      if (o.meets() || o.kind == IntervalKind::comm)
        comm.emplace_back(b, e);
      else if (o.kind == IntervalKind::compute)
        compute.emplace_back(b, e);
      if (options.keep_timeline && !o.name.empty())
        sim.timeline.intervals.push_back(Interval{r, o.kind, o.lane == 0 ? "compute" : "comm", o.name, o.step, o.bytes,
                                                  ns(b), ns(e), 0, o.phase});
    }
    compute = merged(std::move(compute));
    comm = merged(std::move(comm));
    rs.compute_s = length(compute);
    rs.comm_s = length(comm);
    rs.overlap_s = common(compute, comm);
  }
  sim.total();
  sim.timeline.window_begin_ns = 0;
  sim.timeline.window_end_ns = ns(sim.pass_s);
  return sim;
}

}  // namespace rb::model
