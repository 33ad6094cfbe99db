// Closed forms for traffic and compute. The pair count comes from rb::unmasked_pairs on the whole
// sequence, the same function the plans use, so the model and the measured FLOP counts agree to the
// pair rather than to the S^2/2 approximation.
#include "model/comm_compute.hpp"

#include <algorithm>

#include "common/segment.hpp"

namespace rb::model {

double kv_bytes_per_token(const ModelInputs& in) {
  return 2.0 * in.local_kv_heads() * in.shape.head_dim * dtype_bytes(in.kv_dtype);
}

double kv_bytes_per_layer(const ModelInputs& in, std::int64_t seq, int cp) {
  const double others = static_cast<double>(seq) * (cp - 1) / cp;
  return kv_bytes_per_token(in) * others * in.micro_batch;
}

double transfer_seconds(double bytes, int transfers, const Link& link) {
  if (transfers <= 0) return 0.0;
  return bytes / link.bytes_per_s + transfers * link.latency_s;
}

double sequence_pairs(std::int64_t seq, bool causal) {
  const Segment all{0, 1, seq};
  return static_cast<double>(unmasked_pairs(all, all, causal));
}

double attention_flops_per_layer(const ModelInputs& in, std::int64_t seq, int cp) {
  return 4.0 * in.shape.head_dim * in.local_heads() * sequence_pairs(seq, in.causal) / cp * in.micro_batch;
}

CommCompute comm_compute(const ModelInputs& in, std::int64_t seq, int cp, Variant variant) {
  CommCompute out;
  out.variant = variant;
  out.transfers = cp - 1;
  out.bytes = kv_bytes_per_layer(in, seq, cp);
  out.transfer_s = transfer_seconds(out.bytes, out.transfers, in.link);
  out.flops = attention_flops_per_layer(in, seq, cp);
  out.compute_s = out.flops / in.attention_flops_per_s();
  out.ratio = out.compute_s > 0 ? out.transfer_s / out.compute_s : 0.0;
  return out;
}

BackwardCommCompute backward_comm_compute(const ModelInputs& in, std::int64_t seq, int cp, Variant variant, Dkv dkv) {
  BackwardCommCompute out;
  out.variant = variant;
  out.dkv = variant == Variant::allgather ? Dkv::reverse : dkv;
  const double block = kv_bytes_per_token(in) * static_cast<double>(seq) / cp * in.micro_batch;
  const double e = dtype_bytes(in.kv_dtype);
  if (cp > 1) {
    if (variant == Variant::allgather) {
      out.bytes = 2.0 * (cp - 1) * block;
      out.transfers = 2 * (cp - 1);
    } else if (dkv == Dkv::reverse) {
      out.bytes = 2.0 * (cp - 1) * block;
      out.transfers = cp;
    } else {
      out.bytes = (cp - 1) * block + cp * block * std::max(4.0, e) / e;
      out.transfers = 2 * cp - 1;
    }
  }
  out.transfer_s = transfer_seconds(out.bytes, out.transfers, in.link);
  out.flops = kBackwardFlopsFactor * attention_flops_per_layer(in, seq, cp);
  out.compute_s = out.flops / in.attention_flops_per_s();
  out.ratio = out.compute_s > 0 ? out.transfer_s / out.compute_s : 0.0;
  return out;
}

}  // namespace rb::model
