// Registration of `ringbench run`'s flags (run_flags.hpp): each flag's text, range, default and
// whether every MPI rank must be given it alike.
#include "bench/cli/run_flags.hpp"

#include <cstdint>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "bench/cli/agreed_options.hpp"
#include "bench/cli/number_flag.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "common/sweep_limits.hpp"
#include "common/token_count.hpp"

namespace rb::bench {
namespace {

// Ranges that keep a duration or size finite once converted to integer nanoseconds or bytes, and
// a nonzero value nonzero once converted: 1e-10 GiB was 0 bytes, which means "no limit".
const NumberRange kTimeoutS{.lo = 0, .hi = 1e6, .unit = " s", .zero_means = "none"};
const NumberRange kMaxTimeS{.lo = 0, .hi = 1e6, .unit = " s", .zero_means = "no limit but 1000 rounds"};
const NumberRange kMemoryLimitGib{.lo = 0,
                                  .hi = 1048576,
                                  .least_nonzero = 1e-9,
                                  .unit = " GiB",
                                  .zero_means = "90% of available"};
// A GPU that has not recovered in a minute will not.
const NumberRange kRecoveryMs{.lo = 0, .hi = 60000, .unit = " ms", .zero_means = "no wait"};
const NumberRange kMaxNoisePct{.lo = 0, .hi = 1000, .lo_open = true, .unit = "%"};
const NumberRange kThrottlePct{.lo = 0, .hi = 100, .unit = "%", .zero_means = "drop none"};
const NumberRange kAlpha{.lo = 0, .hi = 1, .lo_open = true, .hi_open = true, .unit = " (an alpha)"};
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxCount = 1000000;

// A positional argument is a profile when it looks like one (a path: a '/' or a .json name) or names
// a file; anything else is a value that lost its flag (`run --iters 5`, `run 1024`), named as such
// rather than as a missing file. A path that does not exist is load_profile's to name.
void check_profile_argument(const std::string& text) {
  const bool path_like = text.find('/') != std::string::npos ||
                         (text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0);
  std::error_code ec;
  if (path_like || std::filesystem::exists(text, ec)) return;
  throw InputError("profile", text, "not a profile (no such file; a profile is a .json path)");
}

}  // namespace

CLI::App* add_run_flags(CLI::App& app, const std::shared_ptr<RunFlags>& f) {
  CLI::App* sub = app.add_subcommand("run", "Run a sweep of ring-attention configurations (profile and/or flags)");
  f->app = sub;
  // The profile, the axes and --causal reach the agreement as the sweep they make.
  agree_on(sub->add_option("profile", f->profile, "Profile JSON (profiles/*.json); flags override its axes")
               ->each(check_profile_argument),
           Agreement::none);
  // Packed documents (docs/design.md §3c): an axis like the others, added before any axis's values
  // are bound (the options hold references into the list).
  f->axes.push_back({"--documents", "documents", true, {}});
  auto axis = [&](const char* flag, const std::string& help) {
    for (auto& a : f->axes)
      if (std::string_view(a.flag) == flag) return agree_on(sub->add_option(flag, a.given, help), Agreement::none);
    throw std::logic_error(flag);
  };
  axis("--seq",
       "Sequence lengths S, comma-separated, at most 2^40: counts (4096, 4k, 1M; k, M, G: x 1024, 1024^2, 1024^3) "
       "or ranges (1k:128k:x2 geometric, 1024:4096:+1024 arithmetic)");
  // Each reaches the agreement as the sweep it makes, as the axes do.
  const auto token_flag = [&](const std::string& names, const char* flag, std::int64_t& target, const char* help) {
    agree_on(add_read_flag<std::int64_t>(
                 sub, names, target, [flag](const std::string& t) { return parse_token_count(t, flag, kMaxSeq); }, help,
                 "N"),
             Agreement::none);
  };
  token_flag("-b,--seq-begin", "--seq-begin", f->seq_begin,
             "nccl-tests' -b: the first S of the range -b B -e E -f F, which is --seq B:E:xF");
  token_flag("-e,--seq-end", "--seq-end", f->seq_end, "nccl-tests' -e: the largest S of the range (default: -b's)");
  agree_on(add_read_flag<std::int64_t>(
               sub, "-f,--seq-factor", f->seq_factor,
               [](const std::string& t) { return parse_integer(t, "--seq-factor", 2, kMaxSeq); },
               "nccl-tests' -f: the factor from one S of the range to the next (default 2)", "F"),
           Agreement::none);
  axis("--cp", "CP degrees c");
  axis("--split", "Split schemes: " + split_names());
  axis("--variant", "Variants: " + variant_names());
  axis("--heads", "Query heads Hq");
  axis("--kv-heads", "Key/value heads Hkv (Hq % Hkv == 0)");
  axis("--head-dim", "Head dimension D");
  auto* causal = agree_on(sub->add_flag("--causal", f->causal, "Causal attention (the default)"), Agreement::none);
  // --non-causal was model's spelling and --no-causal run's; each refused the other's, so both take both.
  agree_on(sub->add_flag("--no-causal,--non-causal", f->no_causal, "Full (non-causal) attention")->excludes(causal),
           Agreement::none);
  axis("--dtype", "float64, float32 (cpu) or bfloat16 (cuda)");
  axis("--backend", "cpu or cuda");
  axis("--transport", "local, mpi or nccl");
  axis("--seed", "Input seed, 0 to 2^63-1");
  axis("--repeats", "Timed passes per configuration");
  axis("--warmup", "Untimed passes before timing");
  axis("--link-gbps", "Pace each K/V transfer to this link bandwidth in Gbit/s, at most 1e6 (0: unpaced)");
  axis("--kernel",
       "Attention kernel of each step: ringbench (its own, the default), cudnn (cuDNN's fused flash attention; "
       "cuda builds with cuDNN) or auto (cudnn where it runs the configuration, else ringbench)");
  axis("--phase",
       "What a pass times: fwd (the default), bwd (the backward after one untimed forward) or fwd+bwd (both, "
       "each part reported); comma-separated");
  axis("--dkv",
       "The backward's dK/dV design of rotating variants: reverse (TransformerEngine: the ring reversed, dK/dV with "
       "K/V in the run's dtype, the default) or follow (ring-flash-attn: dK/dV one hop behind K/V in fp32)");
  axis("--ulysses-degree",
       "The hybrid variant's all-to-all group U: ranks per group (the inner links), the K/V ring across the c/U "
       "groups; U divides c (default 2; ulysses is U = c, the ring variants U = 1); comma-separated");
  axis("--documents",
       "Packed documents (docs/design.md §3c), comma-separated: lengths joined by '+' that sum to S (64k+32k+16k+16k), "
       "or a generator drawn with --seed until S is filled, the last cut: uniform:MIN:MAX, lognormal:MEDIAN:SIGMA, "
       "fixed:L; none: one causal sequence (the default)");
  agree_on(sub->add_flag("--pad-documents", f->pad_documents,
                         "doc-zigzag: pad each document at its end to a multiple of 2c instead of refusing it (the "
                         "padded S is what the ranks hold; padding is no work)"),
           Agreement::none);
  // Only rank 0 writes, so the paths are its own; every rank takes part in a dump (its rows are gathered).
  agree_on(
      sub->add_option("--out", f->out, "Output directory for results.jsonl and results.json")->capture_default_str(),
      Agreement::none);
  agree_on(sub->add_option("--dump", f->dump, "Write Q, K, V and O as .npy per configuration into this directory"),
           Agreement::presence);
  sub->add_flag("--list,--dry-run", f->list,
                "Print the configurations the sweep would run (S, c, split, variant, memory estimate, id) and those "
                "it would skip with the reason; run nothing, write nothing");
  sub->add_flag("--explain", f->explain,
                "With --list: print each rank's step program of every configuration that would run (its buffers, "
                "its ops in order with bytes and what each waits for)");
  sub->add_flag("--skip-invalid", f->skip_invalid,
                "Record configurations that break a rule as skipped instead of stopping with exit 2");
  sub->add_option("--only", f->only,
                  "Run only the configurations with these ids (as results.json gives them), e.g. to measure again "
                  "the ones a compare called SLOWER")
      ->delimiter(',')
      ->type_name("ID[,ID...]");
  add_integer_flag(sub, "--full-check-limit", f->full_check_limit, 0, kMaxInt64, "Check every output row up to this S")
      ->capture_default_str();
  add_integer_flag(sub, "--check-rows", f->check_sample, 1, kMaxInt64,
                   "Rows checked (sampled) above the full-check limit")
      ->capture_default_str();
  add_integer_flag(sub, "--rounds", f->rounds, 1, kMaxCount,
                   "Spread the timed passes over this many fresh executors (each warmed up), as asv spreads "
                   "samples over processes")
      ->capture_default_str();
  sub->add_flag("--no-interleave", f->no_interleave,
                "Run each configuration's rounds back to back instead of round 1 of every configuration, then "
                "round 2, ... (interleaved rounds spread a shared machine's bursts over many configurations)");
  sub->add_flag("--c1-all", f->c1_all,
                "At c = 1 run every split and variant; by default the first runs and the others, the same "
                "computation, are recorded as its aliases (alias_of)");
  // The console (bench/sweep/progress.hpp); only rank 0 prints.
  auto* quiet =
      sub->add_flag("--quiet")->description("Print only failed configurations and the summary line on stderr");
  sub->add_flag("--verbose")
      ->description("Print a line per round of each configuration as well as the table")
      ->excludes(quiet);
  sub->add_flag("--trace", f->trace,
                "Write a Chrome/Perfetto trace of each configuration's median pass to OUT/traces/");
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
  sub->add_option("--cpu-bind", f->cpu_bind,
                  "cpu: bind each ring rank's compute thread to one CPU of those this process may use (ranks), "
                  "or leave every thread to the OS (none)")
      ->capture_default_str();
  add_integer_flag(sub, "--devices", f->devices, 0, 65536,
                   "cuda, local transport: deal the virtual ranks over this many GPUs of this node, with peer copies "
                   "between them (0: every visible GPU)")
      ->capture_default_str();
  add_number_flag(sub, "--require-power", f->require_power, kAlpha,
                  "Refuse (exit 2) a sweep whose repeats could never let compare decide at ALPHA over its "
                  "configurations (the nightly job passes its alpha)",
                  "ALPHA");
  add_number_flag(sub, "--max-noise", f->max_noise_pct, kMaxNoisePct,
                  "Sample each configuration until the relative standard deviation of its timed passes is at most "
                  "PCT (after --rounds rounds and --min-samples passes), one round of repeats/rounds passes at a "
                  "time, as NVBench does; off: exactly --repeats passes",
                  "PCT");
  add_integer_flag(sub, "--min-samples", f->min_samples, 2, kMaxCount,
                   "With --max-noise: the fewest timed passes before stopping (a noise needs two)")
      ->capture_default_str();
  add_number_flag(sub, "--max-time", f->max_time_s, kMaxTimeS,
                  "With --max-noise: stop a configuration after this many seconds whatever its noise (0: no limit)",
                  "S")
      ->capture_default_str();
  add_number_flag(sub, "--throttle-threshold", f->throttle_threshold_pct, kThrottlePct,
                  "cuda: drop a timed sample from the statistics when its SM clock (read in the stream around the "
                  "pass) is under PCT% of the clock the runtime reports, as NVBench does; the configuration fails "
                  "when more than half are dropped (0: drop none)",
                  "PCT")
      ->capture_default_str();
  add_number_flag(sub, "--throttle-recovery", f->throttle_recovery_ms, kRecoveryMs,
                  "cuda: after a dropped sample, wait this many ms for the GPU's clock to recover", "MS")
      ->capture_default_str();
  add_number_flag(sub, "--timeout", f->timeout_s, kTimeoutS,
                  "Abort a configuration after this many seconds and record it (0: none)", "S");
  add_number_flag(sub, "--memory-limit", f->memory_limit_gib, kMemoryLimitGib,
                  "Skip configurations estimated to need more host memory, GiB (0: 90% of available)", "GIB");
  sub->add_option(
         "--inject-fault", f->inject_fault,
         "Testing: KIND@N[,N...][/R], KIND one of throw, hang, corrupt, fatal, throttle, slow:PCT, wrong-block")
      ->group("");  // hidden: for the failure-isolation tests
  // Hidden: what `ringbench ab` passes to each build it runs (bench/sweep/round_pacing.hpp).
  add_integer_flag(sub, "--pace-fd", f->pace_fd, 3, 1 << 20,
                   "A/B runs: before each pass of rounds, wait for the driver's go on this inherited socket")
      ->group("");
  // Their values are checked in build_pacing: CLI11 leaves a hidden option's name out of its error.
  sub->add_option("--pace-unit", f->pace_unit,
                  "A/B runs: what one turn is: a timed pass, one configuration's round or a pass of rounds")
      ->group("");
  sub->add_option("--pair-role", f->pair_role, "A/B runs: this build's role in the pair")->group("");
  sub->add_option("--pair-id", f->pair_id, "A/B runs: the id both builds' results record")->group("");
  sub->add_option("--partner-sha", f->partner_sha, "A/B runs: the other build's git sha")->group("");
  sub->add_option("--partner-version", f->partner_version, "A/B runs: the other build's version")->group("");
  return sub;
}

}  // namespace rb::bench
