// The stable log-sum-exp merge of docs/design.md §3 for one (row, head) line, as weights: what the
// merge kernel, the cuDNN piece fold and their CPU twins all compute, written once. Merging (O_b,
// L_b) into (O_a, L_a) gives L = max + log1p(exp(min - max)) and O = wa · O_a + wb · O_b. A side at
// -inf contributes nothing and -inf - -inf never occurs: with L_a = -inf the weights are (0, 1).
#pragma once

#include <cmath>

#include "kernels/host_device.hpp"

namespace rb::kernels {

struct MergeWeights {
  float l, wa, wb;
};

RB_HD inline MergeWeights merge_weights(float la, float lb) {
  if (la == -INFINITY || lb == -INFINITY)
    return la == -INFINITY ? MergeWeights{lb, 0.f, 1.f} : MergeWeights{la, 1.f, 0.f};
  const float hi = fmaxf(la, lb), lo = fminf(la, lb);
  const float l = hi + log1pf(expf(lo - hi));
  return {l, expf(la - l), expf(lb - l)};
}

}  // namespace rb::kernels
