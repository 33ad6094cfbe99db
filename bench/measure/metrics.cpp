// Metrics over a Timeline (see metrics.hpp and docs/metrics.md for the definitions).
#include "bench/measure/metrics.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "bench/measure/interval_set.hpp"
#include "common/error.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::bench {
namespace {

constexpr double kNsPerMs = 1e6;

struct RankSpans {
  std::vector<Span> comm, compute, memory, attention, in_flight;
  std::size_t compute_count = 0;  // compute.size() before the union consumes it
  std::int64_t comm_bytes = 0, in_flight_bytes = 0;
  std::size_t count = 0;
  bool saw_comm = false;  // a comm interval reached the window, even one too short to keep
  // Indexed by ring step (small, dense): first begin of any interval, last end of compute.
  std::vector<std::int64_t> step_first_begin, step_compute_end;
  std::int64_t compute_last_end = std::numeric_limits<std::int64_t>::min();
};

constexpr std::int64_t kNoBegin = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kNoEnd = std::numeric_limits<std::int64_t>::min();

// Steps are dense small numbers (< c); larger ones (an outside trace's odd args) are not tracked.
constexpr int kMaxTrackedStep = 1 << 16;

void note_step(std::vector<std::int64_t>& v, int step, std::int64_t value, bool keep_min) {
  if (step < 0 || step >= kMaxTrackedStep) return;
  const auto k = static_cast<std::size_t>(step);
  if (v.size() <= k) v.resize(k + 1, keep_min ? kNoBegin : kNoEnd);
  v[k] = keep_min ? std::min(v[k], value) : std::max(v[k], value);
}

std::optional<double> ratio(double num, double den) {
  if (den <= 0) return std::nullopt;
  return num / den;
}

std::optional<double> opt_ms(const std::optional<std::int64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v) / kNsPerMs) : std::nullopt;
}
double ms(double ns) { return ns / kNsPerMs; }

// Step j on rank r runs from the end of the rank's previous step (or its first interval of step 0)
// to the end of step j's last compute interval, so waiting for K/V counts against the step.
void finish_steps(const RankSpans& s, RankMetrics& m) {
  std::int64_t prev_end = kNoBegin;
  for (auto first : s.step_first_begin) prev_end = std::min(prev_end, first);
  bool any = false;
  for (std::size_t step = 0; step < s.step_compute_end.size(); ++step) {
    const std::int64_t end = s.step_compute_end[step];
    if (end == kNoEnd) continue;  // a step with comm only on this rank
    any = true;
    m.steps.push_back(static_cast<int>(step));
    m.step_ns.push_back(std::max<std::int64_t>(0, end - prev_end));
    prev_end = std::max(prev_end, end);
  }
  if (any) m.tail_ns = std::max<std::int64_t>(0, s.compute_last_end - prev_end);
}

}  // namespace

Metrics compute_metrics(const Timeline& timeline, const MetricsInputs& inputs) {
  Metrics out;
  std::int64_t lo = timeline.window_begin_ns, hi = timeline.window_end_ns;
  if (hi <= lo) {  // no window: the hull of the intervals
    lo = std::numeric_limits<std::int64_t>::max();
    hi = std::numeric_limits<std::int64_t>::min();
    for (const Interval& iv : timeline.intervals) {
      lo = std::min(lo, iv.begin_ns);
      hi = std::max(hi, iv.end_ns);
    }
    if (hi < lo) lo = hi = 0;
  }
  out.window_begin_ns = lo;
  out.window_end_ns = hi;

  std::map<int, RankSpans> ranks;
  std::vector<Span> all_work;
  bool have_attention = false;
  RankSpans* cached = nullptr;
  int cached_rank = 0;
  for (const Interval& iv : timeline.intervals) {
    if (iv.end_ns < iv.begin_ns) {
      throw Error(fmt::format("timeline interval '{}' of rank {} ends ({} ns) before it begins ({} ns)", iv.name,
                              iv.rank, iv.end_ns, iv.begin_ns));
    }
    if (!cached || cached_rank != iv.rank) {  // recorders emit runs of one rank: skip the lookup
      cached = &ranks[iv.rank];
      cached_rank = iv.rank;
    }
    RankSpans& rs = *cached;
    const Span s{std::max(iv.begin_ns, lo), std::min(iv.end_ns, hi)};
    if (iv.kind == IntervalKind::comm && s.end >= s.begin) rs.saw_comm = true;
    if (s.end <= s.begin) continue;  // outside the window, or empty
    ++rs.count;
    switch (iv.kind) {
      case IntervalKind::comm:
        rs.comm.push_back(s);
        rs.comm_bytes += iv.bytes;
        break;
      case IntervalKind::compute:
        rs.compute.push_back(s);
        if (iv.name == "attention" || iv.name == "attention_bwd") {  // the backward's kernel too (§3a)
          rs.attention.push_back(s);
          have_attention = true;
        }
        rs.compute_last_end = std::max(rs.compute_last_end, s.end);
        note_step(rs.step_compute_end, iv.step, s.end, false);
        break;
      case IntervalKind::memory: rs.memory.push_back(s); break;
      case IntervalKind::comm_in_flight:
        rs.in_flight.push_back(s);
        rs.in_flight_bytes += iv.bytes;
        continue;                          // a bracket around a transfer, not work of its own, and not a step's start
      case IntervalKind::other: continue;  // markers and host annotations are not GPU work
    }
    note_step(rs.step_first_begin, iv.step, s.begin, true);
  }
  out.imbalance_from_attention = have_attention;

  double sum_comm = 0, sum_overlap = 0, sum_bytes = 0;
  std::map<int, std::int64_t> step_max;
  std::int64_t tail_max = 0;
  for (auto& [rank, rs] : ranks) {
    RankMetrics m;
    m.rank = rank;
    m.interval_count = rs.count;
    // Execution where the recorder saw it; a rank with only brackets falls back to them. A rank
    // whose execution windows are all empty still has them: the basis follows what the recorder
    // could see, never how long the transfers happened to take.
    const bool executed = rs.saw_comm || rs.in_flight.empty();
    if (!executed) {
      rs.comm = rs.in_flight;
      rs.comm_bytes = rs.in_flight_bytes;
    }
    const auto comm = union_of(std::move(rs.comm));
    m.comm_in_flight_ns = total_length(union_of_unions(comm, union_of(std::move(rs.in_flight))));
    rs.compute_count = rs.compute.size();
    const auto compute = union_of(std::move(rs.compute));
    const auto memory = union_of(std::move(rs.memory));
    m.comm_ns = total_length(comm);
    if (m.comm_ns > 0 || rs.saw_comm) m.comm_basis = executed ? "execution" : "in_flight";
    m.compute_ns = total_length(compute);
    m.memory_ns = total_length(memory);
    m.overlap_ns = intersection_length(comm, compute);
    m.exposed_comm_ns = m.comm_ns - m.overlap_ns;
    // When every compute interval is attention (the common case) the union is already known.
    const bool all_attention = rs.attention.size() == rs.compute_count;
    m.attention_ns = have_attention && !all_attention ? total_length(union_of(std::move(rs.attention))) : m.compute_ns;
    const auto work = union_of_unions(union_of_unions(comm, compute), memory);
    m.busy_ns = total_length(work);
    all_work.insert(all_work.end(), work.begin(), work.end());
    m.comm_bytes = rs.comm_bytes;
    m.overlap_fraction = ratio(static_cast<double>(m.overlap_ns), static_cast<double>(m.comm_ns));
    if (m.comm_bytes > 0)
      m.comm_bandwidth_gbyte_per_s = ratio(static_cast<double>(m.comm_bytes), static_cast<double>(m.comm_ns));
    if (rank >= 0 && static_cast<std::size_t>(rank) < inputs.flops_per_rank.size()) {
      // FLOP per ns = GFLOP/s; / 1e3 = TFLOP/s.
      if (auto v = ratio(inputs.flops_per_rank[rank], static_cast<double>(m.attention_ns)))
        m.attention_tflops = *v / 1e3;
    }
    finish_steps(rs, m);
    for (std::size_t k = 0; k < m.steps.size(); ++k) {
      auto& slot = step_max[m.steps[k]];
      slot = std::max(slot, m.step_ns[k]);
    }
    tail_max = std::max(tail_max, m.tail_ns);

    sum_comm += static_cast<double>(m.comm_ns);
    sum_overlap += static_cast<double>(m.overlap_ns);
    sum_bytes += static_cast<double>(m.comm_bytes);
    out.comm_bytes += m.comm_bytes;
    out.comm_ns_mean += static_cast<double>(m.comm_ns);
    out.comm_in_flight_ns_mean += static_cast<double>(m.comm_in_flight_ns);
    if (m.comm_basis) out.comm_basis = !out.comm_basis || *out.comm_basis == *m.comm_basis ? *m.comm_basis : "mixed";
    out.compute_ns_mean += static_cast<double>(m.compute_ns);
    out.memory_ns_mean += static_cast<double>(m.memory_ns);
    out.overlap_ns_mean += static_cast<double>(m.overlap_ns);
    out.exposed_comm_ns_mean += static_cast<double>(m.exposed_comm_ns);
    out.exposed_comm_ns_max = std::max(out.exposed_comm_ns_max, m.exposed_comm_ns);
    out.per_rank.push_back(std::move(m));
  }

  const auto n = static_cast<double>(out.per_rank.size());
  if (n > 0) {
    out.comm_ns_mean /= n;
    out.comm_in_flight_ns_mean /= n;
    out.compute_ns_mean /= n;
    out.memory_ns_mean /= n;
    out.overlap_ns_mean /= n;
    out.exposed_comm_ns_mean /= n;
    double a_max = 0, a_sum = 0;
    for (const auto& m : out.per_rank) {
      a_max = std::max(a_max, static_cast<double>(m.attention_ns));
      a_sum += static_cast<double>(m.attention_ns);
    }
    out.imbalance = ratio(a_max, a_sum / n);
  }
  out.overlap_fraction = ratio(sum_overlap, sum_comm);
  if (sum_bytes > 0) out.comm_bandwidth_gbyte_per_s = ratio(sum_bytes, sum_comm);

  if (!inputs.flops_per_rank.empty()) {
    double w_max = 0, w_sum = 0;
    for (double w : inputs.flops_per_rank) {
      w_max = std::max(w_max, w);
      w_sum += w;
    }
    out.work_imbalance = ratio(w_max, w_sum / static_cast<double>(inputs.flops_per_rank.size()));
  }

  if (!step_max.empty()) {
    std::int64_t path = tail_max;
    for (const auto& [step, t] : step_max) {
      out.steps.push_back(step);
      out.step_time_ns.push_back(t);
      path += t;
    }
    out.critical_path_ns = path;
  }

  out.pass_time_ns = inputs.pass_time_ns > 0 ? inputs.pass_time_ns : out.window_end_ns - out.window_begin_ns;
  if (inputs.flops > 0) {
    if (auto v = ratio(inputs.flops, static_cast<double>(out.pass_time_ns))) {
      out.attention_tflops_aggregate = *v / 1e3;
      const std::size_t c = !inputs.flops_per_rank.empty() ? inputs.flops_per_rank.size() : out.per_rank.size();
      const std::size_t gpus = inputs.gpus > 0 ? static_cast<std::size_t>(inputs.gpus) : c;
      if (gpus > 0) {
        out.attention_tflops = *out.attention_tflops_aggregate / static_cast<double>(gpus);
        out.attention_tflops_gpus = static_cast<int>(gpus);
      }
    }
  }
  for (const auto& m : out.per_rank)
    if (m.attention_tflops &&
        (!out.attention_tflops_slowest_rank || *m.attention_tflops < *out.attention_tflops_slowest_rank)) {
      out.attention_tflops_slowest_rank = m.attention_tflops;
      out.slowest_rank = m.rank;
    }
  out.busy_ns = total_length(union_of(std::move(all_work)));
  if (inputs.pass_time_ns > 0) out.launch_overhead_ns = inputs.pass_time_ns - out.busy_ns;
  if (inputs.pass_time_ns > 0 && inputs.eager_time_ns > 0)
    out.eager_minus_graph_ns = inputs.eager_time_ns - inputs.pass_time_ns;
  return out;
}

reports::RecordMetrics Metrics::record() const {
  reports::RecordMetrics out;
  out.present = true;
  out.per_rank.emplace();
  for (const auto& m : per_rank) {
    reports::RecordRankMetrics r;
    r.rank = m.rank;
    r.interval_count = static_cast<std::int64_t>(m.interval_count);
    r.comm_time_ms = ms(static_cast<double>(m.comm_ns));
    r.comm_in_flight_ms = ms(static_cast<double>(m.comm_in_flight_ns));
    r.comm_basis = m.comm_basis.value_or("");
    r.compute_time_ms = ms(static_cast<double>(m.compute_ns));
    r.memory_time_ms = ms(static_cast<double>(m.memory_ns));
    r.overlap_time_ms = ms(static_cast<double>(m.overlap_ns));
    r.overlap_fraction = m.overlap_fraction;
    r.exposed_comm_ms = ms(static_cast<double>(m.exposed_comm_ns));
    r.attention_time_ms = ms(static_cast<double>(m.attention_ns));
    r.busy_time_ms = ms(static_cast<double>(m.busy_ns));
    r.comm_bytes = m.comm_bytes;
    r.comm_bandwidth_gbyte_per_s = m.comm_bandwidth_gbyte_per_s;
    r.attention_tflops = m.attention_tflops;
    for (std::size_t k = 0; k < m.steps.size(); ++k)
      r.steps.push_back({m.steps[k], ms(static_cast<double>(m.step_ns[k]))});
    r.tail_ms = ms(static_cast<double>(m.tail_ns));
    out.per_rank->push_back(std::move(r));
  }
  for (std::size_t k = 0; k < steps.size(); ++k)
    out.step_times.push_back({steps[k], ms(static_cast<double>(step_time_ns[k]))});
  out.window_ms = ms(static_cast<double>(window_end_ns - window_begin_ns));
  out.rank_count = static_cast<std::int64_t>(per_rank.size());
  out.comm_time_ms = ms(comm_ns_mean);
  out.comm_in_flight_ms = ms(comm_in_flight_ns_mean);
  out.comm_basis = comm_basis.value_or("");
  out.compute_time_ms = ms(compute_ns_mean);
  out.memory_time_ms = ms(memory_ns_mean);
  out.overlap_time_ms = ms(overlap_ns_mean);
  out.overlap_fraction = overlap_fraction;
  out.exposed_comm_ms = ms(exposed_comm_ns_mean);
  out.exposed_comm_ms_max = ms(static_cast<double>(exposed_comm_ns_max));
  out.imbalance = imbalance;
  out.imbalance_basis = imbalance_from_attention ? "attention" : "compute";
  out.work_imbalance = work_imbalance;
  out.critical_path_ms = opt_ms(critical_path_ns);
  out.pass_time_ms = ms(static_cast<double>(pass_time_ns));
  out.attention_tflops = attention_tflops;
  if (attention_tflops_gpus > 0) out.attention_tflops_gpus = attention_tflops_gpus;
  out.attention_tflops_aggregate = attention_tflops_aggregate;
  out.attention_tflops_slowest_rank = attention_tflops_slowest_rank;
  out.slowest_rank = slowest_rank;
  out.comm_bytes = comm_bytes;
  out.comm_bandwidth_gbyte_per_s = comm_bandwidth_gbyte_per_s;
  out.busy_time_ms = ms(static_cast<double>(busy_ns));
  out.launch_overhead_ms = opt_ms(launch_overhead_ns);
  out.eager_minus_graph_ms = opt_ms(eager_minus_graph_ns);
  return out;
}

nlohmann::json Metrics::to_json() const { return reports::to_json(record()); }

Timeline merge_timelines(const std::vector<Timeline>& timelines) {
  Timeline out;
  bool have_window = false;
  std::size_t total = 0;
  for (const auto& t : timelines) total += t.intervals.size();
  out.intervals.reserve(total);
  for (const auto& t : timelines) {
    out.intervals.insert(out.intervals.end(), t.intervals.begin(), t.intervals.end());
    if (t.window_end_ns <= t.window_begin_ns) continue;
    if (!have_window) {
      out.window_begin_ns = t.window_begin_ns;
      out.window_end_ns = t.window_end_ns;
      have_window = true;
    } else {
      out.window_begin_ns = std::min(out.window_begin_ns, t.window_begin_ns);
      out.window_end_ns = std::max(out.window_end_ns, t.window_end_ns);
    }
  }
  return out;
}

}  // namespace rb::bench
