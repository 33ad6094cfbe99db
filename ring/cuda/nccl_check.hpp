// RB_NCCL_CHECK: every NCCL call goes through it, so a failure is an rb::ApiError naming file:line,
// the call text and NCCL's own words for the error. For the errors whose code says little (system,
// internal, remote) NCCL's last-error text is appended, since it carries the actual cause (the
// peer that went away, the socket that failed). Only for translation units built with NCCL.
#pragma once

#include <string>

#include <nccl.h>

#include "common/error.hpp"

namespace rb::ring {

inline std::string nccl_error_text(ncclResult_t r) {
  std::string text = ncclGetErrorString(r);
  if (r == ncclSystemError || r == ncclInternalError || r == ncclRemoteError) {
    // The argument is unused by NCCL (the last error is per thread), so no communicator is needed.
    const char* last = ncclGetLastError(nullptr);
    if (last != nullptr && *last != '\0') text += std::string(": ") + last;
  }
  return text;
}

}  // namespace rb::ring

// RB_NCCL_CHECK_AS(result, text): checks a result already in hand (a settled asynchronous one, a
// call made under a lock), reporting it as `text`.
#define RB_NCCL_CHECK_AS(result, text)                                                                \
  do {                                                                                                \
    const ncclResult_t rb_nccl_rc_ = (result);                                                        \
    RB_CHECK_API("NCCL", rb_nccl_rc_ == ncclSuccess, text, ::rb::ring::nccl_error_text(rb_nccl_rc_)); \
  } while (0)

#define RB_NCCL_CHECK(call) RB_NCCL_CHECK_AS(call, #call)
