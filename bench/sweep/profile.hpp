// Sweep specifications: every axis of a Config as a list, read from a profile file
// (profiles/*.json) and/or from `ringbench run` flags. The sweep is the product of the axes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/documents.hpp"
#include "common/strict_number.hpp"
#include "common/sweep_limits.hpp"

namespace rb::bench {

struct SweepSpec {
  std::string name = "adhoc";
  std::string description;
  std::vector<std::int64_t> seq{1024};
  std::vector<int> cp{1, 2, 4};
  std::vector<Split> split{Split::contiguous, Split::zigzag, Split::striped};
  std::vector<Variant> variant{Variant::ring};
  std::vector<int> heads{8};
  std::vector<int> kv_heads{2};
  std::vector<int> head_dim{64};
  std::vector<bool> causal{true};
  std::vector<DType> dtype{DType::float32};
  Backend backend = Backend::cpu;
  Transport transport = Transport::local;
  std::uint64_t seed = 1;
  int repeats = 5;
  int warmup = 1;
  // Fresh executors per configuration (`run --rounds` overrides); unset: run's default. A nightly
  // profile sets it, since an A/B pair is tested round by round (reports/compare/signed_rank.hpp).
  std::optional<int> rounds;
  double link_gbps = 0.0;
  Kernel kernel = Kernel::ringbench;     // may be automatic: each configuration's is chosen when expanded
  std::vector<Phase> phase{Phase::fwd};  // docs/design.md §3a
  std::vector<Dkv> dkv{Dkv::reverse};    // the backward's dK/dV design, for a backward of a rotating variant
  std::vector<int> ulysses_degree{2};    // the hybrid's all-to-all group U (docs/design.md §3b)
  // Packed documents (docs/design.md §3c): none (one causal sequence), explicit lengths or a generator.
  std::vector<DocumentSpec> documents{DocumentSpec{}};
  bool pad_documents = false;  // doc-zigzag pads each document to a multiple of 2c instead of refusing it
};

// Reads a profile: {"name", "description", "sweep": {field: value or [values], ...}}. Throws
// InputError naming the file, the JSON path of the bad field, the value and the rule.
SweepSpec load_profile(const std::filesystem::path& path);
SweepSpec parse_profile(const nlohmann::json& doc, const std::string& source);

// The bounds every seq and cp value must keep (kMaxSeq, kMaxCp) are in common/sweep_limits.hpp.
// The most configurations one sweep may have. Each one costs a record, a progress line and at
// least a pass; a product of axes far beyond this is a mistake (a list pasted into the wrong flag),
// and building it would exhaust memory before anything runs. No axis may list more values than
// this either: the seq axis stops expanding its ranges there (a list of ranges took 415 MB before
// the product was counted).
inline constexpr std::uint64_t kMaxConfigurations = 100000;
// The link's floor keeps a paced transfer's time, bytes * 8 / Gbit/s in ns, within int64 for any
// transfer that fits in memory: 2^50 bytes at 1e-3 Gbit/s is 9.0e18 ns. 1e-320 overflowed it,
// and the transfer ran unpaced. The flag and the profile field share it.
inline const NumberRange kLinkGbps{.lo = 0,
                                   .hi = 1e6,
                                   .least_nonzero = 1e-3,
                                   .unit = " Gbit/s",
                                   .zero_means = "unpaced"};

// Where a sweep field came from, for its errors: a profile names the file and the JSON path
// ("p.json: /sweep/seq/1"); a flag names itself ("--seq").
struct FieldOrigin {
  std::string source;  // the file, or empty for a flag
  std::string flag;    // "--seq" for a flag, empty for a profile
};

// The one validator of a sweep axis, shared by profiles and `run` flags: sets the field `key` (a
// profile's axis name: "seq", "kv_heads", "link_gbps") from `value` (one value or a non-empty list)
// or throws InputError naming the origin, the value and the rule.
void set_sweep_axis(SweepSpec& s, const std::string& key, const nlohmann::json& value, const FieldOrigin& origin);

nlohmann::json to_json(const SweepSpec& s);

// The product of the axes, in a stable order (seq outermost, then cp, split, variant, ..., phase,
// dkv, ulysses_degree, documents). A configuration whose dkv or ulysses_degree changes nothing
// (dkv_matters, ulysses_degree_matters) is expanded once, with the list's first value (its degree:
// exchange_degree).
std::vector<Config> expand(const SweepSpec& s);

}  // namespace rb::bench
