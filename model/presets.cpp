// The preset tables and the name-or-number parsers. Figures are copied from the cited documents;
// where a document gives a bidirectional or sparse figure, the comment says how it was converted.
#include "model/presets.hpp"

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strict_number.hpp"

namespace rb::model {
namespace {

// "The Llama 3 Herd of Models", arXiv:2407.21783, Table 3 (layers, model dimension, attention
// heads, key/value heads); the head dimension is model dimension / attention heads = 128.
const std::array<ModelShape, 3> kModels{{
    {"llama3-8b", 32, 4096, 32, 8, 128, "Llama 3 (arXiv:2407.21783) Table 3"},
    {"llama3-70b", 80, 8192, 64, 8, 128, "Llama 3 (arXiv:2407.21783) Table 3"},
    {"llama3-405b", 126, 16384, 128, 8, 128, "Llama 3 (arXiv:2407.21783) Table 3"},
}};

// NVIDIA datasheets list BF16 Tensor Core throughput "with sparsity"; the dense figure is half of it.
// H100 SXM and H200 SXM share the GH100 die and clocks, hence the same 989 TFLOP/s (1,979 / 2,
// rounded as the plate does). A100 SXM: 312 TFLOP/s dense BF16.
const std::array<Device, 3> kDevices{{
    {"h100-sxm", 989e12, "NVIDIA H100 Tensor Core GPU datasheet: BF16 1,979 TFLOP/s with sparsity, 989 dense"},
    {"h200-sxm", 989e12, "NVIDIA H200 Tensor Core GPU datasheet: BF16 1,979 TFLOP/s with sparsity, 989 dense"},
    {"a100-sxm", 312e12, "NVIDIA A100 Tensor Core GPU datasheet: BF16 312 TFLOP/s dense"},
}};

// Per direction, in bytes/s. NVLink 4 on an H100 SXM is 18 links x 50 GB/s = 900 GB/s counted in
// both directions; a ring step receives on one direction while it sends on the other, so one
// transfer sees 450 GB/s. PCIe 5.0 x16: 32 GT/s x 16 lanes with 128b/130b encoding = 63.0 GB/s per
// direction (the "128 GB/s" marketing figure counts both directions and ignores the encoding).
const std::array<Link, 4> kLinks{{
    {"ib-ndr", 400e9 / 8, 0, "InfiniBand NDR (ConnectX-7): 400 Gb/s per port per direction"},
    {"ib-hdr", 200e9 / 8, 0, "InfiniBand HDR (ConnectX-6): 200 Gb/s per port per direction"},
    {"nvlink4", 450e9, 0, "NVIDIA H100 SXM datasheet: NVLink 900 GB/s bidirectional, 450 GB/s per direction"},
    {"pcie5", 32e9 * 16 * 128.0 / 130.0 / 8, 0, "PCI Express 5.0 x16: 32 GT/s per lane, 128b/130b, per direction"},
}};

template <typename T, std::size_t N>
std::string names_of(const std::array<T, N>& table) {
  std::vector<std::string> names;
  for (const auto& e : table) names.push_back(e.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Numbers go through the strict reader. The ranges keep every transfer and step time a figure the
// table prints: a link of 1e-320 Gbit/s made each transfer infinite.
const NumberRange kTflops{.lo = 1e-3, .hi = 1e6, .unit = " TFLOP/s"};
const NumberRange kGbps{.lo = 1e-3, .hi = 1e6, .unit = " Gbit/s"};

}  // namespace

std::span<const ModelShape> model_presets() { return kModels; }
std::span<const Device> device_presets() { return kDevices; }
std::span<const Link> link_presets() { return kLinks; }

const ModelShape& find_model(std::string_view name, std::string_view where) {
  for (const auto& m : kModels)
    if (m.name == name) return m;
  throw InputError(std::string(where), fmt::format("'{}'", name),
                   fmt::format("model preset must be one of: {}", names_of(kModels)));
}

Device parse_device(std::string_view text, std::string_view where) {
  for (const auto& d : kDevices)
    if (d.name == text) return d;
  if (looks_like_number(text)) {
    const double tflops = parse_number(text, where, kTflops);
    return Device{fmt::format("{} TFLOP/s", text), tflops * 1e12, "given on the command line"};
  }
  throw InputError(std::string(where), fmt::format("'{}'", text),
                   fmt::format("must be a positive TFLOP/s number or one of: {}", names_of(kDevices)));
}

Link parse_link(std::string_view text, std::string_view where) {
  for (const auto& l : kLinks)
    if (l.name == text) return l;
  if (looks_like_number(text)) {
    const double gbps = parse_number(text, where, kGbps);
    return Link{fmt::format("{} Gb/s", text), gbps * 1e9 / 8, 0, "given on the command line"};
  }
  throw InputError(std::string(where), fmt::format("'{}'", text),
                   fmt::format("must be a positive Gbit/s number or one of: {}", names_of(kLinks)));
}

}  // namespace rb::model
