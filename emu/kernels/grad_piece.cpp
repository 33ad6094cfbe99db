// The emulated backward piece launchers (kernels/grad_piece.cuh): the device launchers' checks, then
// the twins (kernels/grad_piece_ref.hpp), bf16 converted at the edge (the twin's rounded floats are
// bf16 values, so the conversion is exact). Declared as the kernels touch memory: cast reads n
// floats and writes n bf16; pack_stats reads the LSE rows row0..row0+rows and writes the packed
// block; add_rows reads and writes every destination row and reads every source row (the gaps
// between strided rows are not touched, so a neighbour writing there is no race).
#include <cstdint>
#include <utility>
#include <vector>

#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/grad_piece.cuh"
#include "kernels/grad_piece_ref.hpp"

namespace rb::kernels {

namespace launchers = emu::launchers;

void cast_bf16(const CastBf16Params& p, cudaStream_t stream) {
  if (!check_cast_launch(p)) return;
  const auto acc = launchers::accesses({emu::reads(p.src, launchers::bytes_of<float>(p.n)),
                                        emu::writes(p.dst, launchers::bytes_of<__nv_bfloat16>(p.n))});
  auto work = [p] {
    std::vector<float> rounded(static_cast<std::size_t>(p.n));
    ref::cast_bf16({p.src, rounded.data(), p.n});
    for (std::int64_t i = 0; i < p.n; ++i) p.dst[i] = __float2bfloat16(rounded[static_cast<std::size_t>(i)]);
  };
  RB_CUDA_CHECK(emu::launch(stream, "cast_bf16", acc, work));
}

void pack_stats(const PackStatsParams& p, cudaStream_t stream) {
  if (!check_pack_stats_launch(p)) return;
  const auto acc = launchers::accesses({emu::reads(p.lse + p.row0 * p.hq, launchers::bytes_of<float>(p.rows * p.hq)),
                                        emu::writes(p.stats, launchers::bytes_of<float>(p.rows * p.hq))});
  auto work = [p] { ref::pack_stats({p.lse, p.stats, p.row0, p.rows, p.hq}); };
  RB_CUDA_CHECK(emu::launch(stream, "pack_stats", acc, work));
}

void add_rows(const AddRowsParams& p, cudaStream_t stream) {
  if (!check_add_rows_launch(p)) return;
  // Per row, or one range where the rows are contiguous.
  std::vector<emu::Access> acc;
  auto block = [&](const float* base, std::int64_t stride, bool write) {
    const bool whole = stride == p.width;
    for (std::int64_t r = 0; r < (whole ? 1 : p.rows); ++r) {
      const std::size_t bytes = launchers::bytes_of<float>(whole ? p.rows * p.width : p.width);
      acc.push_back(emu::reads(base + r * stride, bytes));
      if (write) acc.push_back(emu::writes(base + r * stride, bytes));
    }
  };
  block(p.dst, p.dst_stride, true);
  block(p.src, p.src_stride, false);
  auto work = [p] { ref::add_rows({p.dst, p.src, p.rows, p.width, p.dst_stride, p.src_stride}); };
  RB_CUDA_CHECK(emu::launch(stream, "add_rows", std::move(acc), work));
}

}  // namespace rb::kernels
