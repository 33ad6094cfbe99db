// Judging a fleet of nodes against itself (fleet.hpp, docs/fleet.md).
#include "reports/fleet/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A metric's value in one run, and in one rank of it.
struct MetricReader {
  FleetMetricInfo info;
  std::function<std::optional<double>(const RunRecord&)> run;
  std::function<std::optional<double>(const RecordRankMetrics&)> rank;  // null: no per-GPU figure
};

const std::vector<MetricReader>& readers() {
  static const std::vector<MetricReader> kReaders = {
      {{"pass_time", "pass time", "ms", false, false}, [](const RunRecord& r) { return r.timing.median_ms; }, nullptr},
      {{"attention_tflops", "attention TFLOP/s per GPU", "TFLOP/s", true, true},
       [](const RunRecord& r) { return r.metrics.attention_tflops; },
       [](const RecordRankMetrics& m) { return m.attention_tflops; }},
      {{"comm_bandwidth", "comm bandwidth", "GB/s", true, true},
       [](const RunRecord& r) { return r.metrics.comm_bandwidth_gbyte_per_s; },
       [](const RecordRankMetrics& m) { return m.comm_bandwidth_gbyte_per_s; }},
  };
  return kReaders;
}

double fleet_median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// 1.4826 x the median absolute deviation: a standard deviation's estimate that a few outliers
// cannot inflate.
double robust_spread(const std::vector<double>& v, double median) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::abs(x - median));
  return 1.4826 * fleet_median(std::move(dev));
}

bool is_jsonl(const ResultsFile& f) { return f.path.extension() == ".jsonl"; }

// One node as read: its newest file's ok runs by configuration id, and what it failed.
struct NodeRuns {
  NodeIdentity identity;
  std::string file;
  std::map<std::string, RunRecord> runs;      // ok runs only
  std::map<std::string, std::string> failed;  // id -> "label: reason" of each run that failed
  int skipped = 0;
  std::string unfinished;  // why its sweep did not run whole, or ""
};

// The host a results.jsonl's records name (placement, results 2.5.0): the file has no header. Rank
// 0's host, as the header of an MPI job's results.json names the host of rank 0.
std::string host_of_records(const ResultsFile& f) {
  for (const json& j : f.runs()) {
    const RunRecord r = read_run_record(j);
    for (const auto& p : r.placement)
      if (p.rank == 0 && !p.host.empty()) return p.host;
  }
  throw InputError(f.path.string() + ": host", "none",
                   "a results.jsonl has no header, and none of its records names the host that ran it (placement, "
                   "results 2.5.0): the node cannot be told apart; give its results.json");
}

NodeRuns node_runs(const ResultsFile& f) {
  NodeRuns n{node_identity(f.doc), f.path.string(), {}, {}, 0, {}};
  if (is_jsonl(f)) {
    n.identity.hostname = host_of_records(f);
    std::erase(n.identity.missing, "/host/hostname");
    n.unfinished = "its sweep did not finish: a results.jsonl without its results.json (the sweep was killed)";
  } else if (f.doc.contains("stopped") && f.doc.at("stopped").is_string() &&
             !f.doc.at("stopped").get_ref<const std::string&>().empty()) {
    n.unfinished = "its sweep did not finish: " + f.doc.at("stopped").get<std::string>();
  }
  for (const json& j : f.runs()) {
    RunRecord r = read_run_record(j);
    // A c = 1 alias repeats another configuration's measurement: counted once in the medians.
    if (!r.alias_of.empty()) continue;
    if (r.status == RunStatus::ok)
      n.runs.emplace(r.config.id, std::move(r));
    else if (r.status == RunStatus::failed)
      n.failed.emplace(r.config.id, fmt::format("{}: {}", label(r.config), r.reason));
    else
      ++n.skipped;
  }
  return n;
}

// Why a node is an outlier by what it failed to measure, whatever the others measured: it failed
// every configuration, failed one the others ran ok, or its sweep did not run whole.
// `ok_somewhere` holds every configuration some node ran ok (counted once, so a fleet of thousands
// of nodes is not compared pairwise).
std::vector<std::string> named_failures(const NodeRuns& n, const std::set<std::string>& ok_somewhere) {
  std::vector<std::string> out;
  if (n.runs.empty()) {
    std::string first = n.failed.empty() ? "" : "; first: " + n.failed.begin()->second;
    out.push_back(fmt::format("no configuration ran ok ({} failed, {} skipped{})", n.failed.size(), n.skipped,
                              elide(first, 200)));
  } else {
    std::vector<std::string> beside;  // failed here, ok on another node
    for (const auto& [id, why] : n.failed)
      if (ok_somewhere.count(id)) beside.push_back(why);
    if (!beside.empty())
      out.push_back(fmt::format("{} configuration{} failed that ran ok on other nodes (first: {})", beside.size(),
                                beside.size() == 1 ? "" : "s", elide(beside.front(), 200)));
  }
  if (!n.unfinished.empty()) out.push_back(n.unfinished);
  return out;
}

// A node whose configurations are none of those the most nodes ran ok shares nothing with the
// fleet: it kept the profile's name but ran another sweep (another --phase, documents, U or dK/dV
// design changes every id). Left in, it emptied the configurations every node shares, and the fleet
// turned N/A (exit 0) around a slow node; it is named instead, and the rest judged without it. Where
// several sweeps tie for the most nodes there is no fleet's sweep to name a node by: nothing is
// shared, which stays N/A.
void name_strangers(const std::vector<NodeRuns>& nodes, std::vector<std::vector<std::string>>& named) {
  std::map<std::string, int> ok_on;
  for (const auto& n : nodes)
    for (const auto& [id, run] : n.runs) ++ok_on[id];
  int most = 0;
  for (const auto& [id, count] : ok_on) most = std::max(most, count);
  if (most < 2) return;  // no two nodes share a configuration: no fleet to stand apart from
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& runs = nodes[i].runs;
    if (runs.empty() || std::any_of(runs.begin(), runs.end(), [&](const auto& r) { return ok_on[r.first] == most; }))
      continue;
    named[i].push_back(fmt::format(
        "shares no configuration with the fleet: none of its {} ok configuration{} is one the most nodes ({} of {}) "
        "ran ok (first: {}); another --phase, documents, U or dK/dV design changes every configuration",
        runs.size(), runs.size() == 1 ? "" : "s", most, nodes.size(), elide(label(runs.begin()->second.config), 200)));
  }
}

std::string profile_of(const ResultsFile& f) {
  const json::json_pointer p("/profile/name");
  return f.doc.contains(p) && f.doc.at(p).is_string() ? f.doc.at(p).get<std::string>() : "";
}

std::string gpu_model_of(const ResultsFile& f) {
  const json::json_pointer p("/host/gpus");
  if (!f.doc.contains(p) || !f.doc.at(p).is_array() || f.doc.at(p).empty()) return "none (cpu backend)";
  std::set<std::string> names;
  for (const json& g : f.doc.at(p))
    if (g.is_object() && g.contains("name") && g.at("name").is_string()) names.insert(g.at("name").get<std::string>());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " + ") + n;
  return out.empty() ? "unnamed GPU" : out;
}

std::string tool_major_of(const ResultsFile& f) {
  const json::json_pointer p("/tool/version");
  const std::string v = f.doc.contains(p) && f.doc.at(p).is_string() ? f.doc.at(p).get<std::string>() : "";
  return v.substr(0, v.find('.'));
}

// Refuses a fleet whose files cannot be compared: one line naming both files and both values. A
// results.jsonl has no header to compare: it is left out (docs/fleet.md).
void check_same(const std::vector<const ResultsFile*>& files, const char* what, const char* rule,
                std::string (*of)(const ResultsFile&)) {
  if (files.empty()) return;
  const std::string first = of(*files.front());
  for (const ResultsFile* f : files)
    if (const std::string v = of(*f); v != first)
      throw InputError(fmt::format("{}: {}", f->path.string(), what), fmt::format("\"{}\"", v),
                       fmt::format("{} has \"{}\": {}", files.front()->path.string(), first, rule));
}

// Where a value stands against the fleet: the fraction worse than the median (negative: better).
double shortfall_of(double relative, double median, bool higher_is_better) {
  if (!(median > 0)) return 0;
  return higher_is_better ? (median - relative) / median : (relative - median) / median;
}

// The worse-side edge of the band: the shortfall from which a point is an outlier.
double outlier_edge(const FleetOptions& o, double spread, double median) {
  const double by_spread = median > 0 ? o.spreads * spread / median : 0;
  return std::min(o.max_shortfall, std::max(o.min_shortfall, by_spread));
}

void judge_point(FleetPoint& p, double median, double spread, const FleetMetricInfo& m, const FleetOptions& o,
                 bool judged) {
  p.shortfall = shortfall_of(p.relative, median, m.higher_is_better);
  p.spreads = spread > 0 ? p.shortfall * median / spread : 0;
  const bool beyond_fraction = p.shortfall > o.max_shortfall;
  const bool beyond_spread = p.spreads > o.spreads && p.shortfall >= o.min_shortfall;
  p.outlier = judged && (beyond_fraction || beyond_spread);
  if (!p.outlier) return;
  const char* word = m.higher_is_better ? "below" : "above";
  p.why = beyond_fraction ? fmt::format("{:.1f}% {} the fleet median (limit {:.1f}%)", 100 * p.shortfall, word,
                                        100 * o.max_shortfall)
                          : fmt::format("{:.1f}% {} the fleet median, {:.1f} robust spreads (limit {:g})",
                                        100 * p.shortfall, word, p.spreads, o.spreads);
}

// The name a rank's GPU goes by: its UUID, or on the cpu backend (or without placement) the rank.
std::string gpu_name(const RunRecord& r, std::int64_t rank) {
  for (const auto& p : r.placement)
    if (p.rank == rank && !p.device.empty() && p.device.rfind("cpu", 0) != 0) return p.device;
  return fmt::format("rank {}", rank);
}

}  // namespace

int FleetReport::outlier_count() const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const FleetNode& n) { return n.outlier; }));
}

const std::vector<FleetMetricInfo>& fleet_metrics() {
  static const std::vector<FleetMetricInfo> kInfo = [] {
    std::vector<FleetMetricInfo> v;
    for (const auto& r : readers()) v.push_back(r.info);
    return v;
  }();
  return kInfo;
}

std::vector<std::string> fleet_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      out.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) throw InputError("paths", p, "no such file or folder");
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const auto name = it->path().filename();
      if (name == "results.json" ||
          (name == "results.jsonl" && !fs::exists(it->path().parent_path() / "results.json", ec)))
        found.push_back(it->path().string());
    }
    if (found.empty())
      throw InputError("paths", p, "the folder holds no results.json (ringbench accept --out DIR writes one)");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

FleetReport judge_fleet(const std::vector<ResultsFile>& files, const FleetOptions& options) {
  if (files.empty()) throw InputError("paths", "(none)", "give the nodes' results files or folders");
  std::vector<const ResultsFile*> headed;
  for (const auto& f : files)
    if (!is_jsonl(f)) headed.push_back(&f);
  check_same(headed, "profile", "a fleet is judged on one profile", profile_of);
  check_same(headed, "GPU model", "a fleet is judged on one GPU model", gpu_model_of);
  check_same(headed, "ringbench major version", "results of different major versions measure differently",
             tool_major_of);
  FleetReport rep;
  rep.options = options;
  if (!headed.empty()) {
    rep.profile = profile_of(*headed.front());
    rep.gpu_model = gpu_model_of(*headed.front());
    rep.tool_major = tool_major_of(*headed.front());
  }

  // Files by node, oldest first: the newest is the node's figure, earlier ones its drift.
  std::map<std::string, std::vector<NodeRuns>> by_node;
  for (const auto& f : files) {
    NodeRuns n = node_runs(f);
    if (!f.doc.value("converted_from", std::string()).empty())
      rep.notes.push_back(fmt::format("{}: results {} converted on read", f.path.string(),
                                      f.doc.value("converted_from", std::string())));
    if (is_jsonl(f))
      rep.notes.push_back(
          fmt::format("{}: a results.jsonl has no header: node {} named by its records' placement, "
                      "its profile, GPU model and ringbench version not compared",
                      f.path.string(), n.identity.hostname));
    else if (!n.identity.missing.empty())
      rep.notes.push_back(fmt::format("{}: {} not recorded (results older than 2.5.0)", f.path.string(),
                                      fmt::join(n.identity.missing, ", ")));
    const std::string key = n.identity.hostname.empty() ? "unnamed node (" + n.file + ")" : n.identity.hostname;
    if (n.identity.hostname.empty()) n.identity.hostname = key;
    by_node[key].push_back(std::move(n));
  }
  std::vector<NodeRuns> nodes;
  for (auto& [key, list] : by_node) {
    std::stable_sort(list.begin(), list.end(), [](const NodeRuns& a, const NodeRuns& b) {
      return a.identity.started_utc < b.identity.started_utc;
    });
    nodes.push_back(list.back());
  }
  // A node that failed what it was given is an outlier by name (named_failures), whatever the rest
  // measured; the rest is still judged over what they share. A node with no ok run has no figure.
  std::set<std::string> ok_somewhere;
  for (const auto& n : nodes)
    for (const auto& [id, run] : n.runs) ok_somewhere.insert(id);
  std::vector<std::vector<std::string>> named(nodes.size());
  std::size_t live = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    named[i] = named_failures(nodes[i], ok_somewhere);
    live += !nodes[i].runs.empty();
  }
  name_strangers(nodes, named);
  rep.judged = static_cast<int>(live) >= options.min_nodes;
  if (!rep.judged)
    rep.na_reason = fmt::format("{} node{}{}: too few to judge outliers ({} or more)", live, live == 1 ? "" : "s",
                                live < nodes.size() ? " with an ok run" : "", options.min_nodes);

  // Only configurations ok on every node that ran whole are compared, so each node's median is over
  // the same set; a node named above is placed over what it shares of that set, and cannot shrink it.
  std::vector<const NodeRuns*> sound, with_runs;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].runs.empty()) with_runs.push_back(&nodes[i]);
    if (named[i].empty()) sound.push_back(&nodes[i]);
  }
  const std::vector<const NodeRuns*>& basis = sound.empty() ? with_runs : sound;
  std::set<std::string> shared, every;
  if (!basis.empty())
    for (const auto& [id, run] : basis.front()->runs) shared.insert(id);
  for (const NodeRuns* n : basis) {
    for (const auto& [id, run] : n->runs) every.insert(id);
    std::erase_if(shared, [&](const std::string& id) { return !n->runs.count(id); });
  }
  if (shared.size() < every.size())
    rep.notes.push_back(fmt::format("{} of {} configurations left out: not ok on every node",
                                    every.size() - shared.size(), every.size()));

  for (const auto& n : nodes) rep.nodes.push_back({n.identity, n.file, 0, "", false, {}});
  // A figure of 0 is no measurement: its node (or GPU) is named, and left out of that median.
  std::map<std::pair<std::size_t, std::string>, std::pair<int, std::string>> zeros;  // (node, what) -> count, first
  const auto zero = [&](std::size_t i, const std::string& what, const std::string& id) {
    auto& z = zeros[{i, what}];
    if (z.first++ == 0) z.second = label(nodes[i].runs.at(id).config);
  };
  for (const auto& reader : readers()) {
    FleetMetricResult mr;
    mr.metric = reader.info;
    // The fleet median of each configuration (and of each rank of it), then each node's ratios.
    std::vector<std::vector<double>> node_ratios(nodes.size());
    std::map<std::pair<std::size_t, std::string>, std::pair<std::vector<double>, std::set<int>>> gpu_ratios;
    for (const auto& id : shared) {
      // Every node that ran it ok and measured it; the reader has refused negative and non-finite figures.
      std::vector<std::pair<std::size_t, double>> measured;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto it = nodes[i].runs.find(id);
        if (it == nodes[i].runs.end()) continue;
        if (const auto v = reader.run(it->second); v && *v > 0)
          measured.push_back({i, *v});
        else if (v && *v == 0)
          zero(i, reader.info.title, id);
      }
      std::vector<double> values;
      for (const auto& [i, v] : measured) values.push_back(v);
      const double med = fleet_median(values);
      if (med > 0)
        for (const auto& [i, v] : measured) node_ratios[i].push_back(v / med);
      if (!reader.rank) continue;
      std::map<std::int64_t, std::vector<std::pair<std::size_t, double>>> by_rank;
      for (const auto& [i, v] : measured) {
        const RunRecord& r = nodes[i].runs.at(id);
        if (!r.metrics.per_rank) continue;
        for (const auto& pr : *r.metrics.per_rank) {
          const auto rv = reader.rank(pr);
          if (rv && *rv > 0)
            by_rank[pr.rank].push_back({i, *rv});
          else if (rv && *rv == 0)
            zero(i, fmt::format("{}: GPU {} (rank {})", reader.info.title, gpu_name(r, pr.rank), pr.rank), id);
        }
      }
      for (const auto& [rank, vals] : by_rank) {
        std::vector<double> vs;
        for (const auto& [i, v] : vals) vs.push_back(v);
        const double rmed = fleet_median(vs);
        if (!(rmed > 0)) continue;
        for (const auto& [i, v] : vals) {
          auto& slot = gpu_ratios[{i, gpu_name(nodes[i].runs.at(id), rank)}];
          slot.first.push_back(v / rmed);
          slot.second.insert(static_cast<int>(rank));
        }
      }
    }
    std::vector<double> rel;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      FleetPoint p;
      p.node = nodes[i].identity.hostname;
      p.configurations = static_cast<int>(node_ratios[i].size());
      p.relative = node_ratios[i].empty() ? std::nan("") : fleet_median(node_ratios[i]);
      if (std::isfinite(p.relative)) rel.push_back(p.relative);
      mr.nodes.push_back(std::move(p));
    }
    if (rel.empty()) continue;  // no node measured it (comm at c = 1 only, say)
    mr.median = fleet_median(rel);
    mr.spread = robust_spread(rel, mr.median);
    for (auto& p : mr.nodes)
      if (std::isfinite(p.relative)) judge_point(p, mr.median, mr.spread, mr.metric, options, rep.judged);
    const double edge = outlier_edge(options, mr.spread, mr.median);
    mr.node_limit = mr.metric.higher_is_better ? mr.median * (1 - edge) : mr.median * (1 + edge);

    // A GPU is judged with its node's own level taken out (its figure over the median of its
    // node's GPUs): a node slow on every GPU is named once, as a node, and a GPU when it is the odd
    // one out of its node, which is what a user swaps.
    std::map<std::size_t, std::vector<double>> node_gpus;
    for (const auto& [key, ratios] : gpu_ratios) node_gpus[key.first].push_back(fleet_median(ratios.first));
    std::vector<double> grel;
    for (auto& [key, ratios] : gpu_ratios) {
      FleetPoint p;
      p.node = nodes[key.first].identity.hostname;
      p.gpu = key.second;
      p.ranks.assign(ratios.second.begin(), ratios.second.end());
      p.configurations = static_cast<int>(ratios.first.size());
      const double level = fleet_median(node_gpus.at(key.first));
      p.relative = level > 0 ? fleet_median(ratios.first) / level : std::nan("");
      if (!std::isfinite(p.relative)) continue;
      grel.push_back(p.relative);
      mr.gpus.push_back(std::move(p));
    }
    if (!grel.empty()) {
      mr.gpu_median = fleet_median(grel);
      mr.gpu_spread = robust_spread(grel, mr.gpu_median);
      for (auto& p : mr.gpus) judge_point(p, mr.gpu_median, mr.gpu_spread, mr.metric, options, rep.judged);
      const double gedge = outlier_edge(options, mr.gpu_spread, mr.gpu_median);
      mr.gpu_limit = mr.metric.higher_is_better ? mr.gpu_median * (1 - gedge) : mr.gpu_median * (1 + gedge);
    }
    rep.metrics.push_back(std::move(mr));
  }
  // No figure shared by every node (every run failed somewhere, or the nodes ran different sweeps
  // under one profile name): nothing was compared, which is N/A, never a PASS.
  if (rep.metrics.empty() && rep.judged) {
    rep.judged = false;
    rep.na_reason = fmt::format("no configuration ran ok on every one of the {} nodes: nothing to compare",
                                basis.size());
  }
  for (const auto& [key, z] : zeros)
    named[key.first].push_back(fmt::format("{}: 0 in {} configuration{} (first: {}): no measurement", key.second,
                                           z.first, z.first == 1 ? "" : "s", z.second));
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!named[i].empty()) {
      rep.nodes[i].outlier = true;
      rep.nodes[i].findings = named[i];
    }

  // Each node's standing: its worst figure over metrics and GPUs, and one line per outlier figure.
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < rep.nodes.size(); ++i) index[rep.nodes[i].identity.hostname] = i;
  for (const auto& mr : rep.metrics) {
    const auto take = [&](const FleetPoint& p) {
      FleetNode& n = rep.nodes[index.at(p.node)];
      if (std::isfinite(p.shortfall) && p.shortfall > n.worst_shortfall) {
        n.worst_shortfall = p.shortfall;
        n.worst_metric = mr.metric.title + (p.gpu.empty() ? "" : " (" + p.gpu + ")");
      }
      if (!p.outlier) return;
      n.outlier = true;
      std::string ranks;
      if (!p.ranks.empty()) ranks = fmt::format(" (rank{} {})", p.ranks.size() > 1 ? "s" : "", fmt::join(p.ranks, ","));
      n.findings.push_back(p.gpu.empty() ? fmt::format("{}: {}", mr.metric.title, p.why)
                                         : fmt::format("{}: GPU {}{}: {}", mr.metric.title, p.gpu, ranks, p.why));
    };
    for (const auto& p : mr.nodes) take(p);
    for (const auto& p : mr.gpus) take(p);
  }

  // Drift: a node that sent several files, its earliest against its newest, on its own values.
  for (const auto& [key, list] : by_node) {
    if (list.size() < 2) continue;
    const NodeRuns &a = list.front(), &b = list.back();
    for (const auto& reader : readers()) {
      std::vector<double> ratios;
      for (const auto& [id, ra] : a.runs) {
        const auto it = b.runs.find(id);
        if (it == b.runs.end()) continue;
        const auto va = reader.run(ra), vb = reader.run(it->second);
        if (va && vb && *va > 0 && *vb > 0) ratios.push_back(*vb / *va);
      }
      if (ratios.empty()) continue;
      FleetDrift d{key,
                   a.file,
                   b.file,
                   a.identity.started_utc,
                   b.identity.started_utc,
                   reader.info.title,
                   fleet_median(ratios) - 1,
                   false};
      d.beyond = shortfall_of(1 + d.change, 1, reader.info.higher_is_better) > options.max_shortfall;
      rep.drift.push_back(std::move(d));
    }
  }

  std::stable_sort(rep.nodes.begin(), rep.nodes.end(), [](const FleetNode& x, const FleetNode& y) {
    if (x.outlier != y.outlier) return x.outlier;
    return x.worst_shortfall > y.worst_shortfall;
  });
  // The metrics' points follow the nodes' order, so every view lists nodes alike.
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < rep.nodes.size(); ++i) order[rep.nodes[i].identity.hostname] = i;
  for (auto& mr : rep.metrics) {
    const auto by_order = [&](const FleetPoint& x, const FleetPoint& y) {
      return order.at(x.node) != order.at(y.node) ? order.at(x.node) < order.at(y.node) : x.gpu < y.gpu;
    };
    std::stable_sort(mr.nodes.begin(), mr.nodes.end(), by_order);
    std::stable_sort(mr.gpus.begin(), mr.gpus.end(), by_order);
  }
  return rep;
}

}  // namespace rb::reports
