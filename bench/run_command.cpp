// `ringbench run [PROFILE.json] [flags]`: a sweep from a profile, from flags, or a profile with
// flags overriding its axes. Prints where the results are; exits 1 if any configuration failed.
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "bench/command.hpp"
#include "bench/distributed.hpp"
#include "bench/profile.hpp"
#include "bench/sweep_runner.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

struct RunFlags {
  std::string profile;
  std::vector<std::int64_t> seq;
  std::vector<int> cp, heads, kv_heads, head_dim;
  std::vector<std::string> split, variant, dtype;
  std::string backend, transport;
  std::uint64_t seed = 1;
  int repeats = 0, warmup = 0;
  double link_gbps = 0;
  std::string out = "results";
  std::string dump;
  bool skip_invalid = false;
  bool causal = false, no_causal = false;
  bool trace = false, no_cupti = false, l2_flush = false;
  int devices = 1;
  int rounds = 3;
  bool no_interleave = false;
  std::string rank_mode = "isolated", launch = "graph";
  std::int64_t full_check_limit = 8192, check_sample = 512;
  double timeout_s = 0, memory_limit_gib = 0;
  std::string inject_fault;
  std::vector<std::string> argv;
  CLI::App* app = nullptr;

  bool given(const char* name) const { return app->count(name) > 0; }
};

template <typename E>
std::vector<E> parse_names(const std::vector<std::string>& v, const char* flag, E (*parse)(std::string_view, std::string_view)) {
  std::vector<E> out;
  for (const auto& s : v) out.push_back(parse(s, flag));
  return out;
}

// What every MPI rank must have been given alike: the sweep and the options that change results.
std::string canonical(const SweepSpec& spec, const RunOptions& o) {
  return nlohmann::json{{"profile", to_json(spec)},
                        {"full_check_limit", o.full_check_limit},
                        {"check_rows", o.check_sample},
                        {"rounds", o.rounds},
                        {"interleave", o.interleave},
                        {"timeout_s", o.timeout_s},
                        {"memory_limit_bytes", o.memory_limit_bytes},
                        {"inject_fault", fmt::format("{}@{}", o.fault.kind, o.fault.index)},
                        {"skip_invalid", o.skip_invalid},
                        {"trace", o.trace},
                        {"dump", o.dump_dir.has_value()},
                        {"rank_mode", o.rank_mode},
                        {"launch", o.launch},
                        {"l2_flush", o.l2_flush},
                        {"devices", o.devices},
                        {"cupti", o.cupti}}
      .dump();
}

void build(const RunFlags& f, SweepSpec& spec, RunOptions& opts) {
  spec = f.profile.empty() ? SweepSpec{} : load_profile(f.profile);
  if (f.given("--seq")) spec.seq = f.seq;
  if (f.given("--cp")) spec.cp = f.cp;
  if (f.given("--split")) spec.split = parse_names(f.split, "--split", parse_split);
  if (f.given("--variant")) spec.variant = parse_names(f.variant, "--variant", parse_variant);
  if (f.given("--dtype")) spec.dtype = parse_names(f.dtype, "--dtype", parse_dtype);
  if (f.given("--heads")) spec.heads = f.heads;
  if (f.given("--kv-heads")) spec.kv_heads = f.kv_heads;
  if (f.given("--head-dim")) spec.head_dim = f.head_dim;
  if (f.given("--causal")) spec.causal = {true};
  if (f.given("--no-causal")) spec.causal = {false};
  if (f.given("--backend")) spec.backend = parse_backend(f.backend, "--backend");
  if (f.given("--transport")) spec.transport = parse_transport(f.transport, "--transport");
  if (f.given("--seed")) spec.seed = f.seed;
  if (f.given("--repeats")) spec.repeats = f.repeats;
  if (f.given("--warmup")) spec.warmup = f.warmup;
  if (f.given("--link-gbps")) spec.link_gbps = f.link_gbps;
  if (f.full_check_limit < 0)
    throw InputError("--full-check-limit", std::to_string(f.full_check_limit), "must be zero or more");
  if (f.check_sample < 1) throw InputError("--check-rows", std::to_string(f.check_sample), "must be at least 1");

  opts.out_dir = f.out;
  if (!f.dump.empty()) opts.dump_dir = f.dump;
  opts.skip_invalid = f.skip_invalid;
  opts.full_check_limit = f.full_check_limit;
  opts.check_sample = f.check_sample;
  opts.argv = f.argv;
  if (!(f.timeout_s >= 0)) throw InputError("--timeout", fmt::format("{}", f.timeout_s), "must be >= 0 seconds (0: none)");
  if (!(f.memory_limit_gib >= 0))
    throw InputError("--memory-limit", fmt::format("{}", f.memory_limit_gib), "must be >= 0 GiB (0: 90% of available)");
  opts.timeout_s = f.timeout_s;
  opts.memory_limit_bytes = static_cast<std::int64_t>(f.memory_limit_gib * 1073741824.0);
  opts.fault = parse_fault(f.inject_fault);
  opts.trace = f.trace;
  if (f.rounds < 1) throw InputError("--rounds", std::to_string(f.rounds), "must be at least 1");
  opts.rounds = f.rounds;
  opts.interleave = !f.no_interleave;
  opts.rank_mode = f.rank_mode;
  opts.launch = f.launch;
  opts.l2_flush = f.l2_flush;
  if (f.devices < 0) throw InputError("--devices", std::to_string(f.devices), "must be 0 (every visible GPU) or more");
  opts.devices = f.devices;
  opts.cupti = !f.no_cupti;
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
  agree_on_input(bad, bad ? "" : canonical(spec, opts));
  if (bad) throw *bad;
  const SweepOutcome res = run_sweep(spec, opts);
  const int rc = res.interrupted_by ? 128 + res.interrupted_by : res.failed > 0 ? kExitCheckFailed : kExitOk;
  if (!is_primary()) return rc;  // rank 0 writes and says where
  fmt::print(stderr, "ringbench: {} ok, {} failed, {} skipped{}\n", res.ok, res.failed, res.skipped,
             res.interrupted_by ? " (interrupted)" : res.fatal ? " (stopped by a fatal error)" : "");
  if (!res.report_html.empty()) fmt::print("report: {}\n", std::filesystem::absolute(res.report_html).string());
  fmt::print("results: {}\n", std::filesystem::absolute(res.results_json).string());
  return rc;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* sub = app.add_subcommand("run", "Run a sweep of ring-attention configurations (profile and/or flags)");
  f->app = sub;
  sub->add_option("profile", f->profile, "Profile JSON (profiles/*.json); flags override its axes")
      ->check(CLI::ExistingFile);
  sub->add_option("--seq", f->seq, "Sequence lengths S")->delimiter(',');
  sub->add_option("--cp", f->cp, "CP degrees c")->delimiter(',');
  sub->add_option("--split", f->split, "Split schemes: contiguous, zigzag, striped")->delimiter(',');
  sub->add_option("--variant", f->variant, "Variants: ring, allgather")->delimiter(',');
  sub->add_option("--heads", f->heads, "Query heads Hq")->delimiter(',');
  sub->add_option("--kv-heads", f->kv_heads, "Key/value heads Hkv (Hq % Hkv == 0)")->delimiter(',');
  sub->add_option("--head-dim", f->head_dim, "Head dimension D")->delimiter(',');
  auto* causal = sub->add_flag("--causal", f->causal, "Causal attention (the default)");
  sub->add_flag("--no-causal", f->no_causal, "Full (non-causal) attention")->excludes(causal);
  sub->add_option("--dtype", f->dtype, "float64, float32 (cpu) or bfloat16 (cuda)")->delimiter(',');
  sub->add_option("--backend", f->backend, "cpu or cuda");
  sub->add_option("--transport", f->transport, "local, mpi or nccl");
  sub->add_option("--seed", f->seed, "Input seed (DESIGN §3)");
  sub->add_option("--repeats", f->repeats, "Timed passes per configuration");
  sub->add_option("--warmup", f->warmup, "Untimed passes before timing");
  sub->add_option("--link-gbps", f->link_gbps, "Pace each K/V transfer to this link bandwidth in Gbit/s (0: unpaced)");
  sub->add_option("--out", f->out, "Output directory for results.jsonl and results.json")->capture_default_str();
  sub->add_option("--dump", f->dump, "Write Q, K, V and O as .npy per configuration into this directory");
  sub->add_flag("--skip-invalid", f->skip_invalid,
                "Record configurations that break a rule as skipped instead of stopping with exit 2");
  sub->add_option("--full-check-limit", f->full_check_limit, "Check every output row up to this S")
      ->capture_default_str();
  sub->add_option("--check-rows", f->check_sample, "Rows checked (sampled) above the full-check limit")
      ->capture_default_str();
  sub->add_option("--rounds", f->rounds,
                  "Spread the timed passes over this many fresh executors (each warmed up), as asv spreads "
                  "samples over processes")
      ->capture_default_str();
  sub->add_flag("--no-interleave", f->no_interleave,
                "Run each configuration's rounds back to back instead of round 1 of every configuration, then "
                "round 2, ... (interleaved rounds spread a shared machine's bursts over many configurations)");
  sub->add_flag("--trace", f->trace, "Write a Chrome/Perfetto trace of each configuration's median pass to OUT/traces/");
  sub->add_flag("--no-cupti", f->no_cupti,
                "cuda: skip the CUPTI-traced pass and leave CUPTI off, so Nsight Systems can attach "
                "(the CPU backend never uses CUPTI)");
  sub->add_option("--rank-mode", f->rank_mode, "cuda: measure virtual ranks one at a time or all at once")
      ->check(CLI::IsMember({"isolated", "concurrent"}))
      ->capture_default_str();
  sub->add_option("--launch", f->launch, "cuda: replay the pass as a CUDA Graph or launch it eagerly")
      ->check(CLI::IsMember({"graph", "eager"}))
      ->capture_default_str();
  sub->add_flag("--l2-flush", f->l2_flush, "cuda: flush L2 before each timed replay (cold) instead of warm");
  sub->add_option("--devices", f->devices,
                  "cuda, local transport: deal the virtual ranks over this many GPUs of this node, with peer copies "
                  "between them (0: every visible GPU)")
      ->capture_default_str();
  sub->add_option("--timeout", f->timeout_s, "Abort a configuration after this many seconds and record it (0: none)");
  sub->add_option("--memory-limit", f->memory_limit_gib,
                  "Skip configurations estimated to need more host memory, GiB (0: 90% of available)");
  sub->add_option("--inject-fault", f->inject_fault, "Testing: KIND@N, KIND one of throw, hang, corrupt, fatal")
      ->group("");  // hidden: for the failure-isolation tests
  sub->callback([f, &action, &app] {
    f->argv.clear();
    f->argv.push_back("ringbench");
    f->argv.push_back("run");
    for (const auto& s : app.remaining()) f->argv.push_back(s);
    action = [f] { return run(*f); };
  });
}

}  // namespace rb::bench
