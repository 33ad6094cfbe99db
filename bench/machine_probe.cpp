// The machine probe (see machine_probe.hpp). Its code must not change between versions that are
// compared: its time is only meaningful against the same probe's time in the baseline.
#include "bench/machine_probe.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

namespace rb::bench {
namespace {

float compute_part(const std::vector<float>& a) {
  // Eight independent chains keep the FMA units busy without letting the compiler fold the loop.
  std::array<float, 8> acc{};
  for (int rep = 0; rep < 64; ++rep)
    for (std::size_t i = 0; i < a.size(); i += 8)
      for (std::size_t k = 0; k < 8; ++k) acc[k] = acc[k] * 0.999f + a[i + k];
  float s = 0;
  for (float x : acc) s += x;
  return s;
}

}  // namespace

double machine_probe_ms() {
  std::vector<float> a(16384);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97) * 0.01f;
  std::vector<char> src(8 << 20, 1), dst(8 << 20);
  volatile float sink = 0;
  std::array<double, 5> ms{};
  for (double& m : ms) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + compute_part(a);
    std::memcpy(dst.data(), src.data(), src.size());
    sink = sink + static_cast<float>(dst[static_cast<std::size_t>(sink) % dst.size()]);
    m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace rb::bench
