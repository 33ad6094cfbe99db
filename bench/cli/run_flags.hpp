// The flags of `ringbench run` (and of `ab`, which passes them on): what the user typed, kept as
// typed until run_command.cpp builds the sweep from it, and their registration on CLI11.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rb::bench {

// The sweep's axes as the user typed them: each goes through the profile's validator
// (set_sweep_axis), so a flag and a profile field accept exactly the same values.
struct AxisFlag {
  const char* flag;  // "--kv-heads"
  const char* key;   // its profile axis, "kv_heads"
  bool list;         // comma-separated values
  std::vector<std::string> given;
};

struct RunFlags {
  std::string profile;
  // One axis a line.
  // clang-format off
  std::vector<AxisFlag> axes{{"--seq", "seq", true, {}},
                             {"--cp", "cp", true, {}},
                             {"--split", "split", true, {}},
                             {"--variant", "variant", true, {}},
                             {"--heads", "heads", true, {}},
                             {"--kv-heads", "kv_heads", true, {}},
                             {"--head-dim", "head_dim", true, {}},
                             {"--dtype", "dtype", true, {}},
                             {"--backend", "backend", false, {}},
                             {"--transport", "transport", false, {}},
                             {"--seed", "seed", false, {}},
                             {"--repeats", "repeats", false, {}},
                             {"--warmup", "warmup", false, {}},
                             {"--link-gbps", "link_gbps", false, {}},
                             {"--kernel", "kernel", false, {}},
                             {"--phase", "phase", true, {}},
                             {"--dkv", "dkv", true, {}},
                             {"--ulysses-degree", "ulysses_degree", true, {}}};
  // clang-format on
  std::string out = "results";
  std::string dump;
  bool list = false;     // --list, --dry-run: print the configurations, run nothing
  bool explain = false;  // --explain (with --list): each rank's step program too
  // nccl-tests' -b, -e, -f: the seq axis as the range B:E:xF.
  std::int64_t seq_begin = 0, seq_end = 0, seq_factor = 2;
  std::vector<std::string> only;  // --only: config ids
  bool skip_invalid = false;
  bool causal = false, no_causal = false;
  bool pad_documents = false;
  bool trace = false, no_cupti = false, l2_flush = false;
  int devices = 1;
  int rounds = 3;
  bool no_interleave = false;
  bool c1_all = false;
  std::string rank_mode = "isolated", launch = "graph", cpu_bind = "ranks";
  std::int64_t full_check_limit = 8192, check_sample = 512;
  double timeout_s = 0, memory_limit_gib = 0;
  double require_power = 0;  // an alpha: refuse repeats whose samples can never reach it
  double max_noise_pct = 0, max_time_s = 60;
  int min_samples = 5;
  double throttle_threshold_pct = 75, throttle_recovery_ms = 50;
  std::string inject_fault;
  // An A/B run's child (`ringbench ab`): the pacing socket and how this build is paired.
  int pace_fd = -1;
  std::string pace_unit = "pass";
  std::string pair_role, pair_id, partner_sha, partner_version;
  std::vector<std::string> argv;
  CLI::App* app = nullptr;

  bool given(const char* name) const { return app->count(name) > 0; }
};

// The `run` subcommand and its flags, on `app`; the caller sets what parsing it does. Every number
// goes through add_number_flag/add_integer_flag, every option that all MPI ranks must share is
// marked by agree_on (agreed_options.hpp).
CLI::App* add_run_flags(CLI::App& app, const std::shared_ptr<RunFlags>& f);

}  // namespace rb::bench
