// The emulated merge launcher (kernels/merge_partials.cuh): the device launcher's checks, then the
// float twin (ref::merge_partials) over the same lines, in place. The kernel reads and writes O_a
// and L_a and reads O_b and L_b, every line of them, as declared.
#include <cstdint>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/merge_partials.cuh"
#include "kernels/merge_partials_ref.hpp"

namespace rb::kernels {

void merge_partials(const MergeParams& p, cudaStream_t stream) {
  if (!check_merge_launch(p)) return;
  const std::int64_t lines = p.rows * p.hq;

  namespace launchers = emu::launchers;
  const std::size_t o_bytes = launchers::bytes_of<float>(lines * p.d), l_bytes = launchers::bytes_of<float>(lines);
  auto acc = launchers::accesses({emu::reads(p.o_acc, o_bytes), emu::writes(p.o_acc, o_bytes),
                                  emu::reads(p.lse_acc, l_bytes), emu::writes(p.lse_acc, l_bytes),
                                  emu::reads(p.o_part, o_bytes), emu::reads(p.lse_part, l_bytes)});
  const ref::MergeParams<float> rp{p.o_acc, p.lse_acc, p.o_part, p.lse_part, p.rows, p.hq, p.d};
  RB_CUDA_CHECK(emu::launch(stream, "merge_partials", std::move(acc), [rp] { ref::merge_partials(rp); }));
}

}  // namespace rb::kernels
