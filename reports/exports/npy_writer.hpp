// Writes NumPy .npy files (format version 1.0) for `run --dump`, so anyone can check ringbench's
// inputs and outputs with numpy.load.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace rb::reports {

template <typename T>
void write_npy(const std::filesystem::path& path, std::span<const T> data, const std::vector<std::int64_t>& shape);

}  // namespace rb::reports
