// A ProcessGroup whose "processes" are threads of the test, so the distributed half of the CPU
// executor (one hosted rank, passes started together, the slowest rank's time, timelines and
// output rows shared) is tested without MPI, and under the sanitizers. Every collective is one
// exchange: each member deposits its bytes, all read everyone's, and nobody starts the next until
// all have read.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "ring/transport/kv_transport.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring::testing {

class ThreadGroupState {
 public:
  explicit ThreadGroupState(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}

  // Deposits `mine` as member `rank` and returns every member's bytes, in rank order.
  std::vector<std::vector<std::byte>> exchange(int rank, std::vector<std::byte> mine) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return aborted_ || readers_ == 0; });  // the previous exchange is over
    check();
    slots_[static_cast<std::size_t>(rank)] = std::move(mine);
    const std::uint64_t gen = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      readers_ = size_;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lk, [&] { return aborted_ || generation_ != gen; });
      check();
    }
    auto all = slots_;
    if (--readers_ == 0) cv_.notify_all();
    return all;
  }
  void abort() {
    std::lock_guard lk(mu_);
    aborted_ = true;
    cv_.notify_all();
  }

 private:
  void check() const {
    if (aborted_) throw Error("thread group: aborted");
  }
  int size_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<std::byte>> slots_;
  int arrived_ = 0, readers_ = 0;
  std::uint64_t generation_ = 0;
  bool aborted_ = false;
};

class ThreadGroup final : public ProcessGroup {
 public:
  ThreadGroup(ThreadGroupState& state, int rank, int size, std::int64_t clock_offset_ns = 0)
      : state_(state), rank_(rank), size_(size), offset_(clock_offset_ns) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override { (void)state_.exchange(rank_, {}); }
  std::int64_t max(std::int64_t v) override { return reduce(v, true); }
  std::int64_t min(std::int64_t v) override { return reduce(v, false); }
  void sum(std::span<double> v) override {
    const auto all = state_.exchange(rank_, bytes(v.data(), v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) {
      double s = 0;
      for (const auto& part : all) s += reinterpret_cast<const double*>(part.data())[i];
      v[i] = s;
    }
  }
  std::vector<std::byte> allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& sizes) override {
    const auto all = state_.exchange(rank_, std::vector<std::byte>(mine.begin(), mine.end()));
    std::vector<std::byte> out;
    sizes.clear();
    for (const auto& part : all) {
      sizes.push_back(static_cast<std::int64_t>(part.size()));
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  std::int64_t clock_offset_ns() const override { return offset_; }
  void abort() override { state_.abort(); }
  void notify_failure(const std::string&) override { state_.abort(); }
  bool left_requests_behind() const override { return false; }

 private:
  template <typename T>
  static std::vector<std::byte> bytes(const T* p, std::size_t n) {
    std::vector<std::byte> b(n * sizeof(T));
    std::memcpy(b.data(), p, b.size());
    return b;
  }
  std::int64_t reduce(std::int64_t v, bool take_max) {
    const auto all = state_.exchange(rank_, bytes(&v, 1));
    std::int64_t r = v;
    for (const auto& part : all) {
      std::int64_t x = 0;
      std::memcpy(&x, part.data(), sizeof x);
      r = take_max ? std::max(r, x) : std::min(r, x);
    }
    return r;
  }
  ThreadGroupState& state_;
  int rank_, size_;
  std::int64_t offset_;
};

// Lends one shared transport (the local one, which serves every rank) to several executors.
class SharedTransport final : public KvTransport {
 public:
  explicit SharedTransport(KvTransport& t) : t_(t) {}
  TransferSpan exchange(int self, int step, std::span<const std::byte> send, int dst, std::span<std::byte> recv,
                        int src) override {
    return t_.exchange(self, step, send, dst, recv, src);
  }
  TransferSpan allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) override {
    return t_.allgather(self, mine, all);
  }
  void abort() override { t_.abort(); }

 private:
  KvTransport& t_;
};

}  // namespace rb::ring::testing
