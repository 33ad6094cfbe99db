// RB_MPI_CHECK: every MPI call goes through it, so a failure is an rb::ApiError naming file:line,
// the call text and MPI's own error string (communicators use MPI_ERRORS_RETURN, see mpi_world.cpp).
#pragma once

#include <string>

#include <mpi.h>

#include "common/error.hpp"

namespace rb::ring {

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace rb::ring

#define RB_MPI_CHECK(call)                                                                         \
  do {                                                                                             \
    const int rb_mpi_rc_ = (call);                                                                 \
    RB_CHECK_API("MPI", rb_mpi_rc_ == MPI_SUCCESS, #call, ::rb::ring::mpi_error_text(rb_mpi_rc_)); \
  } while (0)
