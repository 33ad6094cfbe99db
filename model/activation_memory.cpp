// Table 2 of Korthikanti et al. (arXiv:2205.05198). The 34 splits as 10 (layer-norm inputs, the
// attention and MLP inputs kept whole under plain tensor parallelism, dropout masks) + 24 (the
// tensor-parallel parts: QKV, attention output projection, MLP hidden), which is why sequence
// parallelism turns "10 + 24/t" into "34/t".
#include "model/activation_memory.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::model {
namespace {

constexpr std::array<std::string_view, 5> kNames{"no-parallel", "tp", "tp-sp", "tp-selective", "tp-sp-selective"};

}  // namespace

std::string_view to_string(MemoryRow r) {
  const auto i = static_cast<std::size_t>(r);
  return i < kNames.size() ? kNames[i] : "?";
}

MemoryRow parse_memory_row(std::string_view s, std::string_view where) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<MemoryRow>(i);
  throw InputError(std::string(where), fmt::format("'{}'", s),
                   fmt::format("memory row must be one of: {} (Table 2 of arXiv:2205.05198)", fmt::join(kNames, ", ")));
}

double activation_bytes_per_layer(MemoryRow row, const ActivationShape& a) {
  const double sbh = a.seq * a.micro_batch * a.hidden;
  // 5as/h: the score matrices (softmax input 2as^2b, softmax output 2as^2b, dropout mask as^2b),
  // written per sbh like the other terms.
  const double scores = a.flash_attention ? 0.0 : 5.0 * a.heads * a.seq / a.hidden;
  const double t = a.tp;
  switch (row) {
    case MemoryRow::no_parallel: return sbh * (34.0 + scores);
    case MemoryRow::tp: return sbh * (10.0 + 24.0 / t + scores / t);
    case MemoryRow::tp_sp: return sbh * (34.0 / t + scores / t);
    case MemoryRow::tp_selective: return sbh * (10.0 + 24.0 / t);
    case MemoryRow::tp_sp_selective: return sbh * (34.0 / t);
  }
  return 0.0;
}

double activation_bytes_per_device(MemoryRow row, const ActivationShape& a, double layers_per_stage, int cp) {
  return activation_bytes_per_layer(row, a) * layers_per_stage / static_cast<double>(cp);
}

}  // namespace rb::model
