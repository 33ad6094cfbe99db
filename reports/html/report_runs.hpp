// What the HTML report shows of each run of a results file, taken from its RunRecord
// (reports/results/run_record.hpp), which alone reads the run's JSON. The reader (results_reader.hpp)
// guarantees the config fields and the status; everything measured is optional here, because later
// MINOR versions add fields (the measurement layer's overlap and exposed comm, the model's
// predictions) and older files lack them. A missing value is nullopt, and the report says "not
// measured" instead of guessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/results/run_record.hpp"

namespace rb::reports {

struct RunView {
  std::size_t index = 0;  // position in runs[]
  RunRecord record;       // the parts the sections draw whole: the timeline, the SM clock, the model
  std::string id, status, reason;
  std::int64_t seq = 0;
  int cp = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::string split, variant, dtype, backend, transport;
  bool causal = true;
  // Everything but S, c and the split: the runs a "time against S" chart may join with lines.
  std::string shape_key;
  std::string shape_label;  // readable form of shape_key

  std::optional<bool> correct;  // correctness.passed
  std::optional<double> max_abs_err, median_ms, noise_pct;
  std::optional<double> tflops;                      // metrics.attention_tflops: per GPU
  std::optional<double> tflops_slowest;              // metrics.attention_tflops_slowest_rank
  std::optional<double> comm_ms, comm_in_flight_ms;  // metrics.comm_time_ms, comm_in_flight_ms
  std::string comm_basis;                            // metrics.comm_basis: execution, in_flight, mixed, or empty
  // The CUPTI-traced pass (cuda): its time against the timed median, and its comm figures.
  std::optional<double> cupti_traced_ms, cupti_clean_ms, cupti_overhead_pct, cupti_comm_ms, cupti_overlap,
      cupti_exposed_ms;
  std::string cupti_error;
  std::optional<double> overlap;          // metrics.overlap_fraction (pooled over ranks)
  std::optional<double> exposed_comm_ms;  // metrics.exposed_comm_ms (mean over ranks)
  std::optional<double> exposed_comm_max_ms;
  std::optional<double> imbalance;                       // metrics.imbalance, else max/mean of per-rank attention time
  bool imbalance_derived = false;                        // computed here from per-rank attention times
  std::optional<double> work_imbalance;                  // plan.work_imbalance
  std::vector<std::optional<double>> rank_attention_ms;  // measured A_r, by rank
  std::vector<std::optional<double>> rank_work;          // plan work (pairs × Hq), by rank
  std::optional<double> exposed_share;                   // exposed_comm_ms / median_ms: the pass's share
  bool has_timeline = false;
  // cpu backend: how many CPUs ran the ranks: the distinct (host, "cpu N") of the placement (2.5.0)
  // when every rank was bound, else the host's cpu_threads; 0: unknown, or not the cpu backend.
  int cpus = 0;
  // More ranks than CPUs: ranks took turns on a core, so per-rank times include waiting for one.
  bool shared_cpus() const { return cpus > 0 && cp > cpus; }
};

// host_cpu_threads: the header's host.cpu_threads, for runs whose threads were not bound to a CPU.
RunView view_run(RunRecord record, std::size_t index, std::optional<int> host_cpu_threads = std::nullopt);
// The runs of a results document (its runs[] array), each read once into its RunRecord.
std::vector<RunView> view_runs(const nlohmann::json& runs, std::optional<int> host_cpu_threads = std::nullopt);

// A label such as "S=4k c=8 zigzag ring" (plus the shape when `with_shape`).
std::string run_label(const RunView& r, bool with_shape = false);

}  // namespace rb::reports
