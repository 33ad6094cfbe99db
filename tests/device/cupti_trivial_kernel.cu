// A trivial kernel for the CUPTI tracer's device test: something for CONCURRENT_KERNEL to record.
#include <cuda_runtime.h>

namespace {
__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
}  // namespace

cudaError_t launch_add_one(float* x, int n, cudaStream_t stream) {
  add_one<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  return cudaGetLastError();
}
