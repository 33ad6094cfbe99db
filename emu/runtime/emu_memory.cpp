// The emulated device's memory: allocations are host memory filled with a poison pattern (0xFF
// bytes, a NaN in bf16 and fp32, so a read of what nothing wrote shows in the reference check), with
// bounds; a freed allocation is poisoned again (0xFE) and kept out of reuse while the quarantine
// holds it, so a use after free is seen as one. Copies and memsets are ops on their stream.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "emu/runtime/emu_state.hpp"

namespace rb::emu::detail {
namespace {

constexpr unsigned char kPoison = 0xFF, kFreed = 0xFE;
constexpr std::size_t kQuarantineBytes = std::size_t{256} << 20;

std::size_t total_bytes() {
  // Half the host's memory: the emulated device's allocations are the host's.
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::size_t host = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                                 : std::size_t{8} << 30;
  return host / 2;
}

bool is_device(State& st, const void* p) {
  const Allocation* a = find_allocation(st, p);
  return a != nullptr;
}

// The accesses of a copy, by where each side lives (cudaMemcpyDefault: by the pointer).
std::vector<Access> copy_accesses(State& st, void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
  bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {
    dst_dev = is_device(st, dst);
    src_dev = is_device(st, src);
  }
  std::vector<Access> acc;
  if (src_dev) acc.push_back(reads(src, n));
  if (dst_dev) acc.push_back(writes(dst, n));
  return acc;
}

const char* copy_name(bool sync) { return sync ? "cudaMemcpy" : "cudaMemcpyAsync"; }

// A copy or memset as an op on `s`, or as a node of the capture `s` is in.
cudaError_t enqueue(State& st, StreamRec& s, Op op) {
  if (s.capture) {
    Node n;
    n.name = op.name;
    n.stream = s.name();
    n.accesses = std::move(op.accesses);
    n.work = std::move(op.work);
    return add_node(st, s, std::move(n));
  }
  for (const Access& a : op.accesses)
    if (!check_access(st, a, op.name, s.name())) return fail(cudaErrorInvalidValue);
  add_op(st, s, std::move(op));
  return cudaSuccess;
}

}  // namespace

Allocation* find_allocation(State& st, const void* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto it = st.allocations.upper_bound(addr);
  if (it == st.allocations.begin()) return nullptr;
  --it;
  Allocation& a = it->second;
  return addr < a.base + std::max<std::size_t>(a.bytes, 1) ? &a : nullptr;
}

bool check_access(State& st, const Access& a, const std::string& call, const std::string& stream) {
  const Allocation* al = find_allocation(st, a.ptr);
  if (al == nullptr) {
    violate(st, "bounds", call, stream,
            std::string(a.write ? "writes " : "reads ") + std::to_string(a.bytes) +
                " bytes at an address in no device allocation");
    return false;
  }
  if (!al->live) {
    violate(st, "use-after-free", call, stream,
            std::string(a.write ? "writes" : "reads") + " allocation #" + std::to_string(al->id) + " after cudaFree");
    return false;
  }
  const auto off = reinterpret_cast<std::uintptr_t>(a.ptr) - al->base;
  if (off + a.bytes > al->bytes) {
    violate(st, "bounds", call, stream,
            std::string(a.write ? "writes" : "reads") + " bytes [" + std::to_string(off) + ", " +
                std::to_string(off + a.bytes) + ") of allocation #" + std::to_string(al->id) + " of " +
                std::to_string(al->bytes) + " bytes");
    return false;
  }
  return true;
}

}  // namespace rb::emu::detail

using namespace rb::emu;
using namespace rb::emu::detail;

extern "C" {

cudaError_t cudaMalloc(void** p, size_t bytes) {
  auto lk = lock();
  State& st = state();
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (const cudaError_t e = unsafe_during_capture(st, "cudaMalloc"); e != cudaSuccess) return fail(e);
  if (static_cast<std::size_t>(st.live_bytes) + bytes > total_bytes()) return fail(cudaErrorMemoryAllocation);
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
  auto* mem = static_cast<unsigned char*>(std::aligned_alloc(256, rounded));
  if (mem == nullptr) return fail(cudaErrorMemoryAllocation);
  std::memset(mem, kPoison, rounded);
  Allocation a;
  a.base = reinterpret_cast<std::uintptr_t>(mem);
  a.bytes = bytes;
  a.device = current_device();
  a.id = st.next_alloc_id++;
  a.memory = std::unique_ptr<unsigned char[], void (*)(void*)>(mem, std::free);
  st.allocations.emplace(a.base, std::move(a));
  st.live_bytes += static_cast<std::int64_t>(bytes);
  *p = mem;
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  auto lk = lock();
  State& st = state();
  if (const cudaError_t e = unsafe_during_capture(st, "cudaFree"); e != cudaSuccess) return fail(e);
  Allocation* a = find_allocation(st, p);
  if (a == nullptr || a->base != reinterpret_cast<std::uintptr_t>(p)) return fail(cudaErrorInvalidValue);
  if (!a->live) {
    violate(st, "use-after-free", "cudaFree", "host", "allocation #" + std::to_string(a->id) + " freed twice");
    return fail(cudaErrorInvalidValue);
  }
  wait_all(st);  // cudaFree waits for the device, as the real one does
  std::memset(a->memory.get(), kFreed, a->bytes);
  a->live = false;
  st.live_bytes -= static_cast<std::int64_t>(a->bytes);
  st.quarantine.push_back(a->base);
  st.quarantine_bytes += a->bytes;
  while (st.quarantine_bytes > kQuarantineBytes && !st.quarantine.empty()) {
    auto it = st.allocations.find(st.quarantine.front());
    st.quarantine_bytes -= it->second.bytes;
    st.allocations.erase(it);
    st.quarantine.erase(st.quarantine.begin());
  }
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  auto lk = lock();
  const std::size_t t = total_bytes();
  if (free_bytes) *free_bytes = t - std::min<std::size_t>(t, static_cast<std::size_t>(state().live_bytes));
  if (total) *total = t;
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (n == 0) return cudaSuccess;
  Op op;
  op.name = copy_name(false);
  op.accesses = copy_accesses(st, dst, src, n, kind);
  const bool from_host = op.accesses.empty() || op.accesses.front().write;  // no device-side read
  if (from_host && s->capture == nullptr) {
    // Pageable host memory is staged when the call returns: the source may change after it.
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                               static_cast<const unsigned char*>(src) + n);
    op.work = [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); };
  } else {
    op.work = [dst, src, n] { std::memmove(dst, src, n); };
  }
  return enqueue(st, *s, std::move(op));
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  auto lk = lock();
  State& st = state();
  if (const cudaError_t e = unsafe_during_capture(st, "cudaMemcpy"); e != cudaSuccess) return fail(e);
  if (n == 0) return cudaSuccess;
  if (st.sticky != cudaSuccess) return fail(st.sticky);
  StreamRec& leg = *st.legacy.at(static_cast<std::size_t>(current_device()));
  Op op;
  op.name = copy_name(true);
  op.accesses = copy_accesses(st, dst, src, n, kind);
  op.work = [dst, src, n] { std::memmove(dst, src, n); };
  for (const Access& a : op.accesses)
    if (!check_access(st, a, op.name, leg.name())) return fail(cudaErrorInvalidValue);
  const OpId id = add_op(st, leg, std::move(op));
  wait_for(st, id);
  return st.sticky == cudaSuccess ? cudaSuccess : fail(st.sticky);
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (n == 0) return cudaSuccess;
  Op op;
  op.name = "cudaMemsetAsync";
  op.accesses = {writes(p, n)};
  op.work = [p, value, n] { std::memset(p, value, n); };
  return enqueue(st, *s, std::move(op));
}

// Asynchronous to the host for device memory, as the real one: an op on the legacy stream.
cudaError_t cudaMemset(void* p, int value, size_t n) {
  auto lk = lock();
  State& st = state();
  if (n == 0) return cudaSuccess;
  StreamRec& leg = *st.legacy.at(static_cast<std::size_t>(current_device()));
  Op op;
  op.name = "cudaMemset";
  op.accesses = {writes(p, n)};
  op.work = [p, value, n] { std::memset(p, value, n); };
  return enqueue(st, leg, std::move(op));
}

}  // extern "C"
