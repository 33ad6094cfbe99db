// Converting older results to the current meanings (see results_upgrade.hpp).
#include "reports/results/results_upgrade.hpp"

#include <optional>

#include <fmt/format.h>

#include "common/gpus_at_work.hpp"
#include "reports/results/config_json.hpp"
#include "reports/results/json_field.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

// obj[key] when it is a string, else `fallback`: a conversion never throws at a field of an
// unexpected type (validate_results has named any such field with its path before).
std::string text(const json& obj, const char* key, const char* fallback) {
  return obj.is_object() && obj.contains(key) && obj.at(key).is_string() ? obj.at(key).get<std::string>() : fallback;
}

// A metrics object (the run's, or the CUPTI pass's) from 0.x to 1.0.0. `events` says whether its
// comm intervals were CUDA-event spans (the timed passes of a cuda run) rather than executions.
void upgrade_metrics(json& m, double cp, bool events) {
  if (!m.is_object()) return;
  if (!m.contains("attention_tflops_aggregate")) {
    const auto sum = json_finite(m, "attention_tflops");
    m["attention_tflops_aggregate"] = sum ? json(*sum) : json(nullptr);
    m["attention_tflops"] = sum && cp > 0 ? json(*sum / cp) : json(nullptr);
    std::optional<double> slowest;
    json slowest_rank = nullptr;
    if (m.contains("per_rank") && m.at("per_rank").is_array())
      for (const auto& r : m.at("per_rank")) {
        const auto v = json_finite(r, "attention_tflops");
        if (v && (!slowest || *v < *slowest)) {
          slowest = v;
          slowest_rank = r.contains("rank") ? r.at("rank") : json(nullptr);
        }
      }
    m["attention_tflops_slowest_rank"] = slowest ? json(*slowest) : json(nullptr);
    m["slowest_rank"] = slowest_rank;
  }
  auto basis = [&](json& obj) {
    if (!obj.is_object() || obj.contains("comm_basis")) return;
    const auto comm = json_finite(obj, "comm_time_ms");
    obj["comm_in_flight_ms"] = comm ? json(*comm) : json(nullptr);
    obj["comm_basis"] = comm && *comm > 0 ? json(events ? "in_flight" : "execution") : json(nullptr);
  };
  basis(m);
  if (m.contains("per_rank") && m.at("per_rank").is_array())
    for (auto& r : m.at("per_rank")) basis(r);
}

// 1.x to 2.0.0: the per-GPU headline divides the pass's FLOPs by the GPUs that ran the ranks at
// once, not by c. Only cuda's concurrent mode over the copy transport ran ranks at once on shared
// GPUs (timing.devices of them); its 1.x figure was c / devices times too low.
void upgrade_per_gpu(json& m, int gpus) {
  if (!m.is_object()) return;
  const auto aggregate = json_finite(m, "attention_tflops_aggregate");
  if (aggregate) m["attention_tflops"] = *aggregate / gpus;
  m["attention_tflops_gpus"] = gpus;
}

int gpus_of_1x_run(const json& run) {
  static const json none = json::object();
  const json& cfg = run.contains("config") ? run.at("config") : none;
  const json& timing = run.contains("timing") ? run.at("timing") : none;
  const auto cp = json_finite(cfg, "cp");
  const auto devices = json_finite(timing, "devices");
  const bool shared = text(cfg, "backend", "") == "cuda" && text(cfg, "transport", "local") == "local" &&
                      text(timing, "rank_mode", "") == "concurrent";
  const auto whole = [](std::optional<double> v) { return v && *v >= 0 && *v < 1e9 ? static_cast<int>(*v) : 0; };
  return gpus_at_work(whole(cp), shared, whole(devices.value_or(1)));
}

}  // namespace

void upgrade_run(json& run, int from_major) {
  if (from_major >= 2 || !run.is_object()) return;
  if (from_major < 1) {
    const json cfg = run.contains("config") ? run.at("config") : json::object();
    const double cp = json_finite(cfg, "cp").value_or(0.0);
    const bool cuda = text(cfg, "backend", "") == "cuda";
    if (run.contains("metrics")) upgrade_metrics(run["metrics"], cp, cuda);
    if (run.contains("cupti") && run["cupti"].is_object() && run["cupti"].contains("metrics"))
      upgrade_metrics(run["cupti"]["metrics"], cp, false);  // CUPTI records execution
    // A cuda run's timeline comm intervals were the event spans: in flight, by today's names.
    if (cuda && run.contains("timeline") && run["timeline"].is_object() && run["timeline"].contains("intervals") &&
        run["timeline"]["intervals"].is_array())
      for (auto& iv : run["timeline"]["intervals"])
        if (text(iv, "kind", "") == "comm") iv["kind"] = "comm_in_flight";
  }
  const int gpus = gpus_of_1x_run(run);
  if (run.contains("metrics")) upgrade_per_gpu(run["metrics"], gpus);
  if (run.contains("cupti") && run["cupti"].is_object() && run["cupti"].contains("metrics"))
    upgrade_per_gpu(run["cupti"]["metrics"], gpus);
  run["schema_version"] = kResultsSchemaVersion;
}

int upgrade_results(json& doc, std::optional<int> unversioned_major) {
  int doc_major = 0, minor = 0, patch = 0;
  if (!doc.is_object() || !doc.contains("schema_version") || !doc.at("schema_version").is_string() ||
      !parse_semver(doc.at("schema_version").get<std::string>(), doc_major, minor, patch))
    return 0;
  int our = 0;
  parse_semver(kResultsSchemaVersion, our, minor, patch);
  upgrade_documents_ids(doc);  // 2.12.0's documents ids, as 2.13.0 names them (config_json.hpp)
  int converted = 0;
  std::string from;  // the oldest version converted
  if (doc.contains("runs") && doc.at("runs").is_array())
    for (auto& run : doc.at("runs")) {
      // Before 2.1.0 every run used ringbench's own kernel and said nothing of it.
      if (run.is_object() && run.contains("config") && run["config"].is_object() && !run["config"].contains("kernel"))
        run["config"]["kernel"] = "ringbench";
      int major = unversioned_major.value_or(doc_major);
      std::string version = unversioned_major ? fmt::format("{}.x", *unversioned_major)
                                              : doc.at("schema_version").get<std::string>();
      if (run.is_object() && run.contains("schema_version") && run.at("schema_version").is_string()) {
        version = run.at("schema_version").get<std::string>();
        parse_semver(version, major, minor, patch);
      }
      if (major < our) {
        upgrade_run(run, major);
        if (from.empty()) from = version;
        ++converted;
      }
    }
  if (doc_major < our && from.empty()) from = doc.at("schema_version").get<std::string>();
  if (!from.empty()) {
    if (!doc.contains("converted_from")) doc["converted_from"] = from;
    doc["schema_version"] = kResultsSchemaVersion;
  }
  return converted;
}

}  // namespace rb::reports
