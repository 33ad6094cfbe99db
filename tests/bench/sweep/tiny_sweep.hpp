// What the sweep-stage tests share: the golden sweeps' smallest configuration (S=64, c=2,
// zig-zag, float64, so the check is exact) and a scratch folder.
#pragma once

#include <filesystem>
#include <string>

#include "common/config.hpp"

namespace rb::bench::testing {

inline Config tiny_config() {
  Config c;
  c.seq = 64;
  c.cp = 2;
  c.split = Split::zigzag;
  c.heads = 4;
  c.kv_heads = 1;
  c.head_dim = 8;
  c.causal = false;
  c.dtype = DType::float64;
  c.seed = 3;
  c.warmup = 0;
  c.repeats = 4;
  return c;
}

// A folder of its own under the system's temp folder, emptied first and removed afterwards.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) : path(std::filesystem::temp_directory_path() / ("ringbench_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace rb::bench::testing
