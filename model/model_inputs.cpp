// Shape rules of the analytic model. Flag names in the errors are the ones `ringbench model` takes,
// so a user sees exactly which flag to change.
#include "model/model_inputs.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::model {
namespace {

void positive(const char* flag, std::int64_t v) {
  if (v <= 0) throw InputError(flag, std::to_string(v), "must be a positive integer");
}

}  // namespace

void ModelInputs::validate() const {
  positive("--layers", shape.layers);
  positive("--hidden", shape.hidden);
  positive("--heads", shape.heads);
  positive("--kv-heads", shape.kv_heads);
  positive("--head-dim", shape.head_dim);
  positive("--tp", tp);
  positive("--pp", pp);
  positive("--micro-batch", micro_batch);
  if (shape.heads % shape.kv_heads != 0)
    throw InputError("--heads", std::to_string(shape.heads),
                     fmt::format("Hq must be a multiple of Hkv ({}) for grouped-query attention", shape.kv_heads));
  if (shape.heads % tp != 0)
    throw InputError("--tp", std::to_string(tp),
                     fmt::format("t must divide the query heads Hq ({}): each tensor-parallel rank holds Hq/t heads",
                                 shape.heads));
  if (shape.hidden % tp != 0)
    throw InputError("--tp", std::to_string(tp), fmt::format("t must divide the hidden size h ({})", shape.hidden));
  if (shape.kv_heads % tp != 0 && tp % shape.kv_heads != 0)
    throw InputError("--tp", std::to_string(tp),
                     fmt::format("t must divide the K/V heads Hkv ({}) or be a multiple of it (K/V heads replicated)",
                                 shape.kv_heads));
  if (pp > shape.layers)
    throw InputError("--pp", std::to_string(pp),
                     fmt::format("p must not exceed the layers L ({}): every stage needs a layer", shape.layers));
  if (!(efficiency > 0.0 && efficiency <= 1.0))
    throw InputError("--efficiency", fmt::format("{}", efficiency), "must be in (0, 1]: a fraction of the peak");
  if (!(device.peak_flops > 0.0 && std::isfinite(device.peak_flops)))
    throw InputError("--peak", fmt::format("{}", device.peak_flops / 1e12), "must be a positive TFLOP/s figure");
  if (!(link.bytes_per_s > 0.0 && std::isfinite(link.bytes_per_s)))
    throw InputError("--link", fmt::format("{}", link.gbps()), "must be a positive Gbit/s figure");
  if (!(inner_link.bytes_per_s >= 0.0 && std::isfinite(inner_link.bytes_per_s)))
    throw InputError("--inner-link", fmt::format("{}", inner_link.gbps()), "must be a positive Gbit/s figure");
  positive("--node-size", node_size);
  if (!(link.latency_s >= 0.0 && std::isfinite(link.latency_s)))
    throw InputError("--latency-us", fmt::format("{}", link.latency_s * 1e6), "must be zero or more");
}

void ModelInputs::validate_point(std::int64_t seq, int cp) {
  positive("--seq", seq);
  positive("--cp", cp);
  if (cp > seq)
    throw InputError("--cp", std::to_string(cp),
                     fmt::format("c must not exceed S ({}): every rank needs a token", seq));
}

ActivationShape ModelInputs::activation_shape(std::int64_t seq) const {
  return ActivationShape{static_cast<double>(seq),          static_cast<double>(micro_batch),
                         static_cast<double>(shape.hidden), static_cast<double>(shape.heads),
                         static_cast<double>(tp),           flash_attention};
}

ModelInputs plate_inputs() {
  ModelInputs in;
  in.shape = find_model("llama3-405b", "plate");
  in.tp = 8;
  in.pp = 16;
  in.device = parse_device("h100-sxm", "plate");
  in.efficiency = 0.45;
  in.link = parse_link("ib-ndr", "plate");
  in.inner_link = parse_link("nvlink4", "plate");
  return in;
}

}  // namespace rb::model
