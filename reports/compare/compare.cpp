// Matching runs by config id, reading the chosen metric, and the verdict of each pair.
#include "reports/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/strict_number.hpp"
#include "reports/results/config_match.hpp"
#include "reports/results/gpu_state_reader.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

double median_of(std::vector<double> r) {
  std::sort(r.begin(), r.end());
  return r.size() % 2 ? r[r.size() / 2] : 0.5 * (r[r.size() / 2 - 1] + r[r.size() / 2]);
}

// The median of each round's samples, in order; one entry (the median of all) when the run has
// no rounds to tell apart.
std::vector<double> round_medians(const std::vector<std::vector<double>>& rounds) {
  std::vector<double> out;
  if (rounds.size() < 2) {
    std::vector<double> all;
    for (const auto& r : rounds) all.insert(all.end(), r.begin(), r.end());
    if (!all.empty()) out.push_back(median_of(all));
    return out;
  }
  for (const auto& r : rounds) out.push_back(median_of(r));
  return out;
}

std::vector<double> joined(const std::vector<std::vector<double>>& rounds) {
  std::vector<double> all;
  for (const auto& r : rounds) all.insert(all.end(), r.begin(), r.end());
  return all;
}

// The relative spread of the per-round medians, (max - min) / median of all samples.
std::optional<double> round_spread(const std::vector<double>& medians, const std::vector<double>& samples) {
  if (medians.size() < 2) return std::nullopt;
  std::vector<double> all(samples);
  std::sort(all.begin(), all.end());
  const double mid = all[all.size() / 2];
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return mid > 0 ? std::optional<double>((*hi - *lo) / mid) : std::nullopt;
}

// One line naming what differs between the two headers, or "" when nothing compared differs.
std::string device_difference(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return "";
  for (const char* key : {"hostname", "cpu_model"}) {
    if (a.contains(key) && b.contains(key) && a.at(key) != b.at(key))
      return fmt::format("host.{}: {} vs {}", key, json_text(a.at(key)), json_text(b.at(key)));
  }
  if (a.contains("gpus") && b.contains("gpus")) {
    // A GPU is named by its model; serial numbers and bus ids may change on the same kind of node.
    auto names = [](const json& gpus) {
      json n = json::array();
      for (const auto& g : gpus) n.push_back(g.is_object() && g.contains("name") ? g.at("name") : g);
      return n;
    };
    const json na = names(a.at("gpus")), nb = names(b.at("gpus"));
    if (na != nb) return fmt::format("host.gpus: {} vs {}", json_text(na), json_text(nb));
  }
  return "";
}

}  // namespace

// The strict reader (common/strict_number.hpp): std::stod read "0x10" as 16, that is 1600%.
double parse_threshold(const std::string& s, const std::string& flag) {
  const bool pct = !s.empty() && s.back() == '%';
  const std::string_view num = pct ? std::string_view(s).substr(0, s.size() - 1) : std::string_view(s);
  try {
    return pct ? parse_number(num, flag, NumberRange{.lo = 0, .hi = 1e4, .hi_open = true, .unit = "%"}) / 100.0
               : parse_number(num, flag, NumberRange{.lo = 0, .hi = 100, .hi_open = true});
  } catch (const InputError& e) {
    throw InputError(flag, s, fmt::format("{} (as 5% or 0.05)", e.rule()));
  }
}

const Metric* parse_compare_metric(std::string_view s, std::string_view where) { return &compare_metric(s, where); }

std::string metric_source(const Metric& m) {
  const Metric* s = m.stand_in.empty() ? nullptr : find_metric(m.stand_in);
  return s ? fmt::format("{} (else {})", m.source, s->source) : std::string(m.source);
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "SAME";
    case Verdict::faster: return "FASTER";
    case Verdict::slower: return "SLOWER";
    case Verdict::noisy: return "NOISY";
    case Verdict::underpowered: return "UNDERPOWERED";
    case Verdict::missing: return "MISSING";
    case Verdict::added: return "NEW";
    case Verdict::failed: return "FAILED";
  }
  return "?";
}

std::optional<double> machine_probe(const RecordTiming& t) {
  double sum = 0;
  int n = 0;
  for (const double x : t.machine_probe_ms)
    if (x > 0) {
      sum += x;
      ++n;
    }
  return n > 0 ? std::optional(sum / n) : std::nullopt;
}

MetricValue read_metric(const RunRecord& run, const Metric& m) {
  MetricValue mv;
  const GpuThrottle throttle = run.throttle();
  mv.gpu_held_down = throttle.held_down ? throttle.held_down : throttle.sampled;
  mv.machine_probe_ms = machine_probe(run.timing);
  if (run.timing.machine_probe_version) mv.machine_probe_version = *run.timing.machine_probe_version;
  if (run.config.backend == "cpu") mv.cpu_binding = run.timing.cpu_binding.value_or("none");
  if (!run.timing.machine_probe_core_spread.empty()) mv.core_spread = median_of(run.timing.machine_probe_core_spread);
  bool stood_in = false;
  mv.value = value_or_stand_in(m, run, &stood_in);
  if (stood_in) mv.note = fmt::format("{} (plan) in place of measured {}", m.stand_in, m.name);
  if (m.comm_clock) mv.comm_basis = run.metrics.comm_basis;
  if (m.rounds) {
    const auto rounds = m.rounds(run);
    mv.samples = joined(rounds);
    mv.rounds = rounds;
    mv.round_medians = round_medians(rounds);
    // How far one executor sits from another is a property of the run's time, whatever the metric.
    const auto time_rounds = run.timing.samples_ms.empty() ? std::vector<std::vector<double>>{}
                                                           : run.timing.rounds_of_samples();
    mv.instance_spread = round_spread(round_medians(time_rounds), run.timing.samples_ms);
  }
  return mv;
}

void test_pair(RunComparison& rc, bool paired) {
  const double b = *rc.base.value, n = *rc.neu.value;
  if (b == n) {
    rc.change = 0.0;
  } else if (b == 0) {
    // No relative change from zero (e.g. no exposed comm in BASE): any change is beyond the threshold.
    rc.change = std::nullopt;
    rc.note = "BASE is 0; relative change undefined";
  } else {
    rc.change = (n - b) / std::fabs(b);
    // From a base near 0 (a crafted 1e-300 TFLOP/s) the change overflows, and would print "+inf%".
    if (!std::isfinite(100 * *rc.change)) {
      rc.change = std::nullopt;
      rc.note = "BASE is too close to 0 for a relative change";
    }
  }
  // Probes of different versions time different workloads: their ratio says nothing.
  if (rc.base.machine_probe_ms && rc.neu.machine_probe_ms && *rc.base.machine_probe_ms > 0 &&
      rc.base.machine_probe_version == rc.neu.machine_probe_version)
    rc.machine_change = *rc.neu.machine_probe_ms / *rc.base.machine_probe_ms - 1.0;
  if (rc.base.samples.empty() || rc.neu.samples.empty()) return;
  // An A/B pair's rounds ran side by side: round k of one build against round k of the other,
  // over the rounds both have, one difference a round (signed_rank.hpp says why).
  const std::size_t rounds = std::min(rc.base.rounds.size(), rc.neu.rounds.size());
  if (paired && rounds > 0) {
    std::vector<double> differences;
    bool ratios = true;  // every difference a log ratio: the change can be read off them
    for (std::size_t k = 0; k < rounds; ++k)
      if (!rc.base.rounds[k].empty() && !rc.neu.rounds[k].empty()) {
        const double bk = median_of(rc.base.rounds[k]), nk = median_of(rc.neu.rounds[k]);
        ratios = ratios && bk > 0 && nk > 0;
        differences.push_back(round_difference(bk, nk));
      }
    // The change is the paired one too: the pooled medians of two builds move with whichever
    // rounds a burst hit on one side only, the rounds side by side do not.
    if (ratios && !differences.empty()) rc.change = std::expm1(hodges_lehmann(differences));
    const UTestResult u = signed_rank_test(differences);
    rc.p_value = u.p_value;
    rc.method = u.method;
    rc.min_p = signed_rank_min_p(static_cast<int>(differences.size()));
    rc.paired = true;
    return;
  }
  const UTestResult u = mann_whitney_u(rc.base.samples, rc.neu.samples);
  rc.p_value = u.p_value;
  rc.method = u.method;
  rc.min_p = min_attainable_p(static_cast<int>(rc.base.samples.size()), static_cast<int>(rc.neu.samples.size()));
}

namespace {

// What a single run's witnesses say against a significant change, measured apart: "" when none
// does. Each can only turn SLOWER or FASTER into NOISY. In an A/B pair they would be the same for
// both builds, and only annotate.
std::string witness_against(const RunComparison& rc, const CompareOptions& opts) {
  const Metric& mi = *opts.metric;
  const bool up = *rc.neu.value > *rc.base.value;
  // The U test treats every sample as independent, but samples of one executor share its fast or
  // slow mode. A change no larger than the spread between fresh executors of one run is not
  // evidence of a different build, however small p is.
  const double spread = std::max(rc.base.instance_spread.value_or(0.0), rc.neu.instance_spread.value_or(0.0));
  if (rc.change && std::fabs(*rc.change) <= spread)
    return fmt::format("within the spread between fresh executors of one run ({:.1f}%)", 100 * spread);
  // When the host slows one vCPU, a configuration's time depends on which core it ran on: a change
  // within three times the probe's difference between the cores (the ratio docs/compare.md, Noise,
  // measured) is not evidence either, when the cores differ by twice the threshold or more and the
  // runs' samples overlap, as they do when passes land on either core.
  const double cores = std::max(rc.base.core_spread.value_or(0.0), rc.neu.core_spread.value_or(0.0));
  const auto [bmin, bmax] = std::minmax_element(rc.base.samples.begin(), rc.base.samples.end());
  const auto [nmin, nmax] = std::minmax_element(rc.neu.samples.begin(), rc.neu.samples.end());
  const bool ranges_overlap = *nmin <= *bmax && *bmin <= *nmax;
  // ... unless the runs' fast ends moved too: a build makes every pass slower, a slow core only
  // the passes it took.
  auto fast_end = [&](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (!mi.lower_is_better) std::reverse(v.begin(), v.end());
    return v[v.size() / 10];
  };
  const double fb = fast_end(rc.base.samples), fn = fast_end(rc.neu.samples);
  const bool fast_end_moved = fb != 0 && std::fabs(fn / fb - 1.0) > opts.threshold && (fn > fb) == up;
  if (rc.change && cores >= 2 * opts.threshold && std::fabs(*rc.change) <= 3 * cores && ranges_overlap &&
      !fast_end_moved)
    return fmt::format(
        "the machine's cores differed in speed by {:.1f}% (machine probe): a pass moves up to three times that "
        "with the core it runs on",
        100 * cores);
  // The machine itself may have changed speed between the runs (a VM's neighbours): when a fixed
  // workload timed around the configuration moved the same way by at least a third as much (the
  // share of a host's slowdown the probe shows, docs/compare.md) and by twice the threshold, the
  // change is the machine's as much as the build's. Time moves with the probe; rates against it.
  const double machine = rc.machine_change ? (mi.lower_is_better ? *rc.machine_change : -*rc.machine_change) : 0.0;
  if (rc.change && machine != 0 && (machine > 0) == (*rc.change > 0) &&
      std::fabs(machine) >= std::max(std::fabs(*rc.change) / 3, 2 * opts.threshold))
    return fmt::format("the machine itself was {:.1f}% {} (machine probe): not evidence of a different build",
                       100 * std::fabs(*rc.machine_change), *rc.machine_change > 0 ? "slower" : "faster");
  // Every fresh executor must show the change: the rounds of each run, in order of speed, paired
  // rank by rank, must all differ by more than the threshold the same way. A burst that slowed one
  // or two rounds of NEW leaves NEW's fastest round beside BASE's; a real regression slows every
  // executor alike. Runs with different round counts pair their extremes.
  const double b = *rc.base.value;
  if (!rc.base.round_medians.empty() && !rc.neu.round_medians.empty() && b != 0) {
    std::vector<double> bs(rc.base.round_medians), ns(rc.neu.round_medians);
    std::sort(bs.begin(), bs.end());
    std::sort(ns.begin(), ns.end());
    std::optional<double> closest;
    if (bs.size() == ns.size()) {
      for (std::size_t k = 0; k < bs.size(); ++k) {
        const double d = (ns[k] - bs[k]) / std::fabs(b);
        if (!closest || (up ? d < *closest : d > *closest)) closest = d;
      }
    } else {
      closest = up ? (ns.front() - bs.back()) / std::fabs(b) : (ns.back() - bs.front()) / std::fabs(b);
    }
    if (!((*closest > 0) == up && std::fabs(*closest) > opts.threshold))
      return fmt::format(
          "not every round moved: BASE's and NEW's rounds, paired by speed, differ by as little as "
          "{:+.1f}%",
          100 * *closest);
  }
  return "";
}

}  // namespace

void decide(RunComparison& rc, const CompareOptions& opts, const FamilyLevel& family) {
  const Metric& mi = *opts.metric;
  rc.level = family.level;
  const bool beyond = !rc.change || std::fabs(*rc.change) > opts.threshold;
  // Comm measured on two clocks (a transfer executing against a transfer in flight, as a 0.x cuda
  // run's event spans were) differs by up to 145x on the same pass: no verdict either way.
  if (beyond && !rc.base.comm_basis.empty() && !rc.neu.comm_basis.empty() && rc.base.comm_basis != rc.neu.comm_basis) {
    rc.verdict = Verdict::noisy;
    rc.note = fmt::format("comm measured differently (BASE {}, NEW {}): not comparable", rc.base.comm_basis,
                          rc.neu.comm_basis);
    return;
  }
  if (!beyond) {
    rc.verdict = Verdict::same;
    return;
  }
  // The change's sign, which in an A/B pair is the rounds' and may differ from the pooled values'.
  const bool up = rc.change ? *rc.change > 0 : *rc.neu.value > *rc.base.value;
  const Verdict direction = (up == mi.lower_is_better) ? Verdict::slower : Verdict::faster;
  if (!rc.p_value) {
    // A single-valued metric has no distribution to test: the threshold alone decides.
    rc.verdict = direction;
    if (rc.note.empty()) rc.note = "no samples for this metric: threshold only";
  } else if (*rc.min_p > family.first_level / 2) {
    // Not noise: the gate cannot see. No test decides whose smallest attainable p is within a
    // factor of 2 of the level a change alone must reach: it could confirm only the most extreme
    // arrangement of its samples.
    rc.verdict = Verdict::underpowered;
    const Layout asked{static_cast<int>(std::min(rc.base.samples.size(), rc.neu.samples.size())),
                       static_cast<int>(std::max<std::size_t>(1,
                                                              std::min(rc.base.rounds.size(), rc.neu.rounds.size())))};
    const std::string what = rc.paired
                                 ? fmt::format("rounds ({} paired, {} vs {} samples)", asked.rounds,
                                               rc.base.samples.size(), rc.neu.samples.size())
                                 : fmt::format("samples ({} vs {})", rc.base.samples.size(), rc.neu.samples.size());
    rc.note = fmt::format(
        "too few {}: p cannot go below {:.3g}, and a change alone needs p <= {:.3g} (alpha {:.3g} over {} tests); {}",
        what, *rc.min_p, family.first_level, opts.alpha, family.tests,
        layout_advice(asked, fewest_layout(family.first_level / 2, asked.repeats, asked.rounds, rc.paired)));
  } else if (*rc.p_value > family.level) {
    rc.verdict = Verdict::noisy;
    rc.note = fmt::format("change not significant (p = {:.3g} > {:.3g}, alpha {:.3g} over {} tests)", *rc.p_value,
                          family.level, opts.alpha, family.tests);
  } else if (const std::string against = rc.paired ? "" : witness_against(rc, opts); !against.empty()) {
    rc.verdict = Verdict::noisy;
    rc.note = against;
  } else {
    rc.verdict = direction;
    // In an A/B pair the machine probe saw both builds alike; where it moved, say so.
    if (rc.paired && rc.machine_change && std::fabs(*rc.machine_change) > opts.threshold)
      rc.note = fmt::format("machine probe {:+.1f}% between the builds' rounds", 100 * *rc.machine_change);
  }
  // A GPU that heat or power held down is not a build getting slower or faster. The run dropped
  // the samples whose clock it saw fall, but a clock that sagged less than the threshold, or
  // between the probes, is still in the others: the whole run is suspect.
  const bool directed = rc.verdict == Verdict::slower || rc.verdict == Verdict::faster;
  if (directed && (rc.base.gpu_held_down || rc.neu.gpu_held_down)) {
    rc.verdict = Verdict::noisy;
    rc.note = fmt::format("the GPU was throttled in {}: {}", rc.base.gpu_held_down ? "BASE" : "NEW",
                          rc.base.gpu_held_down ? *rc.base.gpu_held_down : *rc.neu.gpu_held_down);
  }
  // Where the OS placed the ranks' threads moves a cpu pass by up to 2x (docs/performance.md, CPU
  // binding): a change across a change of binding is the binding's as much as the build's.
  if ((rc.verdict == Verdict::slower || rc.verdict == Verdict::faster) && rc.base.cpu_binding != rc.neu.cpu_binding) {
    rc.verdict = Verdict::noisy;
    rc.note = fmt::format("CPU threads bound differently (BASE {}, NEW {}): times not comparable",
                          rc.base.cpu_binding.empty() ? "-" : rc.base.cpu_binding,
                          rc.neu.cpu_binding.empty() ? "-" : rc.neu.cpu_binding);
  }
  rc.regression = rc.verdict == Verdict::slower || (rc.verdict == Verdict::underpowered && !opts.allow_underpowered);
}

void check_same_device(const ResultsFile& base, const ResultsFile& neu) {
  const std::string diff = device_difference(base.doc.value("host", json()), neu.doc.value("host", json()));
  if (!diff.empty())
    throw InputError(fmt::format("{} vs {}", base.path.string(), neu.path.string()), diff,
                     "the results come from different devices; pass --allow-different-devices to compare anyway");
}

Comparison compare_results(const ResultsFile& base, const ResultsFile& neu, const CompareOptions& opts) {
  if (!(opts.alpha > 0 && opts.alpha < 1))
    throw InputError("--alpha", fmt::format("{}", opts.alpha), "must be in (0, 1)");
  if (!(opts.threshold >= 0)) throw InputError("--threshold", fmt::format("{}", opts.threshold), "must be >= 0");
  if (!opts.allow_different_devices) check_same_device(base, neu);
  Comparison cmp;
  cmp.base_path = base.path.string();
  cmp.new_path = neu.path.string();
  cmp.options = opts;
  const std::string pair_id = pairing_id(base);
  cmp.paired = !pair_id.empty() && pair_id == pairing_id(neu);
  std::vector<std::size_t> to_decide;  // the matched ok pairs, decided once every p is known

  // The reader refuses an id seen twice in one file, so each id is one run on each side.
  std::vector<RunRecord> base_runs, new_runs;
  for (const auto& r : base.runs()) base_runs.push_back(read_run_record(r));
  for (const auto& r : neu.runs()) new_runs.push_back(read_run_record(r));
  // An alias (in either file) repeats the measurement of a configuration compared under its own id,
  // the same computation (the reader checked it): it is left out of the verdicts and the family,
  // counted once, and listed.
  std::set<std::string> aliases;
  for (const auto* runs : {&base_runs, &new_runs})
    for (const auto& r : *runs)
      if (!r.alias_of.empty()) aliases.insert(r.config.id);
  // Each kept run's place in its file, for check_same_config, which reads the file's own config.
  std::vector<std::size_t> base_at, new_at;
  for (auto [runs, at] : {std::pair{&base_runs, &base_at}, std::pair{&new_runs, &new_at}}) {
    std::vector<RunRecord> kept;
    for (std::size_t i = 0; i < runs->size(); ++i)
      if (!aliases.count((*runs)[i].config.id)) {
        kept.push_back(std::move((*runs)[i]));
        at->push_back(i);
      }
    *runs = std::move(kept);
  }
  cmp.aliases.assign(aliases.begin(), aliases.end());
  std::map<std::string, std::size_t> new_by_id, base_by_id;
  for (std::size_t i = 0; i < new_runs.size(); ++i) new_by_id.emplace(new_runs[i].config.id, i);
  for (std::size_t i = 0; i < base_runs.size(); ++i) base_by_id.emplace(base_runs[i].config.id, i);

  auto make = [&](const RunRecord* b, const RunRecord* n) {
    RunComparison rc;
    rc.id = (b ? b : n)->config.id;
    rc.label = label((b ? b : n)->config);
    if (b) rc.base_status = std::string(to_string(b->status));
    if (n) rc.new_status = std::string(to_string(n->status));
    if (b) rc.base = read_metric(*b, *opts.metric);
    if (n) rc.neu = read_metric(*n, *opts.metric);
    if (!n) {
      rc.verdict = Verdict::missing;
    } else if (!b) {
      rc.verdict = Verdict::added;
    } else if (n->status != RunStatus::ok) {
      rc.verdict = Verdict::failed;
      rc.regression = b->status == RunStatus::ok;
      rc.note = n->reason;
    } else if (b->status != RunStatus::ok) {
      rc.verdict = Verdict::added;
      rc.note = fmt::format("no ok baseline (BASE run {})", rc.base_status);
    } else if (!rc.base.value && !rc.neu.value) {
      rc.verdict = Verdict::same;
      rc.note = fmt::format("{} not defined in either run", opts.metric->compare_name);
    } else if (!rc.base.value || !rc.neu.value) {
      rc.verdict = Verdict::noisy;
      rc.note = fmt::format("{} only in {}", opts.metric->compare_name, rc.base.value ? "BASE" : "NEW");
    } else {
      test_pair(rc, cmp.paired);
      to_decide.push_back(cmp.runs.size());
    }
    return rc;
  };
  for (std::size_t bi = 0; bi < base_runs.size(); ++bi) {
    const auto it = new_by_id.find(base_runs[bi].config.id);
    if (it != new_by_id.end()) check_same_config(base, base_at[bi], neu, new_at[it->second]);
    cmp.runs.push_back(make(&base_runs[bi], it == new_by_id.end() ? nullptr : &new_runs[it->second]));
  }
  for (const auto& n : new_runs)
    if (!base_by_id.count(n.config.id)) cmp.runs.push_back(make(nullptr, &n));
  // Every pair with samples is one test of the family, whether its change passed the threshold or
  // not: leaving out the small changes would choose the family by its outcome.
  std::vector<double> p;
  for (const std::size_t i : to_decide)
    if (cmp.runs[i].p_value) p.push_back(*cmp.runs[i].p_value);
  cmp.family = benjamini_hochberg(p, opts.alpha);
  for (const std::size_t i : to_decide) {
    RunComparison& rc = cmp.runs[i];
    const std::string first_note = rc.note;
    rc.note.clear();
    decide(rc, opts, cmp.family);
    if (!first_note.empty()) rc.note = rc.note.empty() ? first_note : first_note + "; " + rc.note;
    const std::string& source_note = !rc.base.note.empty() ? rc.base.note : rc.neu.note;
    if (!source_note.empty()) rc.note = rc.note.empty() ? source_note : source_note + "; " + rc.note;
  }
  return cmp;
}

int Comparison::count(Verdict v) const {
  int c = 0;
  for (const auto& r : runs) c += r.verdict == v;
  return c;
}

bool Comparison::regression() const {
  for (const auto& r : runs)
    if (r.regression) return true;
  return false;
}

json Comparison::to_json() const {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json rs = json::array();
  for (const auto& r : runs) {
    rs.push_back({{"id", r.id},
                  {"label", r.label},
                  {"verdict", to_string(r.verdict)},
                  {"first_verdict", r.first_verdict ? json(to_string(*r.first_verdict)) : json(nullptr)},
                  {"regression", r.regression},
                  {"base_status", r.base_status.empty() ? json(nullptr) : json(r.base_status)},
                  {"new_status", r.new_status.empty() ? json(nullptr) : json(r.new_status)},
                  {"base", opt(r.base.value)},
                  {"new", opt(r.neu.value)},
                  {"change", opt(r.change)},
                  {"p_value", opt(r.p_value)},
                  {"min_p", opt(r.min_p)},
                  {"level", r.p_value ? json(r.level) : json(nullptr)},
                  {"paired", r.paired},
                  {"test", to_string(r.method)},
                  {"machine_change", opt(r.machine_change)},
                  {"base_samples", r.base.samples.size()},
                  {"new_samples", r.neu.samples.size()},
                  {"note", r.note}});
  }
  json summary = json::object();
  for (Verdict v : kVerdicts) summary[std::string(to_string(v))] = count(v);
  const Metric& mi = *options.metric;
  return {{"schema", "ringbench.compare"},
          // 0.2.0: UNDERPOWERED; 0.3.0: the error rate, pairs; 0.4.0: aliases; 0.5.0: a pair's change is paired
          {"schema_version", kCompareSchemaVersion},
          {"base", base_path},
          {"new", new_path},
          {"metric",
           {{"name", mi.compare_name},
            {"field", metric_source(mi)},
            {"unit", mi.unit},
            {"lower_is_better", mi.lower_is_better}}},
          {"alpha", options.alpha},
          {"threshold", options.threshold},
          {"paired", paired},
          {"repeat_of", repeat_of.empty() ? json(nullptr) : json(repeat_of)},
          {"error_rate",
           {{"control", "false discovery rate (Benjamini-Hochberg)"},
            {"tests", family.tests},
            {"discoveries", family.discoveries},
            {"level", family.level},
            {"first_level", family.first_level}}},
          {"summary", summary},
          {"regression", regression()},
          {"aliases", aliases},
          {"runs", rs}};
}

}  // namespace rb::reports
