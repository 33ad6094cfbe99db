// The one writer of a run's record (docs/formats.md): the current format, with null where a value
// is missing and without the fields the format makes conditional when they do not apply. The parts
// that other outputs share (the metrics of `ringbench analyze`, a GPU's NVML state, the SM clock)
// are written by their function here too, and so is `config` (reports/results/config_json.hpp), so
// each part has one JSON form.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/results/run_record.hpp"

namespace rb::reports {

// One run, with the schema_version it is written in.
nlohmann::json to_json(const RunRecord& r);

nlohmann::json to_json(const RecordConfig& c);
nlohmann::json to_json(const RecordMetrics& m);
nlohmann::json to_json(const RecordGpuDevice& d);
nlohmann::json to_json(const RecordSmClock& c);

}  // namespace rb::reports
