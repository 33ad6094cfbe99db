// RB_HD marks index math that both the host compiler and nvcc (for the device) compile, so the CPU
// tests exercise the very functions the kernels call.
#pragma once

#if defined(__CUDACC__)
#define RB_HD __host__ __device__
#else
#define RB_HD
#endif
