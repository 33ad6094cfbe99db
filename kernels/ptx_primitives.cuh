// Thin wrappers over the PTX the attention kernel is built from: cp.async (16-byte global->shared
// copies that bypass registers, in commit groups), ldmatrix (four 8x8 bf16 tiles from shared memory
// straight into mma fragments) and mma.sync m16n8k16 bf16 with fp32 accumulation (sm_80 and later;
// on sm_90 these run on the same tensor cores as wgmma, at a lower issue rate). Lane layouts are in
// kernels/attention_tiling.hpp, where the CPU tests them. Also the global timer the copies stamp, and
// the SM id the clock probe writes from.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>

namespace rb::kernels::ptx {

// The GPU's global nanosecond timer (%globaltimer): comparable across SMs and kernels of one
// device. It may advance in steps of up to a microsecond while no profiler raises its rate.
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The SM this thread runs on (%smid). It is only a hint of placement to most code, but clock64 is
// per SM, so the clock probe writes from one SM only.
__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Copies 16 bytes, or writes 16 zero bytes when !valid (src-size 0: gmem is not read, but must
// still be a valid address, so callers pass the tensor's base).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int src_size = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_size) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most n of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// d += a * b for one 16x8x16 tile: a (16x16 bf16, 4 regs), b (16x8 bf16, 2 regs), d (16x8 fp32).
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two fp32 as one register of two bf16 (round to nearest even); lo goes to the low half, which the
// mma fragments read as the lower column.
__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&v);
}

}  // namespace rb::kernels::ptx
