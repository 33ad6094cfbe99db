// `ringbench run [PROFILE.json] [flags]`: a sweep from a profile, from flags, or a profile with
// flags overriding its axes. Prints where the results are; exits 1 if any configuration failed.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <sys/stat.h>

#include "bench/cli/agreed_options.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "bench/cli/option_names.hpp"
#include "bench/cli/run_flags.hpp"
#include "bench/sweep/c1_alias.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "bench/sweep/sweep_list.hpp"
#include "bench/sweep/sweep_pipeline.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/scheme_table.hpp"
#include "common/strict_number.hpp"
#include "common/token_count.hpp"
#include "reports/compare/error_rate.hpp"
#include "reports/results/results_writer.hpp"
#include "ring/cuda/cuda_options.hpp"
#ifdef RINGBENCH_HAVE_CUDA
#include "kernels/device_kind.hpp"
#endif

namespace rb::bench {
namespace {

// Whether this binary's cuda backend is the emulated device (ringbench-emu).
bool emulated_device() {
#ifdef RINGBENCH_HAVE_CUDA
  return kernels::device_is_emulated();
#else
  return false;
#endif
}

// One typed item: text written as a number goes through the strict reader (a value too large or
// too small for a double is refused here) and a whole number within int64 becomes a JSON integer
// ("64", "1e3"), which the axis's validator checks against its range. Any other text stays a
// string: a name ("zigzag"), or what an integer axis refuses with its own rule, quoting it as
// typed ("0x10", "0.5", "99999999999999999999999"). The one real axis, the link, is read here.
nlohmann::json flag_item(const std::string& text, const char* flag) {
  if (text.empty()) throw InputError(flag, "''", "an empty value; give a value (lists are comma-separated: 1,2,4)");
  if (!written_as_number(text)) return nlohmann::json(text);
  if (std::string_view(flag) == "--link-gbps") return parse_number(text, flag, kLinkGbps);
  const WrittenNumber n = read_number(text, flag);
  return n.integer ? nlohmann::json(*n.integer) : nlohmann::json(text);
}

// A flag's values as the JSON a profile would hold: every occurrence, each split at commas, with
// an empty item (`--cp 1,,2`, `--seq ""`) an error rather than dropped.
nlohmann::json flag_value(const AxisFlag& a) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& text : a.given) {
    if (!a.list) {
      items.push_back(flag_item(text, a.flag));
      continue;
    }
    std::size_t from = 0;
    for (;;) {
      const auto comma = text.find(',', from);
      items.push_back(flag_item(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from),
                                a.flag));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  if (!a.list && items.size() > 1)
    throw InputError(a.flag, fmt::format("{} values", items.size()), "takes one value; give it once");
  return a.list ? items : items.at(0);
}

// What every MPI rank must have been given alike: the sweep, and every option of `run` but those
// marked where they are registered (bench/cli/agreed_options.hpp).
std::string canonical(const SweepSpec& spec, const RunFlags& f) {
  nlohmann::json agreed = agreed_options(*f.app);
  agreed["profile"] = to_json(spec);
  return agreed.dump();
}

// A name the pairing records: a git sha, a version, an id. Letters, digits and . _ + - only, so it
// reads the same in the JSON, on the command line and on a terminal.
std::string pairing_token(const char* flag, const std::string& v) {
  const bool ok = !v.empty() && v.size() <= 64 && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' ||
           c == '+' || c == '-';
  });
  if (!ok) throw InputError(flag, v, "1 to 64 letters, digits, '.', '_', '+' or '-'");
  return v;
}

// --pace-fd and the pairing (round_pacing.hpp): a pass of rounds is round r of every
// configuration, so the schedule must be interleaved and the rounds fixed in number, and one process
// is paced, not an MPI job.
void build_pacing(const RunFlags& f, RunOptions& opts) {
  const std::vector<const char*> pairing_flags{"--pair-role", "--pair-id", "--partner-sha", "--partner-version"};
  const bool paced = f.given("--pace-fd");
  const bool paired = std::any_of(pairing_flags.begin(), pairing_flags.end(),
                                  [&](const char* g) { return f.given(g); });
  for (const char* flag : pairing_flags) {
    if (f.given(flag) && !paced) throw InputError(flag, "given", "records an A/B pair, which needs --pace-fd");
    if (paired && !f.given(flag))
      throw InputError(flag, "(missing)",
                       "an A/B pair is recorded with all of --pair-role, --pair-id, --partner-sha "
                       "and --partner-version");
  }
  if (f.given("--pace-unit") && !paced)
    throw InputError("--pace-unit", f.pace_unit, "paces an A/B run, which needs --pace-fd");
  const PaceUnit unit = parse_pace_unit(f.pace_unit, "--pace-unit");
  if (f.given("--pair-role") && f.pair_role != "base" && f.pair_role != "new")
    throw InputError("--pair-role", f.pair_role, "must be base or new");
  if (!paced) return;
  if (f.list)
    throw InputError("--list", "given",
                     "an A/B run measures both builds; list its sweep with `ringbench run ... --list`");
  const std::string fd = std::to_string(f.pace_fd);
  if (world() != nullptr) throw InputError("--pace-fd", fd, "an A/B run paces one process; it cannot pace an MPI job");
  if (f.no_interleave)
    throw InputError("--no-interleave", "given",
                     "an A/B run alternates the builds one pass of rounds at a time, "
                     "which needs the interleaved schedule");
  if (f.given("--max-noise"))
    throw InputError("--max-noise", fmt::format("{}", f.max_noise_pct),
                     "an A/B run alternates the builds round by round, "
                     "so both must run the same fixed rounds");
  opts.pace_fd = f.pace_fd;
  opts.pace_unit = unit;
  if (!paired) return;
  opts.pairing = Pairing{f.pair_role,
                         pairing_token("--partner-sha", f.partner_sha),
                         pairing_token("--partner-version", f.partner_version),
                         pairing_token("--pair-id", f.pair_id),
                         {},
                         opts.pace_unit};
}

// The pacing socket must be one this process inherited; checked where it will be used, not while
// `ab` checks the options it will pass.
void check_pace_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
    throw InputError("--pace-fd", std::to_string(fd),
                     "not an open socket this process inherited (`ringbench ab` passes one to each build)");
}

// The flags that apply to one backend or transport (docs/cli.md, "Flags for one backend"), given
// for another: an error where the run would measure something else than was asked for (a warm L2
// for --l2-flush, one device for --devices), a warning, returned, where nothing measured changes.
std::vector<std::string> check_backend_flags(const RunFlags& f, const SweepSpec& spec) {
  std::vector<std::string> warnings;
  const std::string backend(to_string(spec.backend)), transport(to_string(spec.transport));
  if (spec.backend == Backend::cpu) {
    const std::string cpu = "applies to the cuda backend; ";
    if (f.given("--devices"))
      throw InputError("--devices", std::to_string(f.devices),
                       cpu + "the cpu backend runs every rank as threads of this process (--cp sets how many)");
    if (f.given("--rank-mode"))
      throw InputError("--rank-mode", f.rank_mode, cpu + "the cpu backend runs every rank at once, a thread each");
    if (f.given("--launch"))
      throw InputError("--launch", f.launch, cpu + "the cpu backend has no CUDA Graph or kernel launch to choose");
    if (f.given("--l2-flush"))
      throw InputError("--l2-flush", "given", cpu + "the cpu backend flushes no cache, so the run would not be cold");
    // The fault injection's throttled samples are the one thing they act on there.
    if (!f.given("--inject-fault"))
      for (const char* flag : {"--throttle-threshold", "--throttle-recovery"})
        if (f.given(flag))
          warnings.push_back(fmt::format(
              "{}: applies to the cuda backend (it reads each sample's SM clock); the cpu backend reads none, so it "
              "changes nothing",
              flag));
  } else {
    if (f.given("--cpu-bind"))
      warnings.push_back(fmt::format(
          "--cpu-bind {}: applies to the cpu backend; the {} backend binds no thread, so it changes nothing",
          f.cpu_bind, backend));
    if (spec.transport != Transport::local) {
      const std::string local = fmt::format("applies to the local transport; on {} ", transport);
      if (f.given("--devices"))
        throw InputError("--devices", std::to_string(f.devices),
                         local + "each process drives the GPU its launcher's local rank names");
      if (f.given("--rank-mode"))
        throw InputError("--rank-mode", f.rank_mode, local + "every rank runs at once, one a process");
    }
  }
  return warnings;
}

// Rounds per configuration: --rounds where given, else the profile's, else the flag's default.
int sweep_rounds(const RunFlags& f, const SweepSpec& spec) {
  return f.given("--rounds") ? f.rounds : spec.rounds.value_or(f.rounds);
}

// nccl-tests' -b B -e E -f F: the seq axis B, B*F, ... while at most E; E defaults to B, F to 2.
void build_seq_range(const RunFlags& f, SweepSpec& spec) {
  const char* given = f.given("--seq-begin")    ? "--seq-begin"
                      : f.given("--seq-end")    ? "--seq-end"
                      : f.given("--seq-factor") ? "--seq-factor"
                                                : nullptr;
  if (given == nullptr) return;
  const std::string text = fmt::format("-b {} -e {} -f {}", f.seq_begin, f.given("--seq-end") ? f.seq_end : f.seq_begin,
                                       f.seq_factor);
  if (f.given("--seq")) throw InputError(given, "given", "the sizes are --seq or -b/-e/-f (a range), not both");
  if (!f.given("--seq-begin")) throw InputError(given, "given", "needs -b (--seq-begin), the first S of the range");
  const std::int64_t end = f.given("--seq-end") ? f.seq_end : f.seq_begin;
  const std::vector<std::int64_t> values = token_range(f.seq_begin, end, f.seq_factor, true, "-b/-e/-f", text);
  set_sweep_axis(spec, "seq", nlohmann::json(values), FieldOrigin{"", "-b/-e/-f"});
}

void build(const RunFlags& f, SweepSpec& spec, RunOptions& opts) {
  spec = f.profile.empty() ? SweepSpec{} : load_profile(f.profile);
  for (const auto& a : f.axes)
    if (f.given(a.flag)) set_sweep_axis(spec, a.key, flag_value(a), FieldOrigin{"", a.flag});
  build_seq_range(f, spec);
  if (f.given("--causal")) spec.causal = {true};
  if (f.given("--no-causal")) spec.causal = {false};
  if (f.given("--pad-documents")) spec.pad_documents = true;
  if (f.given("--require-power")) {
    // compare decides at the false-discovery level over every configuration of the sweep, and no
    // verdict rests on a test that cannot reach half of alpha/m (docs/compare.md, UNDERPOWERED);
    // an A/B pair is tested round by round, the stricter layout (reports/compare/error_rate.hpp).
    const std::uint64_t count = configuration_count(spec);
    const int m = static_cast<int>(std::min<std::uint64_t>(count, static_cast<std::uint64_t>(INT_MAX)));
    const double level = reports::decisive_level(f.require_power, m);
    const int rounds = sweep_rounds(f, spec);
    const double floor = reports::power_floor(spec.repeats, rounds);
    if (floor > level) {
      const reports::Layout asked{spec.repeats, rounds};
      const reports::Layout needed = reports::fewest_layout(level, spec.repeats, rounds);
      const bool more_rounds = needed.rounds > rounds;
      const std::string field =
          more_rounds ? (f.given("--rounds") || f.profile.empty() ? "--rounds" : f.profile + ": /sweep/rounds")
                      : (f.given("--repeats") || f.profile.empty() ? "--repeats" : f.profile + ": /sweep/repeats");
      throw InputError(field, std::to_string(more_rounds ? rounds : spec.repeats),
                       fmt::format("{} samples over {} rounds can never give compare p <= {:.3g} (half of alpha {} "
                                   "over {} configurations; the smallest p is {:.3g}, an A/B pair being tested round "
                                   "by round): {}",
                                   spec.repeats, rounds, level, f.require_power, m, floor,
                                   reports::layout_advice(asked, needed)));
    }
  }

  check_output_dir("--out", f.out);
  for (const char* name : reports::kSweepFiles) check_output_file("--out", std::filesystem::path(f.out) / name);
  opts.out_dir = f.out;
  std::vector<NamedPath> outputs = reports::sweep_outputs("--out", f.out);
  if (f.given("--dump")) {
    check_output_dir("--dump", f.dump);
    opts.dump_dir = f.dump;
    outputs.push_back({"--dump", f.dump, PathKind::folder});
  }
  opts.skip_invalid = f.skip_invalid;
  opts.only_ids = f.only;
  opts.full_check_limit = f.full_check_limit;
  opts.check_sample = f.check_sample;
  opts.argv = f.argv;
  opts.timeout_s = f.timeout_s;
  opts.memory_limit_bytes = static_cast<std::int64_t>(f.memory_limit_gib * 1073741824.0);
  opts.fault = parse_fault(f.inject_fault);
  opts.trace = f.trace;
  // Checked before anything is measured: a file where OUT/traces should be is bad input, not a
  // sweep of failed configurations.
  if (f.trace) check_output_dir("--trace", std::filesystem::path(f.out) / "traces");
  if (f.trace) outputs.push_back({"--trace", std::filesystem::path(f.out) / "traces", PathKind::folder});
  check_outputs_apart({{"profile", f.profile}}, outputs);  // before anything is measured
  opts.rounds = sweep_rounds(f, spec);
  opts.interleave = !f.no_interleave;
  opts.c1_aliases = !f.c1_all;
  opts.rank_mode = ring::parse_cuda_rank_mode(f.rank_mode, "--rank-mode");
  opts.launch = ring::parse_cuda_launch(f.launch, "--launch");
  opts.l2_flush = f.l2_flush;
  opts.cpu_binding = ring::parse_cpu_binding(f.cpu_bind, "--cpu-bind");
  if (!f.given("--max-noise") && (f.given("--min-samples") || f.given("--max-time")))
    throw InputError(f.given("--min-samples") ? "--min-samples" : "--max-time", "given",
                     "stops noise-based sampling, which needs --max-noise");
  opts.stopping.max_noise_pct = f.given("--max-noise") ? f.max_noise_pct : 0.0;
  opts.stopping.min_samples = f.min_samples;
  opts.stopping.max_time_s = f.max_time_s;
  opts.stopping.min_rounds = opts.rounds;
  opts.throttle.threshold_pct = f.throttle_threshold_pct;
  opts.throttle.recovery_ms = f.throttle_recovery_ms;
  opts.devices = f.devices;
  opts.cupti = !f.no_cupti;
  opts.console = f.given("--quiet")     ? ConsoleMode::quiet
                 : f.given("--verbose") ? ConsoleMode::verbose
                                        : ConsoleMode::normal;
  build_pacing(f, opts);
  (void)check_backend_flags(f, spec);  // its warnings are run's to print, once
}

int run(const RunFlags& f) {
  SweepSpec spec;
  RunOptions opts;
  std::optional<InputError> bad;
  try {
    build(f, spec, opts);
  } catch (const InputError& e) {
    bad = e;
  }
  agree_on_input(bad, bad ? "" : canonical(spec, f));
  if (bad) throw *bad;
  if (is_primary())
    for (const std::string& w : check_backend_flags(f, spec)) print_quietly(stderr, "ringbench: warning: " + w + "\n");
  if (f.explain && !f.list)
    throw InputError("--explain", "given", "it explains what --list lists; give --list --explain");
  if (f.list) {
    // Every process lists alike (the memory checks are collectives on an MPI job); rank 0 prints.
    const SweepList listed = list_sweep(spec, opts);
    const std::string text = format_sweep_list(listed);
    if (is_primary()) print_quietly(stdout, text);
    if (f.explain && is_primary()) print_quietly(stdout, format_sweep_programs(listed));
    return kExitOk;
  }
  if (opts.pace_fd >= 0) check_pace_fd(opts.pace_fd);
  if (is_primary() && emulated_device())
    print_quietly(stderr,
                  "ringbench: the cuda backend runs on the emulated device (ringbench-emu): correctness is "
                  "checked; times are the host's, not a GPU's (docs/emulated-device.md)\n");
  const SweepOutcome res = run_sweep(spec, opts);
  // A sweep its A/B driver stopped did not measure what it was asked to: not a clean exit.
  const bool paced_stop = !res.stopped.empty() && !res.interrupted_by && !res.fatal;
  const int rc = res.interrupted_by             ? 128 + res.interrupted_by
                 : res.failed > 0 || paced_stop ? kExitCheckFailed
                                                : kExitOk;
  if (!is_primary()) return rc;  // rank 0 writes and says where
  const std::string why = res.interrupted_by ? " (interrupted)"
                          : res.fatal        ? " (stopped by a fatal error)"
                          : paced_stop       ? fmt::format(" ({})", res.stopped)
                                             : "";
  rb::print_quietly(stderr,
                    fmt::format("ringbench: {} ok, {} failed, {} skipped{}{}\n", res.ok, res.failed, res.skipped, why,
                                emulated_device() ? " (emulated device: times are the host's)" : ""));
  if (!res.report_html.empty())
    print_quietly(stdout, fmt::format("report: {}\n", std::filesystem::absolute(res.report_html).string()));
  print_quietly(stdout, fmt::format("results: {}\n", std::filesystem::absolute(res.results_json).string()));
  return rc;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* sub = add_run_flags(app, f);
  sub->callback([f, &action] {
    f->argv = command_line();
    action = [f] { return run(*f); };
  });
}

void check_run_arguments(const std::vector<std::string>& args) {
  CLI::App app;
  auto f = std::make_shared<RunFlags>();
  f->app = add_run_flags(app, f);
  check_option_names(*f->app, args, "run options", "neither `ab` nor `run` takes it");
  std::vector<std::string> reversed{args.rbegin(), args.rend()};  // CLI11 takes them last first
  reversed.push_back("run");
  try {
    app.parse(reversed);
  } catch (const CLI::ExtrasError& e) {
    // "The following argument was not expected: --frob": the arguments, after the colon.
    const std::string what = e.what();
    const std::size_t colon = what.find(": ");
    throw InputError("run options", colon == std::string::npos ? what : what.substr(colon + 2),
                     "neither `ab` nor `run` takes it (see ringbench run --help)");
  } catch (const CLI::ParseError& e) {
    throw parse_error_line(app, e);  // the flag, the value and the rule, as `run` itself would say
  }
  SweepSpec spec;
  RunOptions opts;
  build(*f, spec, opts);
  // The sweep's own rules too (each configuration's, and where --inject-fault can act), which `run`
  // checks before it writes anything.
  (void)sweep_configurations(spec, opts);
}

}  // namespace rb::bench
