// What each backend runs: the cuda backend's attention kernel takes bfloat16 with D = 64 or 128 and
// runs the forward only of the ring variants (no all-to-all of heads) and one causal sequence, the cpu
// backend float64 or float32, forward and backward, every variant, with packed documents. One rule for
// everyone who must
// refuse a configuration before it allocates anything: the sweep checks it while validating (bench/sweep/backend.hpp),
// and make_cuda_executor calls it for its direct callers (the sweep's own factory does not check twice). Compiled in
// every build: the rule needs no CUDA, and a CPU-only build still names it when it refuses a cuda configuration.
#pragma once

#include "common/config.hpp"

namespace rb::ring {

// Throws rb::InputError (where: "dtype", "head-dim", "variant", "phase" or "documents", the value, the
// rule) when cfg's backend does not run its dtype, head dimension, variant, phase or packed documents. Says
// nothing about whether this build or machine has the backend at all (bench/sweep/backend.hpp checks that first).
void check_backend_supports(const Config& cfg);

}  // namespace rb::ring
