// The values of a results file's fields: ranges, patterns, enums by version, and the writer's caps.
#include "reports/results/results_values.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/sweep_limits.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_relations.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& source, const std::string& path, const json& value,
                         const std::string& rule) {
  throw InputError(fmt::format("{}: {}", source, path.empty() ? "/" : path), json_text(value), rule);
}

// A format version as far as an enum's values go: MAJOR.MINOR.
struct Version {
  int major = 0, minor = 0;
  bool operator<(const Version& o) const { return major != o.major ? major < o.major : minor < o.minor; }
};

Version version_of(const json& v, Version otherwise) {
  int ma = 0, mi = 0, pa = 0;
  if (v.is_string() && parse_semver(v.get<std::string>(), ma, mi, pa)) return {ma, mi};
  return otherwise;
}

Version reader_version() {
  int ma = 0, mi = 0, pa = 0;
  parse_semver(kResultsSchemaVersion, ma, mi, pa);
  return {ma, mi};
}

// Calls f(value, path) for every value at `pattern`, a JSON pointer in which `*` stands for every
// element of an array or member of an object; `path` is the pointer of the value found.
template <class F>
void each_at(const json& v, std::string_view pattern, std::string& path, const F& f) {
  if (pattern.empty()) return f(v, path);
  pattern.remove_prefix(1);  // the '/'
  const std::size_t slash = pattern.find('/');
  const std::string_view key = pattern.substr(0, slash);
  const std::string_view rest = slash == std::string_view::npos ? std::string_view() : pattern.substr(slash);
  const std::size_t at = path.size();
  if (key == "*" && v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      path += fmt::format("/{}", i);
      each_at(v[i], rest, path, f);
      path.resize(at);
    }
  } else if (key == "*" && v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      path += '/' + k;
      each_at(x, rest, path, f);
      path.resize(at);
    }
  } else if (v.is_object()) {
    if (const auto it = v.find(std::string(key)); it != v.end()) {
      path += '/';
      path += key;
      each_at(*it, rest, path, f);
      path.resize(at);
    }
  }
}

// ---- enums, by the version that added each value ----

struct Allowed {
  std::string_view value;
  Version since;
};

struct EnumRule {
  std::string_view path;
  std::vector<Allowed> values;
};

// The document's own fields, judged by its schema_version.
const EnumRule kHeaderEnums[] = {
    {"/pairing/role", {{"base", {2, 3}}, {"new", {2, 3}}}},
    {"/pairing/first_by_round/*", {{"base", {2, 3}}, {"new", {2, 3}}}},
    {"/pairing/unit", {{"pass", {2, 7}}, {"configuration", {2, 7}}, {"sample", {2, 8}}}},
};

// A record's fields, judged by the version it was written in (its own schema_version, which a
// results.jsonl line carries since 1.0.0, else the document's).
const EnumRule kRunEnums[] = {
    {"/config/split", {{"contiguous", {0, 1}}, {"zigzag", {0, 1}}, {"striped", {0, 1}}, {"doc-zigzag", {2, 12}}}},
    {"/config/variant",
     {{"ring", {0, 1}},
      {"allgather", {0, 1}},
      {"ring-bidirectional", {1, 2}},
      {"ulysses", {2, 11}},
      {"hybrid", {2, 11}}}},
    {"/config/dtype", {{"float64", {0, 1}}, {"float32", {0, 1}}, {"bfloat16", {0, 1}}}},
    {"/config/backend", {{"cpu", {0, 1}}, {"cuda", {0, 1}}}},
    {"/config/transport", {{"local", {0, 1}}, {"mpi", {0, 2}}, {"nccl", {0, 1}}}},
    {"/config/kernel", {{"ringbench", {2, 1}}, {"cudnn", {2, 1}}}},
    {"/kernel_choice/requested", {{"ringbench", {2, 1}}, {"cudnn", {2, 1}}, {"auto", {2, 1}}}},
    {"/kernel_choice/chosen", {{"ringbench", {2, 1}}, {"cudnn", {2, 1}}}},
    {"/timing/cpu_binding", {{"ranks", {2, 4}}, {"none", {2, 4}}}},
    {"/metrics/comm_basis", {{"execution", {1, 0}}, {"in_flight", {1, 0}}, {"mixed", {1, 0}}}},
    {"/cupti/metrics/comm_basis", {{"execution", {1, 0}}, {"in_flight", {1, 0}}, {"mixed", {1, 0}}}},
    {"/metrics/per_rank/*/comm_basis", {{"execution", {1, 0}}, {"in_flight", {1, 0}}}},
    {"/cupti/metrics/per_rank/*/comm_basis", {{"execution", {1, 0}}, {"in_flight", {1, 0}}}},
    {"/timeline/intervals/*/kind",
     {{"compute", {0, 1}}, {"comm", {0, 1}}, {"memory", {0, 1}}, {"other", {0, 1}}, {"comm_in_flight", {1, 0}}}},
    {"/config/phase", {{"fwd", {2, 10}}, {"bwd", {2, 10}}, {"fwd+bwd", {2, 10}}}},
    {"/config/dkv", {{"reverse", {2, 10}}, {"follow", {2, 10}}}},
    {"/plan/backward/grads", {{"with_kv", {2, 10}}, {"trailing", {2, 10}}, {"reduce_scatter", {2, 10}}}},
    {"/phase_metrics/*/comm_basis", {{"execution", {2, 10}}, {"in_flight", {2, 10}}, {"mixed", {2, 10}}}},
};

void check_enum(const EnumRule& rule, const json& v, const std::string& path, Version file, const std::string& source) {
  if (!v.is_string()) return;  // null where the schema allows it; the types were checked before
  const std::string& s = v.get_ref<const std::string&>();
  std::string known;
  for (const Allowed& a : rule.values) {
    if (a.value == s && !(file < a.since)) return;
    if (!(file < a.since)) known += fmt::format("{}{}", known.empty() ? "" : ", ", a.value);
  }
  // A newer MINOR version may add values: this reader does not know them, and reads them as such.
  if (reader_version() < file) return;
  refuse(source, path, v, fmt::format("must be one of: {} (results {}.{})", known, file.major, file.minor));
}

template <std::size_t N>
void check_enums(const json& v, const EnumRule (&rules)[N], std::string& path, Version file,
                 const std::string& source) {
  for (const EnumRule& r : rules)
    each_at(v, r.path, path, [&](const json& x, const std::string& p) { check_enum(r, x, p, file, source); });
}

// ---- numbers ----

constexpr double kInf = std::numeric_limits<double>::infinity();

struct NumberRule {
  std::string_view path;
  double lo, hi;
  const char* rule;
};

constexpr const char* kNotNegative = "must not be negative";
constexpr const char* kFraction = "must be a fraction in [0, 1]";
constexpr const char* kImbalance = "must be at least 1 (the largest over the mean)";

// Rates no device reaches, 100 times beyond the fastest GPU's and link's (2 PFLOP/s dense, 1.8 TB/s):
// an absurd figure (1e300) made fleet's drift +inf%, JSON null. With the smallest positive figure a
// rate can have (a nonzero number is at least 1e-100, check_finite), a ratio of two stays finite.
constexpr double kMaxTflops = 1e5;
constexpr double kMaxGbytePerS = 1e6;
constexpr double kMaxAggregateTflops = kMaxTflops * static_cast<double>(kMaxCp);
constexpr const char* kTflopsRule = "must be a rate in [0, 1e5] TFLOP/s per GPU (no GPU computes faster)";
constexpr const char* kAggregateRule = "must be a rate in [0, 1e5 x 2^20] TFLOP/s over all ranks";
constexpr const char* kBandwidthRule = "must be a rate in [0, 1e6] GB/s (no link moves data faster)";

const NumberRule kHeaderNumbers[] = {
    {"/host/cpu_threads", 0, kInf, kNotNegative},
    {"/distributed/world_size", 1, kInf, "must be at least 1"},
    {"/distributed/ranks/*/rank", 0, kInf, kNotNegative},
    {"/distributed/ranks/*/clock_rtt_ns", 0, kInf, kNotNegative},
};

// Figures of a metrics object (the run's, or the CUPTI pass's), relative to it.
const NumberRule kMetricsNumbers[] = {
    {"/attention_tflops", 0, kMaxTflops, kTflopsRule},
    {"/attention_tflops_aggregate", 0, kMaxAggregateTflops, kAggregateRule},
    {"/attention_tflops_slowest_rank", 0, kMaxTflops, kTflopsRule},
    {"/attention_tflops_gpus", 1, kInf, "must be at least 1"},
    {"/slowest_rank", 0, kInf, kNotNegative},
    {"/comm_bandwidth_gbyte_per_s", 0, kMaxGbytePerS, kBandwidthRule},
    {"/comm_bytes", 0, kInf, kNotNegative},
    {"/comm_time_ms", 0, kInf, kNotNegative},
    {"/comm_in_flight_ms", 0, kInf, kNotNegative},
    {"/compute_time_ms", 0, kInf, kNotNegative},
    {"/memory_time_ms", 0, kInf, kNotNegative},
    {"/busy_time_ms", 0, kInf, kNotNegative},
    {"/overlap_time_ms", 0, kInf, kNotNegative},
    {"/exposed_comm_ms", 0, kInf, kNotNegative},
    {"/exposed_comm_ms_max", 0, kInf, kNotNegative},
    {"/pass_time_ms", 0, kInf, kNotNegative},
    {"/critical_path_ms", 0, kInf, kNotNegative},
    {"/timeline_pass_ms", 0, kInf, kNotNegative},
    {"/window_ms", 0, kInf, kNotNegative},
    {"/overlap_fraction", 0, 1, kFraction},
    {"/work_imbalance", 0.999999, kInf, kImbalance},
    {"/imbalance", 0.999999, kInf, kImbalance},
    {"/step_times/*/time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/rank", 0, kInf, kNotNegative},
    {"/per_rank/*/attention_tflops", 0, kMaxTflops, kTflopsRule},
    {"/per_rank/*/attention_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/comm_bandwidth_gbyte_per_s", 0, kMaxGbytePerS, kBandwidthRule},
    {"/per_rank/*/comm_bytes", 0, kInf, kNotNegative},
    {"/per_rank/*/comm_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/comm_in_flight_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/compute_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/memory_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/busy_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/overlap_time_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/exposed_comm_ms", 0, kInf, kNotNegative},
    {"/per_rank/*/overlap_fraction", 0, 1, kFraction},
    {"/per_rank/*/interval_count", 0, kInf, kNotNegative},
    {"/per_rank/*/steps/*/time_ms", 0, kInf, kNotNegative},
};

// A record's figures, relative to it (timing's times are checked by the reader itself, against a day).
const NumberRule kRunNumbers[] = {
    {"/config/seed", 0, kInf, kNotNegative},
    {"/config/repeats", 1, static_cast<double>(kMaxPassCount), "must be a count of passes in [1, 1000000]"},
    {"/config/warmup", 0, static_cast<double>(kMaxPassCount), "must be a count of passes in [0, 1000000]"},
    {"/config/link_gbps", 0, kInf, kNotNegative},
    {"/config/ulysses_degree", 1, static_cast<double>(kMaxCp), "must be a group of ranks in [1, 2^20]"},
    {"/config/document_lengths/*", 1, static_cast<double>(kMaxSeq), "must be a document's tokens in [1, 2^40]"},
    {"/config/padding_tokens", 0, static_cast<double>(kMaxSeq), "must be a count of tokens in [0, 2^40]"},
    {"/correctness/rows_checked", 0, kInf, kNotNegative},
    {"/correctness/max_abs_err", 0, kInf, kNotNegative},
    {"/correctness/rel_l2_err", 0, kInf, kNotNegative},
    {"/correctness/over_tolerance", 0, kInf, kNotNegative},
    {"/correctness/tolerance", 0, kInf, kNotNegative},
    {"/timing/count", 0, kInf, kNotNegative},
    {"/timing/noise_pct", 0, kInf, kNotNegative},
    {"/timing/warmup", 0, static_cast<double>(kMaxPassCount), "must be a count of passes in [0, 1000000]"},
    {"/timing/rounds", 1, static_cast<double>(kMaxPassCount), "must be a count of rounds in [1, 1000000]"},
    {"/timing/rounds_planned", 1, static_cast<double>(kMaxPassCount), "must be a count of rounds in [1, 1000000]"},
    {"/timing/round_counts/*", 0, kInf, kNotNegative},
    {"/timing/machine_probe_ms/*", 0, kInf, kNotNegative},
    {"/timing/machine_probe_core_spread/*", 0, kInf, kNotNegative},
    {"/timing/devices", 1, kInf, "must be at least 1"},
    {"/timing/stopping/max_noise_pct", 0, kInf, kNotNegative},
    {"/timing/stopping/max_time_s", 0, kInf, kNotNegative},
    {"/plan/work_imbalance", 0.999999, kInf, kImbalance},
    {"/plan/total_work", 0, kInf, kNotNegative},
    {"/plan/flops", 0, kInf, kNotNegative},
    {"/plan/bytes_moved", 0, kInf, kNotNegative},
    {"/plan/kv_bytes_per_token", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/rank", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/tokens", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/unmasked_pairs", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/work", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/recv_bytes", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/step", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/sources/*", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/unmasked_pairs", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/recv_bytes", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/send_bytes", 0, kInf, kNotNegative},
    {"/plan/per_rank/*/steps/*/pairs/*", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/rank", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/step", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/sources/*", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/unmasked_pairs", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/recv_bytes", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/send_bytes", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/steps/*/pairs/*", 0, kInf, kNotNegative},
    {"/cupti/traced_pass_ms", 0, kInf, kNotNegative},
    {"/cupti/clean_median_ms", 0, kInf, kNotNegative},
    {"/cupti/window_ms", 0, kInf, kNotNegative},
    {"/cupti/activity_ms", 0, kInf, kNotNegative},
    {"/sm_clock/nominal_mhz", 0, kInf, kNotNegative},
    {"/sm_clock/threshold_pct", 0, 100, "must be a percentage in [0, 100]"},
    {"/sm_clock/threshold_mhz", 0, kInf, kNotNegative},
    {"/sm_clock/recovery_ms", 0, kInf, kNotNegative},
    {"/sm_clock/samples_ms/*", 0, kInf, kNotNegative},
    {"/sm_clock/samples_mhz/*", 0, kInf, kNotNegative},
    {"/sm_clock/dropped/*", 0, kInf, kNotNegative},
    {"/sm_clock/dropped_count", 0, kInf, kNotNegative},
    {"/sm_clock/taken", 0, kInf, kNotNegative},
    {"/timeline/window_ms", 0, kInf, kNotNegative},
    {"/timeline/intervals/*/rank", 0, kInf, kNotNegative},
    {"/timeline/intervals/*/bytes", 0, kInf, kNotNegative},
    {"/placement/*/rank", 0, kInf, kNotNegative},
    {"/correctness/gradients/tolerance", 0, kInf, kNotNegative},
    {"/correctness/gradients/*/rows_checked", 0, kInf, kNotNegative},
    {"/correctness/gradients/*/max_abs_err", 0, kInf, kNotNegative},
    {"/correctness/gradients/*/rel_l2_err", 0, kInf, kNotNegative},
    {"/correctness/gradients/*/over_tolerance", 0, kInf, kNotNegative},
    {"/timing/phase_ms/*/median_ms", 0, kInf, kNotNegative},
    {"/timing/phase_ms/*/samples_ms/*", 0, kInf, kNotNegative},
    {"/plan/forward_flops", 0, kInf, kNotNegative},
    {"/plan/backward/flops", 0, kInf, kNotNegative},
    {"/plan/backward/bytes_moved", 0, kInf, kNotNegative},
    {"/plan/backward/grad_bytes_per_token", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/recv_bytes", 0, kInf, kNotNegative},
    {"/plan/backward/per_rank/*/tail_recv_bytes", 0, kInf, kNotNegative},
    {"/timeline/intervals/*/phase", 0, 1, "must be 0 (the forward) or 1 (the backward)"},
    {"/timeline/intervals/*/step", -1, kInf, "must be a step, or -1 (an all-to-all outside the steps)"},
    {"/plan/per_rank/*/segments/*/*", 0, kInf, kNotNegative},
    {"/timing/stopping/min_samples", 0, static_cast<double>(kMaxPassCount),
     "must be a count of passes in [0, 1000000]"},
    {"/timing/machine_probe_version", 1, kInf, "must be at least 1"},
    {"/cupti/unattributed_records", 0, kInf, kNotNegative},
    {"/cupti/dropped_records", 0, kInf, kNotNegative},
    {"/cupti/ignored_records", 0, kInf, kNotNegative},
    {"/cupti/intervals", 0, kInf, kNotNegative},
    {"/kernel_choice/cudnn_plan_builds", 0, kInf, kNotNegative},
    {"/kernel_choice/cudnn_plan_build_ms", 0, kInf, kNotNegative},
    {"/kernel_choice/cudnn_graphs/*/build_ms", 0, kInf, kNotNegative},
};

template <std::size_t N>
void check_numbers(const json& v, const NumberRule (&rules)[N], std::string& path, const std::string& source) {
  for (const NumberRule& r : rules)
    each_at(v, r.path, path, [&](const json& x, const std::string& p) {
      if (x.is_number() && !(x.get<double>() >= r.lo && x.get<double>() <= r.hi)) refuse(source, p, x, r.rule);
    });
}

// No writer writes a number JSON cannot hold: one that overflowed on read (1e999) is no figure. No
// reader reads an integer past 2^63 - 1 but the seed (a 64-bit draw): 2^64 - 1 read back as -1 and
// passed the documents' sum. A nonzero number below 1e-100 is no measurement (the clock ticks in
// nanoseconds), and a ratio with it for a denominator overflowed (fleet's drift, compare's change).
void check_finite(const json& v, std::string& path, const std::string& source) {
  const std::size_t at = path.size();
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    refuse(source, path, v, "must be a finite number (the value overflows a double)");
  if (v.is_number_float() && v.get<double>() != 0 && std::abs(v.get<double>()) < 1e-100)
    refuse(source, path, v, "must be 0 or at least 1e-100 in size (no figure a run measures is smaller)");
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX) &&
      !path.ends_with("/config/seed"))
    refuse(source, path, v, "must be at most 2^63 - 1 (readers read it as a signed 64-bit integer)");
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_structured() && !v[i].is_number()) continue;
      path += fmt::format("/{}", i);
      check_finite(v[i], path, source);
      path.resize(at);
    }
  } else if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      if (!x.is_structured() && !x.is_number()) continue;
      path += '/' + k;
      check_finite(x, path, source);
      path.resize(at);
    }
  }
}

// ---- patterns ----

void check_not_empty(const json& v, std::initializer_list<std::string_view> paths, std::string& path,
                     const std::string& source) {
  for (const std::string_view p : paths)
    each_at(v, p, path, [&](const json& x, const std::string& at) {
      if (x.is_string() && x.get_ref<const std::string&>().empty()) refuse(source, at, x, "must not be empty");
    });
}

void check_run_time(const json& doc, const std::string& source) {
  if (!doc.contains("run_time") || !doc.at("run_time").is_object()) return;
  const json& t = doc.at("run_time");
  for (const char* k : {"started_utc", "finished_utc"})
    if (t.contains(k) && t.at(k).is_string() && !is_utc_timestamp(t.at(k).get<std::string>()))
      refuse(source, fmt::format("/run_time/{}", k), t.at(k),
             "must be a UTC time to the second, YYYY-MM-DDTHH:MM:SSZ (2026-12-02T10:38:21Z)");
  // Both are as long as the pattern says, so text order is time order.
  if (t.contains("started_utc") && t.contains("finished_utc") && t.at("started_utc").is_string() &&
      t.at("finished_utc").is_string() &&
      t.at("finished_utc").get<std::string>() < t.at("started_utc").get<std::string>())
    refuse(source, "/run_time/finished_utc", t.at("finished_utc"),
           fmt::format("must not be before the run's start ({})", t.at("started_utc").get<std::string>()));
}

// ---- counts a reader sizes things by ----

void check_counts(const json& run, const std::string& run_path, const std::string& source) {
  const json& cfg = run.at("config");
  const std::string cpath = run_path + "/config";
  // validate_run has made these positive integers.
  if (cfg.at("seq").get<std::int64_t>() > kMaxSeq)
    refuse(source, cpath + "/seq", cfg.at("seq"), "must be at most 2^40 (the largest S a sweep runs)");
  const std::int64_t cp = cfg.at("cp").get<std::int64_t>();
  if (cp > kMaxCp) refuse(source, cpath + "/cp", cfg.at("cp"), "must be at most 2^20 (the largest c a sweep runs)");
  for (const char* k : {"heads", "kv_heads", "head_dim"})
    if (cfg.at(k).get<std::int64_t>() > INT_MAX) refuse(source, cpath + "/" + k, cfg.at(k), "must be at most 2^31 - 1");
  // Packed documents (2.12.0): at most as many as a configuration holds (results_relations.cpp holds
  // them to S where the record ran).
  if (cfg.contains("document_lengths") && cfg.at("document_lengths").is_array() &&
      static_cast<std::int64_t>(cfg.at("document_lengths").size()) > kMaxDocuments)
    refuse(source, cpath + "/document_lengths", json(fmt::format("{} documents", cfg.at("document_lengths").size())),
           fmt::format("must list at most {} documents (the most a configuration holds)", kMaxDocuments));

  // Every rank a record names is one of the configuration's c ranks.
  std::string path = run_path;
  for (const std::string_view p :
       {std::string_view("/plan/per_rank/*/rank"), std::string_view("/metrics/per_rank/*/rank"),
        std::string_view("/placement/*/rank"), std::string_view("/timeline/intervals/*/rank"),
        std::string_view("/metrics/slowest_rank")})
    each_at(run, p, path, [&](const json& x, const std::string& at) {
      if (x.is_number_integer() && x.get<std::int64_t>() >= cp)
        refuse(source, at, x, fmt::format("must be a rank of the configuration, below config.cp ({})", cp));
    });
  // A plan lists every rank once, forward and backward: results_relations.cpp.

  // The rounds' samples: a sum past the samples read past them (compare split samples_ms by it).
  if (!run.contains("timing") || !run.at("timing").is_object()) return;
  const json& t = run.at("timing");
  if (!t.contains("round_counts") || !t.at("round_counts").is_array()) return;
  const json& counts = t.at("round_counts");
  const std::string tpath = run_path + "/timing";
  if (counts.size() > static_cast<std::size_t>(kMaxPassCount))
    refuse(source, tpath + "/round_counts", json(fmt::format("{} rounds", counts.size())),
           "must list at most 1000000 rounds (the most a sweep runs)");
  const auto samples = static_cast<std::int64_t>(t.at("samples_ms").size());
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::int64_t n = counts[k].get<std::int64_t>();
    // n is within [0, samples] before it is added, so the sum cannot wrap.
    if (n < 0 || n > samples - sum)
      refuse(source, fmt::format("{}/round_counts/{}", tpath, k), counts[k],
             fmt::format("the rounds' counts must add up to at most the {} samples of samples_ms", samples));
    sum += n;
  }
}

}  // namespace

bool is_utc_timestamp(const std::string& s) {
  // "YYYY-MM-DDTHH:MM:SSZ"
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
    return false;
  const auto num = [&](std::size_t at, std::size_t len, int& out) {
    for (std::size_t i = at; i < at + len; ++i)
      if (s[i] < '0' || s[i] > '9') return false;
    return std::from_chars(s.data() + at, s.data() + at + len, out).ec == std::errc();
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!num(0, 4, y) || !num(5, 2, mo) || !num(8, 2, d) || !num(11, 2, h) || !num(14, 2, mi) || !num(17, 2, se))
    return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12) return false;
  const int days = kDays[mo - 1] + (mo == 2 && leap ? 1 : 0);
  return d >= 1 && d <= days && h <= 23 && mi <= 59 && se <= 60;
}

void check_results_values(const json& doc, const std::string& source) {
  std::string path;
  check_finite(doc, path, source);
  const Version file = version_of(doc.at("schema_version"), Version{});
  check_run_time(doc, source);
  check_not_empty(doc, {"/pairing/partner_git_sha", "/pairing/partner_version", "/pairing/pair_id"}, path, source);
  check_enums(doc, kHeaderEnums, path, file, source);
  check_numbers(doc, kHeaderNumbers, path, source);
  const json& runs = doc.at("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& run = runs[i];
    std::string rp = fmt::format("/runs/{}", i);
    const Version written = version_of(run.contains("schema_version") ? run.at("schema_version") : json(), file);
    check_enums(run, kRunEnums, rp, written, source);
    check_not_empty(run, {"/config/id", "/alias_of"}, rp, source);
    if (run.at("status") != "ok" && run.at("reason").is_string() &&
        run.at("reason").get_ref<const std::string&>().empty())
      refuse(source, rp + "/reason", run.at("reason"), "a failed or skipped run must give its reason");
    check_numbers(run, kRunNumbers, rp, source);
    for (const char* m : {"/metrics", "/cupti/metrics", "/phase_metrics/fwd", "/phase_metrics/bwd"}) {
      std::string mp = rp + m;
      const json::json_pointer at(m);
      if (run.contains(at) && run.at(at).is_object()) check_numbers(run.at(at), kMetricsNumbers, mp, source);
    }
    check_counts(run, rp, source);
    check_record_relations(run, rp, source);
  }
}

}  // namespace rb::reports
