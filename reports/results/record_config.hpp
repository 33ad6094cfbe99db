// A run's configuration as its record holds it. Names stay strings: a file of a later MINOR version
// may name a split or a kernel this build does not know, and a reader still shows it. The sweep
// makes one from its Config (record_config), so the two never disagree on a field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/config_label.hpp"

namespace rb::reports {

struct RecordConfig {
  std::string id;
  std::int64_t seq = 0;
  int cp = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::string split, variant, dtype, backend, transport, kernel;
  bool causal = true;
  std::optional<double> link_gbps;  // absent: unpaced
  // What a pass timed (2.10.0): "fwd" in older files; dkv empty (null) where it
  // changes nothing (a forward, the all-gather).
  std::string phase = "fwd", dkv;
  // The all-to-all group of heads (2.11.0): ulysses' (c) and the hybrid's; absent for the ring variants.
  std::optional<int> ulysses_degree;
  // Packed documents (2.12.0, docs/design.md §3c): the spec as given, the real lengths, and the
  // padding tokens among seq; empty (absent) without documents.
  std::string documents;
  std::vector<std::int64_t> document_lengths;
  std::optional<std::int64_t> padding_tokens;
  // How it was measured, not what: two runs matched by id may differ in these.
  std::optional<std::uint64_t> seed;
  std::optional<int> repeats, warmup;

  // The transport, when this build knows its name.
  std::optional<Transport> transport_kind() const;
};

RecordConfig record_config(const Config& c);

// The configuration in the words every reader shows it by (common/config_label.hpp).
ConfigWords words(const RecordConfig& c);
// "S=1024 c=4 zigzag ring Hq=8 Hkv=2 D=64 causal float32 cpu/local": the run's configuration for people.
std::string label(const RecordConfig& c);

}  // namespace rb::reports
