// CPU twin of the merge kernel: folds one step's partial (O_b, L_b) into the running (O_a, L_a) in
// the stable log-sum-exp form of docs/design.md §3, exact and NaN-free for rows that have seen no key.
#pragma once

#include <cstdint>

namespace rb::kernels::ref {

template <typename T>
struct MergeParams {
  T* o_acc = nullptr;           // (rows, Hq, D), updated in place
  T* lse_acc = nullptr;         // (rows, Hq), updated in place
  const T* o_part = nullptr;    // (rows, Hq, D)
  const T* lse_part = nullptr;  // (rows, Hq)
  std::int64_t rows = 0;
  int hq = 1, d = 1;
};

template <typename T>
void merge_partials(const MergeParams<T>& p);

}  // namespace rb::kernels::ref
