// Config to JSON, and its identifier.
#include "reports/results/config_json.hpp"

#include <fmt/format.h>

namespace rb::reports {

nlohmann::json to_json(const Config& c) {
  return {
      {"id", config_id(c)},
      {"seq", c.seq},
      {"cp", c.cp},
      {"split", to_string(c.split)},
      {"variant", to_string(c.variant)},
      {"heads", c.heads},
      {"kv_heads", c.kv_heads},
      {"head_dim", c.head_dim},
      {"causal", c.causal},
      {"dtype", to_string(c.dtype)},
      {"backend", to_string(c.backend)},
      {"transport", to_string(c.transport)},
      {"seed", c.seed},
      {"repeats", c.repeats},
      {"warmup", c.warmup},
      {"link_gbps", c.link_gbps},
      {"kernel", to_string(c.kernel)},
  };
}

std::span<const std::string_view> config_id_fields() {
  static constexpr std::string_view kFields[] = {"seq",       "cp",        "split",  "variant", "heads",
                                                 "kv_heads",  "head_dim",  "causal", "dtype",   "backend",
                                                 "transport", "link_gbps", "kernel"};
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
  return id;
}

}  // namespace rb::reports
