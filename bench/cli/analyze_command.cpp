// `ringbench analyze FILE|DIR…`: the metrics of docs/design.md §6 from Chrome/Kineto trace files (ours, or a
// PyTorch profiler trace per rank), printed per rank, or as JSON with --json. A folder stands for
// the trace files in it (a run's OUT/traces/<config id>/ of per-rank files, or an HTA trace_dir).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "bench/measure/kernel_classify.hpp"
#include "bench/measure/metrics.hpp"
#include "bench/measure/trace_reader.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"

namespace rb::bench {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> files;
  std::vector<std::string> stream_roles;
  bool json = false;
  bool hta_drop_last_step = false;
  std::size_t max_trace_mb = 1024;
};

// A folder's trace files (*.json, *.json.gz, not recursive), in an order where rank2 precedes
// rank10: a file's place is its rank when it states none.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      // A missing file is the trace reader's to name; a symlink loop it would call missing too.
      if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw InputError(in, "a trace path", "cannot be read: " + path_error_text(ec.value()));
      out.push_back(in);
      continue;
    }
    std::vector<std::filesystem::path> found;
    // error_code forms throughout: a symlink loop among the entries is the user's input (exit 2
    // naming the entry), not a filesystem_error.
    std::filesystem::directory_iterator entries(in, ec);
    for (; !ec && entries != std::filesystem::directory_iterator(); entries.increment(ec)) {
      const std::filesystem::directory_entry& e = *entries;
      const std::string n = e.path().filename().string();
      if (!n.ends_with(".json") && !n.ends_with(".json.gz")) continue;
      std::error_code kind;
      if (e.is_regular_file(kind))
        found.push_back(e.path());
      else if (kind)  // a trace that cannot be read would silently drop its rank
        throw InputError(e.path().string(), "a trace file in " + in,
                         "cannot be read: " + path_error_text(kind.value()));
    }
    if (ec) throw InputError(in, "a folder", "the trace folder must be readable: " + path_error_text(ec.value()));
    if (found.empty())
      throw InputError(in, "a folder with no *.json or *.json.gz", "a trace folder holds one trace file per rank");
    auto key = [](const std::filesystem::path& p) {
      const std::string n = p.filename().string();
      std::size_t i = 0;
      while (i < n.size() && !std::isdigit(static_cast<unsigned char>(n[i]))) ++i;
      std::size_t j = i;
      while (j < n.size() && std::isdigit(static_cast<unsigned char>(n[j]))) ++j;
      return std::make_tuple(n.substr(0, i), j - i, n.substr(i));
    };
    std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
    for (const auto& p : found) out.push_back(p.string());
  }
  return out;
}

TraceReadOptions parse_roles(const std::vector<std::string>& roles) {
  TraceReadOptions opt;
  for (const auto& r : roles) {
    const auto eq = r.rfind('=');
    const auto kind = eq == std::string::npos ? std::nullopt : parse_interval_kind(r.substr(eq + 1));
    if (eq == 0 || !kind) {
      throw InputError("--stream-role", "'" + r + "'",
                       "expected LANE=KIND with KIND one of compute, comm, memory, other");
    }
    opt.stream_roles[r.substr(0, eq)] = *kind;
  }
  return opt;
}

std::string pct(const std::optional<double>& f) { return f ? fmt::format("{:.1f}", *f * 100.0) : "n/a"; }

void print_table(const Metrics& m) {
  print_quietly(stdout, fmt::format("{:>5} {:>12} {:>12} {:>9} {:>15} {:>10}\n", "rank", "comm_ms", "compute_ms",
                                    "overlap%", "exposed_comm_ms", "intervals"));
  for (const auto& r : m.per_rank) {
    print_quietly(stdout,
                  fmt::format("{:>5} {:>12.3f} {:>12.3f} {:>9} {:>15.3f} {:>10}\n", r.rank,
                              static_cast<double>(r.comm_ns) / 1e6, static_cast<double>(r.compute_ns) / 1e6,
                              pct(r.overlap_fraction), static_cast<double>(r.exposed_comm_ns) / 1e6, r.interval_count));
  }
  print_quietly(stdout,
                fmt::format("imbalance (max/mean {} time): {}\n", m.imbalance_from_attention ? "attention" : "compute",
                            m.imbalance ? fmt::format("{:.3f}", *m.imbalance) : "n/a"));
  print_quietly(stdout, fmt::format("overlap (all ranks): {}%   exposed comm (mean): {:.3f} ms\n",
                                    pct(m.overlap_fraction), m.exposed_comm_ns_mean / 1e6));
}

// The inputs in one phrase: "a.json", "a.json and b.json", "a.json and 7 other files".
std::string inputs_text(const std::vector<std::string>& files) {
  if (files.size() == 1) return files[0];
  if (files.size() == 2) return files[0] + " and " + files[1];
  return fmt::format("{} and {} other files", files[0], files.size() - 1);
}

// Why no interval of the traces is comm (a comm table would hold only zeros and `overlap n/a`):
// what each classification looks for, and what these files are.
std::string no_comm_reason(bool ours, const std::set<int>& ranks, bool stream_roles_given) {
  if (ours)
    return fmt::format("no interval has kind comm{}; overlap and exposed comm cannot be computed",
                       ranks.size() <= 1 ? fmt::format(" (the trace holds rank {} only: a run at c = 1 moves no K/V)",
                                                       ranks.empty() ? 0 : *ranks.begin())
                                         : "");
  return fmt::format(
      "no kernel or interval was classified as comm (by kernel name, as HTA does: NCCL kernels, nccl* or "
      "*ncclKernel*; Memcpy and Memset, peer copies included, count as memory{}); overlap and exposed comm cannot "
      "be computed",
      stream_roles_given
          ? "; no --stream-role LANE=comm lane has an event"
          : "; name a lane of peer copies or of your own comm kernels with --stream-role 'stream 7=comm'");
}

// The line in place of the by-kernel-name table when that rule finds no comm where the roles did.
std::string no_comm_by_name(bool ours, const std::vector<Timeline>& by_role, std::size_t differing,
                            std::size_t role_classified) {
  std::set<std::string> names;
  for (const auto& t : by_role)
    for (const auto& iv : t.intervals)
      if ((iv.kind == IntervalKind::comm || iv.kind == IntervalKind::comm_in_flight) && names.size() < 3)
        names.insert(iv.name);
  std::string shown;
  for (const auto& n : names) shown += (shown.empty() ? "" : ", ") + n;
  return fmt::format(
      "{} of {} intervals classify differently by kernel name (HTA's rule: nccl*, *ncclKernel*), which finds no "
      "communication here: the comm intervals are named {}, not nccl*{}\n",
      differing, role_classified, shown.empty() ? "otherwise" : shown,
      ours ? "; HTA reads a run's per-rank files (OUT/traces/<config id>/rank<N>.json), which name them "
             "ncclKernel_ringbench_<name>"
           : "");
}

int run_analyze(const AnalyzeOptions& opts) {
  AnalyzeOptions o = opts;
  o.files = expand_inputs(opts.files);
  TraceReadOptions read_opt = parse_roles(o.stream_roles);
  read_opt.exclude_last_profiler_step = o.hta_drop_last_step;
  read_opt.max_bytes = o.max_trace_mb << 20;
  std::vector<Timeline> by_role, by_name;
  bool ours = true;  // every file is a ringbench trace
  nlohmann::json files = nlohmann::json::array();
  std::set<int> seen_ranks;
  std::size_t differing = 0, role_classified = 0;
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    read_opt.default_rank = static_cast<int>(i);
    TraceFile tf = read_trace_file(o.files[i], read_opt);
    // A file with no device event measures nothing: an empty or foreign trace, not a rank that was idle.
    if (tf.timeline.intervals.empty() && tf.excluded_last_step == 0)
      throw InputError(o.files[i],
                       fmt::format("a trace with no device events ({} other events skipped)", tf.skipped_events),
                       "analyze needs GPU kernel, memcpy or memset events (cat kernel, gpu_memcpy, gpu_memset) or "
                       "ringbench's own intervals");
    std::set<int> ranks;
    for (const auto& iv : tf.timeline.intervals) ranks.insert(iv.rank);
    for (int r : ranks) {
      if (!seen_ranks.insert(r).second) {
        throw InputError(o.files[i], fmt::format("rank {}", r), "each rank may come from one trace file only");
      }
    }
    files.push_back({{"path", tf.source},
                     {"format", tf.format},
                     {"ranks", ranks},
                     {"intervals", tf.timeline.intervals.size()},
                     {"skipped_events", tf.skipped_events},
                     {"role_classified", tf.role_classified},
                     {"differing_by_name", tf.differing},
                     {"profiler_steps", tf.profiler_steps},
                     {"excluded_last_profiler_step", tf.excluded_last_step}});
    differing += tf.differing;
    role_classified += tf.role_classified;
    by_role.push_back(std::move(tf.timeline));
    by_name.push_back(std::move(tf.by_name));
    ours = ours && tf.format == "ringbench";
  }
  // Every device event excluded (each file's last ProfilerStep held all of them): nothing is left to
  // measure, which is bad input for this flag, not an empty analysis.
  if (std::all_of(by_role.begin(), by_role.end(), [](const Timeline& t) { return t.intervals.empty(); }))
    throw InputError("--hta-drop-last-step", "given",
                     "no device events left after excluding the last ProfilerStep (each trace's events all lie "
                     "in its last step): run without it, or profile more steps");
  const Metrics m = compute_metrics(merge_timelines(by_role));
  std::optional<Metrics> m_name;
  if (differing > 0) m_name = compute_metrics(merge_timelines(by_name));

  if (o.json) {
    nlohmann::json j = {{"files", files},
                        {"classification",
                         role_classified > 0 ? "stream role where known, else kernel name" : "kernel name"},
                        {"last_profiler_step", o.hta_drop_last_step ? "excluded (HTA's default)" : "included"},
                        {"metrics", m.to_json()}};
    j["by_kernel_name"] = m_name ? m_name->to_json() : nlohmann::json(nullptr);
    print_quietly(stdout, fmt::format("{}\n", json_text(j, 2)));
    return kExitOk;
  }
  for (const auto& f : files) {
    print_quietly(stdout, fmt::format("{}: {} trace, {} intervals ({} other events skipped)\n",
                                      f["path"].get<std::string>(), f["format"].get<std::string>(),
                                      f["intervals"].get<std::size_t>(), f["skipped_events"].get<std::size_t>()));
    if (o.hta_drop_last_step) {
      const auto steps = f["profiler_steps"].get<std::size_t>();
      if (steps >= 2)
        print_quietly(
            stdout,
            fmt::format("  last of {} ProfilerSteps excluded, as HTA does by default: {} device events dropped\n",
                        steps, f["excluded_last_profiler_step"].get<std::size_t>()));
      else
        print_quietly(
            stdout,
            fmt::format("  {} ProfilerStep annotation(s): nothing excluded (HTA filters only with two or more)\n",
                        steps));
    }
  }
  print_quietly(stdout,
                fmt::format("\nclassified by {}:\n",
                            role_classified > 0 ? "stream role where known, else kernel name" : "kernel name (HTA)"));
  // No comm anywhere: a table of zeros and `overlap n/a` says nothing; one line says why.
  if (!m.comm_basis) {
    print_quietly(stdout, fmt::format("no communication found in {}: {}\n", inputs_text(o.files),
                                      no_comm_reason(ours, seen_ranks, !o.stream_roles.empty())));
    print_quietly(stdout, fmt::format("imbalance (max/mean {} time): {}\n",
                                      m.imbalance_from_attention ? "attention" : "compute",
                                      m.imbalance ? fmt::format("{:.3f}", *m.imbalance) : "n/a"));
  } else {
    print_table(m);
  }
  // By kernel name, where it differs: its table, or one line when it finds no comm that the roles found.
  if (m_name && m_name->comm_basis) {
    print_quietly(
        stdout, fmt::format("\n{} of {} intervals classify differently by kernel name (HTA's rule); by kernel name:\n",
                            differing, role_classified));
    print_table(*m_name);
  } else if (m_name && m.comm_basis) {
    print_quietly(stdout, "\n" + no_comm_by_name(ours, by_role, differing, role_classified));
  }
  return kExitOk;
}

}  // namespace

void add_analyze_command(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand("analyze", "Compute comm/compute overlap, exposed comm and imbalance from traces");
  sub->footer(
      "Reads Chrome trace JSON written by `ringbench run --trace`, or PyTorch profiler (Kineto) traces, one file "
      "per rank, plain or .gz. Metric definitions: docs/metrics.md.");
  sub->add_option(
         "files", opts->files,
         "trace files (.json or .json.gz), or folders of them (one file per rank, e.g. OUT/traces/<config id>)")
      ->required();
  sub->add_option("--stream-role", opts->stream_roles,
                  "LANE=KIND: classify a lane (e.g. 'stream 7') as compute, comm, memory or other; repeatable");
  sub->add_flag("--json", opts->json, "print the metrics as JSON");
  sub->add_flag("--hta-drop-last-step", opts->hta_drop_last_step,
                "as HTA's TraceAnalysis does by default (include_last_profiler_step=False): drop the device events "
                "launched in the last ProfilerStep#N of a trace that has two or more; ringbench keeps them by default");
  add_integer_flag(sub, "--max-trace-mb", opts->max_trace_mb, 1, std::int64_t{1} << 24,
                   "Refuse a trace larger than this once decompressed, MiB (a 1 GiB trace takes several GiB of memory)",
                   "MIB")
      ->capture_default_str();
  sub->callback([opts, &action] { action = [opts] { return run_analyze(*opts); }; });
}

}  // namespace rb::bench
