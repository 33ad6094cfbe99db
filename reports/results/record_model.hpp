// The model's estimate for a run, as its record holds it (docs/formats.md, `model`): the program
// simulator rerun on the median pass's own op times (2.15.0; before, the ring simulator on its
// forward's step times), and where it scheduled each op. A model of another kind (an older analytic
// one) had other fields; those numbers are kept by their dotted path, so the report still shows them.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "reports/results/record_timeline.hpp"

namespace rb::reports {

struct RecordModel {
  std::string kind, basis;
  std::optional<double> pass_ms, measured_pass_ms, measured_over_model, compute_critical_path_ms;
  std::optional<double> exposed_comm_ms_mean, exposed_comm_ms_max, overlap_fraction, idle_ms_max;
  std::map<std::string, double> other_numbers;  // by dotted path ("memory.gb_per_device")
  // 2.15.0: each op of the timed pass where the simulator scheduled it, the ranks and the cap of
  // the record's own timeline, so the report draws the program beside what was measured.
  std::optional<RecordTimeline> timeline;

  // Every numeric field by dotted path, the simulator's and the others.
  std::map<std::string, double> numbers() const;
  // The memory the model predicts per device: memory.gb_per_device, memory.bytes_per_device, or the
  // 0.x memory_gb_per_device.
  std::optional<double> memory_gb_per_device() const;
};

}  // namespace rb::reports
