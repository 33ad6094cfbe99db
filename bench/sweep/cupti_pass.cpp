// The CUPTI-traced pass: the tracer set up from the executor's graph-node and stream labels, the
// pass, and the metrics of what CUPTI saw.
#include "bench/sweep/cupti_pass.hpp"

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "bench/measure/cupti_tracer.hpp"
#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "ring/cuda/executor_cuda.hpp"

namespace rb::bench {

namespace {

// A traced pass that CUPTI could not trace: its part holds why, and nothing else.
reports::RecordCupti failed(std::string why) {
  reports::RecordCupti out;
  out.error = std::move(why);
  return out;
}

}  // namespace

reports::RecordCupti cupti_traced_pass(ring::Executor& exec, const std::function<ring::PassRecord()>& run_pass,
                                       const std::multimap<std::uint64_t, std::uint64_t>& clones,
                                       const std::string& clone_error, const MetricsInputs& in,
                                       double clean_median_ms) {
  std::optional<CuptiTracer> tracer;
  std::string error = clone_error;
  std::set<std::uint64_t> labelled;  // CUPTI ids with a role, to count what they classified
  auto* cuda = dynamic_cast<ring::CudaExecutor*>(&exec);
  if (error.empty() && cuda == nullptr) error = "the executor is not a CUDA executor";
  if (error.empty()) {
    try {
      CuptiConversionOptions opt;
      opt.marker_domain = nvtx::kDomain;
      opt.keep_unattributed = false;  // the set-up around the pass (stamp resets, clock probes) is no rank's
      for (const auto& label : cuda->graph_nodes()) {
        const CuptiNodeRole role{label.rank, label.step, label.kind, label.lane, label.name};
        for (const std::uint64_t id : with_clones(cupti_graph_node_id(label.node), clones)) opt.nodes[id] = role;
      }
      for (const auto& [id, role] : opt.nodes) labelled.insert(id);
      tracer.emplace(std::move(opt));
      for (const auto& s : cuda->streams()) tracer->set_stream_role(s.stream, s.device, {s.rank, s.kind, s.lane});
    } catch (const Error& e) {
      tracer.reset();
      error = e.what();
    }
  }
  std::int64_t before = 0;
  if (tracer) {
    try {
      before = CuptiTracer::now_ns();
    } catch (const Error& e) {
      tracer.reset();
      error = e.what();
    }
  }
  const ring::PassRecord traced = run_pass();
  if (!tracer) return failed(error);
  try {
    const std::int64_t after = CuptiTracer::now_ns();
    Timeline tl = tracer->take(before, after);
    const double traced_ms = static_cast<double>(traced.wall_ns) / 1e6;
    std::size_t by_node = 0;
    for (const auto& iv : tl.intervals) by_node += iv.graph_node_id != 0 && labelled.contains(iv.graph_node_id);
    // The host window spans the stamp resets, a device sync and, in isolated mode, every rank's
    // pass with the host's gaps between them. The pass's own GPU activity is what compares with
    // the timed passes: the metrics are taken over its span, and the pass time is how long the
    // ranks were at work (ranks run one after another add up, without the gaps).
    MetricsInputs own = in;
    const auto span = activity_span(tl);
    if (span) {
      tl.window_begin_ns = span->begin_ns;
      tl.window_end_ns = span->end_ns;
      own.pass_time_ns = span->ns;
    }
    reports::RecordCupti out;
    out.traced_pass_ms = traced_ms;
    out.clean_median_ms = clean_median_ms;
    if (clean_median_ms > 0) out.overhead_pct = (traced_ms - clean_median_ms) / clean_median_ms * 100.0;
    out.window_ms = static_cast<double>(after - before) / 1e6;
    if (span) out.activity_ms = static_cast<double>(span->ns) / 1e6;
    out.dropped_records = static_cast<std::int64_t>(tracer->dropped_records());
    out.ignored_records = static_cast<std::int64_t>(tracer->ignored_records());
    out.unattributed_records = static_cast<std::int64_t>(tracer->unattributed_records());
    out.intervals = static_cast<std::int64_t>(tl.intervals.size());
    out.intervals_by_node = static_cast<std::int64_t>(by_node);
    out.metrics = compute_metrics(tl, own).record();
    return out;
  } catch (const Error& e) {
    return failed(e.what());
  }
}

}  // namespace rb::bench
