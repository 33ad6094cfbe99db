// CPU twin of the input fill kernel.
#include "kernels/fill_inputs_ref.hpp"

#include <bit>
#include <cmath>

namespace rb::kernels::ref {

double round_to(double x, DType as) {
  switch (as) {
    case DType::float64: return x;
    case DType::float32: return static_cast<double>(static_cast<float>(x));
    case DType::bfloat16: {
      // Round the double's 52-bit mantissa to bf16's 7 bits, nearest with ties to even (what the
      // device's __double2bfloat16 does). Inputs are finite and in [-1, 1), inside bf16's exponent
      // range, so no NaN, overflow or subnormal handling is needed.
      constexpr int kDrop = 52 - 7;
      std::uint64_t b = std::bit_cast<std::uint64_t>(x);
      b += ((std::uint64_t{1} << (kDrop - 1)) - 1) + ((b >> kDrop) & 1u);
      b &= ~((std::uint64_t{1} << kDrop) - 1);
      return std::bit_cast<double>(b);
    }
  }
  return x;
}

template <typename T>
void fill_inputs(T* out, const SegmentList& segs, const FillParams& p) {
  std::int64_t row = 0;
  for (const auto& s : segs) {
    for (std::int64_t i = 0; i < s.count; ++i, ++row) {
      const std::int64_t pos = s.pos(i);
      T* dst = out + row * p.heads * p.head_dim;
      for (int h = 0; h < p.heads; ++h)
        for (int d = 0; d < p.head_dim; ++d)
          dst[h * p.head_dim + d] =
              static_cast<T>(round_to(input_value(p.seed, p.tensor, p.heads, p.head_dim, pos, h, d), p.round_as));
    }
  }
}

template void fill_inputs<float>(float*, const SegmentList&, const FillParams&);
template void fill_inputs<double>(double*, const SegmentList&, const FillParams&);

}  // namespace rb::kernels::ref
