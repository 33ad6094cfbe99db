// RB_CUPTI_CHECK: every CUPTI call goes through it, so a failure names the call, file:line and
// CUPTI's own name for the error (rb::ApiError). Only for translation units built with CUPTI.
#pragma once

#include <cupti.h>

#include "common/error.hpp"

namespace rb::bench::detail {
inline const char* cupti_error_name(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr) return "unknown CUPTI error";
  return s;
}
}  // namespace rb::bench::detail

#define RB_CUPTI_CHECK(call)                                               \
  do {                                                                     \
    const CUptiResult rb_cupti_status_ = (call);                           \
    RB_CHECK_API("CUPTI", rb_cupti_status_ == CUPTI_SUCCESS, #call,        \
                 ::rb::bench::detail::cupti_error_name(rb_cupti_status_)); \
  } while (0)
