// .npy format 1.0: magic, version, a little-endian header length, a Python-dict header padded with
// spaces to a multiple of 64 bytes and ending in '\n', then the raw C-order data.
#include "reports/exports/npy_writer.hpp"

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/output_file.hpp"

namespace rb::reports {
namespace {

template <typename T>
constexpr const char* descr();
template <>
constexpr const char* descr<double>() {
  return "<f8";
}
template <>
constexpr const char* descr<float>() {
  return "<f4";
}

}  // namespace

template <typename T>
void write_npy(const std::filesystem::path& path, std::span<const T> data, const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  if (n != static_cast<std::int64_t>(data.size()))
    throw Error(fmt::format("write_npy {}: shape holds {} elements, data has {}", path.string(), n, data.size()));
  std::string dims;
  for (auto s : shape) dims += std::to_string(s) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr<T>(), dims);
  const std::size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  const char prefix_bytes[10] = {'\x93',
                                 'N',
                                 'U',
                                 'M',
                                 'P',
                                 'Y',
                                 '\x01',
                                 '\x00',
                                 static_cast<char>(header.size() & 0xff),
                                 static_cast<char>(header.size() >> 8)};
  write_output_file("--dump", path,
                    {std::string_view(prefix_bytes, sizeof prefix_bytes), header,
                     std::string_view(reinterpret_cast<const char*>(data.data()), data.size_bytes())});
}

template void write_npy<double>(const std::filesystem::path&, std::span<const double>,
                                const std::vector<std::int64_t>&);
template void write_npy<float>(const std::filesystem::path&, std::span<const float>, const std::vector<std::int64_t>&);

}  // namespace rb::reports
