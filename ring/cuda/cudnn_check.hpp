// RB_CUDNN_CHECK for cuDNN's C calls and RB_CUDNN_FE_CHECK for the frontend's error_t: a failure is
// an rb::ApiError naming file:line, the call text and cuDNN's own words. Only for translation units
// built with cuDNN (RINGBENCH_HAVE_CUDNN). cuDNN is opened at run time (the frontend's dynamic
// loading), so its C calls go through the frontend's shim, cudnn_frontend::detail.
#pragma once

#include <string>

#include <cudnn_frontend.h>

#include "common/error.hpp"

#define RB_CUDNN_CHECK(call)                                                             \
  do {                                                                                   \
    const cudnnStatus_t rb_cudnn_rc_ = (call);                                           \
    RB_CHECK_API("cuDNN", rb_cudnn_rc_ == CUDNN_STATUS_SUCCESS, #call,                   \
                 std::string(::cudnn_frontend::detail::get_error_string(rb_cudnn_rc_))); \
  } while (0)

#define RB_CUDNN_FE_CHECK(call)                                                                      \
  do {                                                                                               \
    auto rb_cudnn_fe_rc_ = (call);                                                                   \
    RB_CHECK_API("cuDNN frontend", rb_cudnn_fe_rc_.is_good(), #call, rb_cudnn_fe_rc_.get_message()); \
  } while (0)
