// CPU twin of the merge kernel.
#include "kernels/merge_partials_ref.hpp"

#include <cmath>
#include <limits>

namespace rb::kernels::ref {

template <typename T>
void merge_partials(const MergeParams<T>& p) {
  const std::int64_t n = p.rows * p.hq;
  for (std::int64_t r = 0; r < n; ++r) {
    const T lb = p.lse_part[r];
    if (lb == -std::numeric_limits<T>::infinity()) continue;  // nothing new: keep (O_a, L_a)
    const T la = p.lse_acc[r];
    T* oa = p.o_acc + r * p.d;
    const T* ob = p.o_part + r * p.d;
    if (la == -std::numeric_limits<T>::infinity()) {  // first keys for this row: take (O_b, L_b)
      for (int i = 0; i < p.d; ++i) oa[i] = ob[i];
      p.lse_acc[r] = lb;
      continue;
    }
    const T hi = std::max(la, lb), lo = std::min(la, lb);
    const T l = hi + std::log1p(std::exp(lo - hi));
    const T wa = std::exp(la - l), wb = std::exp(lb - l);
    for (int i = 0; i < p.d; ++i) oa[i] = oa[i] * wa + ob[i] * wb;
    p.lse_acc[r] = l;
  }
}

template void merge_partials<float>(const MergeParams<float>&);
template void merge_partials<double>(const MergeParams<double>&);

}  // namespace rb::kernels::ref
