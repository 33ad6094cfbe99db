// The unit a table prints FLOP rates in, chosen once per table from the backend that ran its rows, so
// that a column keeps one unit from its first row to its last: a table printed row by row (the
// sweep's console) cannot wait for its largest value to choose. A GPU's attention reads tens to
// hundreds of TFLOP/s; the cpu backend's threads a few GFLOP/s, which in TFLOP/s to three decimals
// read 0.001 to 0.006 and hide every difference (issue 55).
#pragma once

#include <string_view>

namespace rb {

struct FlopsUnit {
  std::string_view name;  // "TFLOP/s", "GFLOP/s"
  double per_tflops;      // one TFLOP/s in this unit: 1, 1000
  // A rate given in TFLOP/s (as results.json keeps every rate) in this unit.
  double of_tflops(double tflops) const { return tflops * per_tflops; }
};

inline constexpr FlopsUnit kTflops{"TFLOP/s", 1.0};
inline constexpr FlopsUnit kGflops{"GFLOP/s", 1e3};

// The unit of a backend's rates ("cpu", "cuda", as config.backend names them): GFLOP/s on the cpu
// backend, TFLOP/s on any other (cuda, the emulated device, a name a later version adds), which keeps
// a GPU's rate from reading in the thousands.
FlopsUnit flops_unit(std::string_view backend);

// One unit for a table whose rows ran on these backends: GFLOP/s only when every row is the cpu
// backend's, else TFLOP/s, so a table that mixes them keeps one unit. backend_of(row) names a row's.
template <class Rows, class BackendOf>
FlopsUnit flops_unit_of(const Rows& rows, BackendOf backend_of) {
  bool any = false, all_cpu = true;
  for (const auto& row : rows) {
    any = true;
    all_cpu = all_cpu && flops_unit(backend_of(row)).name == kGflops.name;
  }
  return any && all_cpu ? kGflops : kTflops;
}

}  // namespace rb
