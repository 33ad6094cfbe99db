// Packing of timeline intervals: fixed-width fields in host byte order (every process of a job
// runs the same binary on the same architecture), each string as a length and its bytes.
#include "ring/transport/interval_pack.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace rb::ring {
namespace {

template <typename T>
void put(std::vector<std::byte>& out, const T& v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

void put_string(std::vector<std::byte>& out, const std::string& s) {
  put(out, static_cast<std::uint32_t>(s.size()));
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), p, p + s.size());
}

class Reader {
 public:
  explicit Reader(std::span<const std::byte> b) : b_(b) {}
  bool done() const { return at_ == b_.size(); }
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint32_t>();
    need(n);
    std::string s(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return s;
  }

 private:
  void need(std::size_t n) const {
    if (b_.size() - at_ < n) throw Error("packed intervals: truncated buffer");
  }
  std::span<const std::byte> b_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::byte> pack_intervals(std::span<const Interval> intervals) {
  std::vector<std::byte> out;
  for (const auto& iv : intervals) {
    put(out, static_cast<std::int32_t>(iv.rank));
    put(out, static_cast<std::int32_t>(iv.kind));
    put(out, static_cast<std::int32_t>(iv.step));
    put(out, iv.bytes);
    put(out, iv.begin_ns);
    put(out, iv.end_ns);
    put(out, iv.graph_node_id);
    put(out, static_cast<std::int32_t>(iv.phase));
    put_string(out, iv.lane);
    put_string(out, iv.name);
  }
  return out;
}

void unpack_intervals(std::span<const std::byte> bytes, std::vector<Interval>& out) {
  Reader r(bytes);
  while (!r.done()) {
    Interval iv;
    iv.rank = r.get<std::int32_t>();
    const auto kind = r.get<std::int32_t>();
    if (kind < 0 || kind > static_cast<std::int32_t>(IntervalKind::other))
      throw Error("packed intervals: unknown interval kind " + std::to_string(kind));
    iv.kind = static_cast<IntervalKind>(kind);
    iv.step = r.get<std::int32_t>();
    iv.bytes = r.get<std::int64_t>();
    iv.begin_ns = r.get<std::int64_t>();
    iv.end_ns = r.get<std::int64_t>();
    iv.graph_node_id = r.get<std::uint64_t>();
    iv.phase = r.get<std::int32_t>();
    iv.lane = r.get_string();
    iv.name = r.get_string();
    out.push_back(std::move(iv));
  }
}

}  // namespace rb::ring
