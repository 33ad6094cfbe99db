// A Config as its record holds it, and the words it is shown by.
#include "reports/results/record_config.hpp"

#include "common/documents.hpp"
#include "common/error.hpp"
#include "reports/results/config_json.hpp"

namespace rb::reports {

RecordConfig record_config(const Config& c) {
  RecordConfig out{.id = config_id(c),
                   .seq = c.seq,
                   .cp = c.cp,
                   .heads = c.heads,
                   .kv_heads = c.kv_heads,
                   .head_dim = c.head_dim,
                   .split = std::string(to_string(c.split)),
                   .variant = std::string(to_string(c.variant)),
                   .dtype = std::string(to_string(c.dtype)),
                   .backend = std::string(to_string(c.backend)),
                   .transport = std::string(to_string(c.transport)),
                   .kernel = std::string(to_string(c.kernel)),
                   .causal = c.causal,
                   .link_gbps = c.link_gbps,
                   .phase = std::string(to_string(c.phase)),
                   .dkv = dkv_matters(c.phase, c.variant) ? std::string(to_string(c.dkv)) : std::string(),
                   .ulysses_degree = exchanges_heads(c.variant) ? std::optional<int>(exchange_degree(c)) : std::nullopt,
                   .documents = c.documents.spec,
                   .document_lengths = c.documents.lengths,
                   .padding_tokens = std::nullopt,
                   .seed = c.seed,
                   .repeats = c.repeats,
                   .warmup = c.warmup};
  if (c.documents.given()) out.padding_tokens = padding_tokens(c);
  return out;
}

std::optional<Transport> RecordConfig::transport_kind() const {
  try {
    return parse_transport(transport, "transport");
  } catch (const InputError&) {
    return std::nullopt;  // a later version's transport
  }
}

ConfigWords words(const RecordConfig& c) {
  return {.seq = c.seq,
          .cp = c.cp,
          .split = c.split,
          .variant = c.variant,
          .heads = c.heads,
          .kv_heads = c.kv_heads,
          .head_dim = c.head_dim,
          .causal = c.causal,
          .dtype = c.dtype,
          .backend = c.backend,
          .transport = c.transport,
          .kernel = c.kernel,
          .link_gbps = c.link_gbps.value_or(0),
          .phase = c.phase,
          .dkv = c.dkv,
          // Named where it joins the id: the hybrid's.
          .ulysses_degree = c.variant == "hybrid" ? c.ulysses_degree.value_or(0) : 0,
          .documents = c.documents};
}

std::string label(const RecordConfig& c) { return config_label(words(c)); }

}  // namespace rb::reports
