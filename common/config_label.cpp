// A configuration's label (see config_label.hpp).
#include "common/config_label.hpp"

#include <fmt/format.h>

namespace rb {

std::string shape_label(const ConfigWords& w) {
  std::string s = fmt::format("{}{} Hq={} Hkv={} D={} {} {} {}/{}", w.variant,
                              w.ulysses_degree > 0 ? fmt::format(" U={}", w.ulysses_degree) : std::string(), w.heads,
                              w.kv_heads, w.head_dim, w.causal ? "causal" : "full", w.dtype, w.backend, w.transport);
  if (!w.kernel.empty() && w.kernel != "ringbench") s += fmt::format(" {}", w.kernel);
  if (w.link_gbps > 0) s += fmt::format(" link {:g} Gb/s", w.link_gbps);
  if (!w.phase.empty() && w.phase != "fwd") s += fmt::format(" {}", w.phase);
  if (!w.dkv.empty()) s += fmt::format(" {}", w.dkv);
  if (!w.documents.empty()) s += fmt::format(" docs {}", w.documents);
  return s;
}

std::string config_label(const ConfigWords& w) {
  return fmt::format("S={} c={} {} {}", w.seq, w.cp, w.split, shape_label(w));
}

}  // namespace rb
