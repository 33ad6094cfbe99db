// Config to JSON, and its identifier.
#include "reports/results/config_json.hpp"

#include <fmt/format.h>

#include "common/documents.hpp"

#include "reports/results/record_config.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::reports {

nlohmann::json to_json(const Config& c) { return to_json(record_config(c)); }

std::span<const std::string_view> config_id_fields() {
  static constexpr std::string_view kFields[] =
      {"seq",      "cp",     "split", "variant",        "heads",           "kv_heads",
       "head_dim", "causal", "dtype", "backend",        "transport",       "link_gbps",
       "kernel",   "phase",  "dkv",   "ulysses_degree", "document_lengths"};
  return kFields;
}

// Reads exactly the fields config_id_fields() names: the two change together.
std::string config_id(const Config& c) {
  std::string id = fmt::format("s{}-c{}-{}-{}-h{}x{}-d{}-{}-{}-{}-{}", c.seq, c.cp, to_string(c.split),
                               to_string(c.variant), c.heads, c.kv_heads, c.head_dim, c.causal ? "causal" : "full",
                               to_string(c.dtype), to_string(c.backend), to_string(c.transport));
  if (c.link_gbps > 0) id += fmt::format("-link{}", c.link_gbps);
  // The kernel is part of what was measured; ringbench's own, the default, keeps the ids of older
  // results (which carry no kernel).
  if (c.kernel != Kernel::ringbench) id += fmt::format("-{}", to_string(c.kernel));
  // The phase likewise (docs/design.md §3a): a forward keeps the ids of every earlier results file; the
  // backward's design joins only where it changes what runs.
  if (c.phase != Phase::fwd) id += fmt::format("-{}", to_string(c.phase));
  if (dkv_matters(c.phase, c.variant)) id += fmt::format("-{}", to_string(c.dkv));
  // The hybrid's all-to-all group (docs/design.md §3b); ulysses' is c, the ring variants' 1.
  if (ulysses_degree_matters(c.variant)) id += fmt::format("-u{}", c.ulysses_degree);
  // Packed documents (docs/design.md §3c) likewise: a digest of the lengths, only where there are any
  // (padding shows in S, which is the padded one).
  if (c.documents.given()) id += fmt::format("-docs{}", documents_digest(c.documents.lengths));
  return id;
}

}  // namespace rb::reports
