// The process's cuDNN graphs for the cudnn kernel: one handle per device and one built graph (its
// plan) per (device, shape), for the life of the process. Building a plan takes the host about 0.4 s
// on Hopper (validate, lower, heuristics, check support, build), and the sweep makes a fresh
// executor for every round: so every executor and round after the first to need a shape finds it
// built. Each executor keeps its own workspace (ring/cuda/cuda_rank.hpp).
//
// Released once, at the end of the command (bench/cli/main.cpp; a gtest environment's TearDown in
// the gpu tests): each device drained first, then its graphs dropped, then its handle destroyed, so
// no captured graph's work and no deferred plan release outlives the handle, and all of it before
// CUDA tears down. Never from a static destructor: the process's cache is never destroyed, only
// released (ring/cuda/cudnn_sdpa.cpp).
//
// Host code only, no CUDA or cuDNN header: a template over the handle and graph types and their
// operations, so the CPU tests hold the caching and the release to a stand-in builder
// (tests/ring/cuda/test_cudnn_graph_cache.cpp) and cudnn_sdpa.cpp instantiates it with cuDNN's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring {

// cuDNN's two SDPA operations in frontend 1.32 (AttentionImplementation_t): the composite graph of
// matmuls and softmax that PyTorch and TransformerEngine run on Hopper, and the newer unified
// SDPA_FWD operation, which AUTO picks (cuDNN >= 9.13.1) for every piece without a causal bound, i.e.
// every off-diagonal block. Whether a Hopper engine runs it with Stats has not been seen on a GPU.
enum class SdpaImplementation { composite, unified };

inline std::string_view to_string(SdpaImplementation v) {
  return v == SdpaImplementation::composite ? "composite" : "unified";
}

// The implementation ringbench builds `key` with: composite for every shape, until a GPU has shown
// the unified one (docs/performance.md).
inline SdpaImplementation sdpa_implementation(const SdpaGraphKey&) { return SdpaImplementation::composite; }

// What the record keeps of one built graph.
struct SdpaGraphFacts {
  std::string plan;  // the plan (engine) cuDNN's heuristics chose
  SdpaImplementation implementation = SdpaImplementation::composite;
  std::int64_t workspace = 0;  // bytes one execution needs
  double build_ms = 0;         // the host's time from validate to a built plan
};

// The graphs one executor used, by shape name (graph_name), and how many of them it built itself;
// the others came built from an earlier executor of the process.
struct CudnnGraphsUsed {
  std::map<std::string, SdpaGraphFacts> shapes;
  int builds = 0;
  double build_ms = 0;  // the time those builds took
  // Another device's share: a shape built on several devices keeps its slowest build.
  void merge(const CudnnGraphsUsed& other) {
    for (const auto& [name, facts] : other.shapes) {
      auto [it, fresh] = shapes.emplace(name, facts);
      if (!fresh && facts.build_ms > it->second.build_ms) it->second = facts;
    }
    builds += other.builds;
    build_ms += other.build_ms;
  }
};

template <class Handle, class Graph>
class CudnnGraphCache {
 public:
  struct Ops {
    std::function<Handle(int device)> open;  // the device's handle, made on its first graph
    // Builds and plans one shape on the device's handle, with facts.implementation (the cache sets
    // it: sdpa_implementation); fills the plan and workspace. Throws where cuDNN has no plan:
    // nothing is kept, and the next request tries again.
    std::function<Graph(Handle& handle, int device, const SdpaGraphKey& key, SdpaGraphFacts& facts)> build;
    std::function<void(int device)> drain;                  // returns once the device's queued work has finished
    std::function<void(int device, Handle& handle)> close;  // after the device's graphs are dropped
    // The clock a build is timed on, in ms; the steady clock where not given (a test's is fixed).
    std::function<double()> clock_ms;
  };
  struct Entry {
    Graph graph;
    SdpaGraphFacts facts;
  };

  explicit CudnnGraphCache(Ops ops) : ops_(std::move(ops)) {
    if (!ops_.clock_ms)
      ops_.clock_ms = [] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
      };
  }
  // A cache that was never released releases here (a test's); the process's is never destroyed.
  ~CudnnGraphCache() {
    try {
      release();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
  }
  CudnnGraphCache(const CudnnGraphCache&) = delete;
  CudnnGraphCache& operator=(const CudnnGraphCache&) = delete;

  // The graph of `key` on `device`, built on its first request; *built says whether this call
  // built it. The entry stays where it is until release(). Throws rb::Error after release().
  const Entry& get(int device, const SdpaGraphKey& key, bool* built = nullptr) {
    std::lock_guard lock(mu_);
    if (released_) throw Error("cudnn: the process's cuDNN graphs were released; no executor may use them now");
    if (built != nullptr) *built = false;
    const auto at = std::make_pair(device, key);
    if (auto it = graphs_.find(at); it != graphs_.end()) return it->second;
    Handle& h = handle_locked(device);
    SdpaGraphFacts facts;
    facts.implementation = sdpa_implementation(key);
    const double t0 = ops_.clock_ms();
    Graph g = ops_.build(h, device, key, facts);
    facts.build_ms = ops_.clock_ms() - t0;
    ++builds_;
    if (built != nullptr) *built = true;
    return graphs_.emplace(at, Entry{std::move(g), std::move(facts)}).first->second;
  }

  // The device's handle, opened on first use.
  Handle& handle(int device) {
    std::lock_guard lock(mu_);
    if (released_) throw Error("cudnn: the process's cuDNN graphs were released; no executor may use them now");
    return handle_locked(device);
  }

  int builds() const {
    std::lock_guard lock(mu_);
    return builds_;
  }

  // Each device with a handle: drained, its graphs dropped, its handle closed. Once: a later call
  // releases nothing. Returns the devices released. No executor may be using the graphs.
  int release() {
    std::lock_guard lock(mu_);
    if (released_) return 0;
    released_ = true;
    int devices = 0;
    while (!handles_.empty()) {
      auto it = handles_.begin();
      const int device = it->first;
      ops_.drain(device);
      std::erase_if(graphs_, [&](const auto& kv) { return kv.first.first == device; });
      Handle h = std::move(it->second);
      handles_.erase(it);
      ops_.close(device, h);
      ++devices;
    }
    graphs_.clear();
    return devices;
  }

 private:
  Handle& handle_locked(int device) {
    auto it = handles_.find(device);
    if (it == handles_.end()) it = handles_.emplace(device, ops_.open(device)).first;
    return it->second;
  }

  Ops ops_;
  mutable std::mutex mu_;
  std::map<int, Handle> handles_;
  std::map<std::pair<int, SdpaGraphKey>, Entry> graphs_;
  int builds_ = 0;
  bool released_ = false;
};

// One executor's share of a cache on one device: the shapes it prepared, and which of them it
// built. The cudnn kernel's CudnnSdpa holds one per device of each executor.
template <class Cache>
class CudnnGraphUser {
 public:
  using Entry = typename Cache::Entry;
  CudnnGraphUser(Cache& cache, int device) : cache_(&cache), device_(device) {}

  const Entry& prepare(const SdpaGraphKey& key) {
    if (auto it = entries_.find(key); it != entries_.end()) return *it->second;
    bool built = false;
    const Entry& e = cache_->get(device_, key, &built);
    entries_.emplace(key, &e);
    if (built) {
      ++used_.builds;
      used_.build_ms += e.facts.build_ms;
    }
    used_.shapes.emplace(graph_name(key), e.facts);
    return e;
  }

  // A shape prepare() has seen (no lock, no build: for enqueueing, under capture too).
  const Entry& entry(const SdpaGraphKey& key) const {
    const auto it = entries_.find(key);
    if (it == entries_.end()) throw Error(fmt::format("cudnn: no graph prepared for {}", graph_name(key)));
    return *it->second;
  }

  int device() const { return device_; }
  const CudnnGraphsUsed& used() const { return used_; }

 private:
  Cache* cache_;
  int device_;
  std::map<SdpaGraphKey, const Entry*> entries_;
  CudnnGraphsUsed used_;
};

// Releases the process's cuDNN graphs and handles (the cache cudnn_sdpa.cpp keeps), each device
// drained first; once, and nothing where no graph was ever built (or the build has no cuDNN).
// Returns the devices released. Called at the end of the command, before CUDA tears down; never
// throws.
int release_cudnn_graphs() noexcept;

}  // namespace rb::ring
