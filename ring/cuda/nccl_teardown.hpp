// Closing a non-blocking NCCL communicator cleanly: ncclCommFinalize flushes what is still in
// flight and answers ncclInProgress while a NCCL thread does so; the outcome shows in
// ncclCommGetAsyncError, and only once that reads ncclSuccess may ncclCommDestroy free the local
// resources (NCCL's documented order; a destroy without it finalizes inside, and on a non-blocking
// communicator answers ncclInProgress with nothing left to poll). A finalize that fails or does not
// settle within the limit aborts the communicator instead, so teardown never hangs on a dead peer.
// Generic over the four calls, so the CPU tests drive it with a scripted communicator; the nccl
// transport (ring/cuda/cuda_transport_nccl.cpp) passes NCCL's.
#pragma once

#include <chrono>
#include <string>

#include <fmt/format.h>
#include <nccl.h>

#include "ring/transport/poll_backoff.hpp"

namespace rb::ring {

struct NcclTeardown {
  bool clean = false;   // finalized, settled and destroyed
  std::string failure;  // otherwise what went wrong; the communicator was then aborted (or is gone)
};

// Api: ncclResult_t finalize(), async_error(ncclResult_t*), destroy(), abort(); const char*
// error_string(ncclResult_t). Never throws what the Api does not.
template <class Api>
NcclTeardown close_nccl_cleanly(Api& api, std::chrono::steady_clock::duration limit) {
  auto fail = [&](std::string why) {
    (void)api.abort();
    return NcclTeardown{false, std::move(why)};
  };
  const ncclResult_t issued = api.finalize();
  if (issued != ncclSuccess && issued != ncclInProgress)
    return fail(fmt::format("ncclCommFinalize: {}", api.error_string(issued)));
  const auto deadline = std::chrono::steady_clock::now() + limit;
  ncclResult_t state = ncclInProgress;
  for (int spin = 0;; ++spin) {
    const ncclResult_t q = api.async_error(&state);
    if (q != ncclSuccess) return fail(fmt::format("ncclCommGetAsyncError: {}", api.error_string(q)));
    if (state != ncclInProgress) break;
    if (std::chrono::steady_clock::now() > deadline) return fail("ncclCommFinalize did not settle in time");
    poll_backoff(spin, 200);
  }
  if (state != ncclSuccess) return fail(fmt::format("ncclCommFinalize settled with {}", api.error_string(state)));
  const ncclResult_t destroyed = api.destroy();
  if (destroyed != ncclSuccess) return {false, fmt::format("ncclCommDestroy: {}", api.error_string(destroyed))};
  return {true, ""};
}

}  // namespace rb::ring
