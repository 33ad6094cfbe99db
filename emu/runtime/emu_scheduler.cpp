// The emulated device's ops: how one is added (its dependencies, the happens-before check of its
// accesses), and how the ops a host wait needs are run, in an order chosen by the schedule seed
// among all the orders their dependencies allow.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>

#include "common/strict_number.hpp"
#include "emu/runtime/emu_state.hpp"

namespace rb::emu::detail {

Environment read_environment() {
  Environment env;
  if (const char* n = std::getenv("RINGBENCH_EMU_DEVICES"))
    env.devices = static_cast<int>(parse_integer(n, "RINGBENCH_EMU_DEVICES", 1, 8));
  if (const char* seed = std::getenv("RINGBENCH_EMU_SEED"))
    env.seed = static_cast<std::uint64_t>(parse_integer(seed, "RINGBENCH_EMU_SEED", 0,
                                                        std::numeric_limits<std::int64_t>::max()));
  return env;
}

State& state() {
  static State* s = [] {
    const Environment env = read_environment();
    auto* st = new State;  // never destroyed: handles may be released by static destructors
    st->device_count = env.devices;
    st->seed = env.seed;
    st->rng.seed(env.seed);
    for (int d = 0; d < 8; ++d) {  // cudaStreamLegacy of each device
      auto leg = std::make_unique<StreamRec>();
      leg->device = d;
      leg->legacy = true;
      st->legacy.push_back(std::move(leg));
    }
    return st;
  }();
  return *s;
}

std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(state().mu); }

int& current_device() {
  thread_local int d = 0;
  return d;
}

cudaError_t& last_error() {
  thread_local cudaError_t e = cudaSuccess;
  return e;
}

cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess) last_error() = e;
  return e;
}

void violate(State& st, std::string rule, std::string call, std::string stream, std::string detail) {
  Violation v{std::move(rule), std::move(call), std::move(stream), std::move(detail)};
  // A race in a loop repeats each pass: the first ones say it; the rest are counted.
  constexpr std::size_t kKept = 256, kPrinted = 8;
  ++st.counters.violations;
  if (std::getenv("RINGBENCH_EMU_QUIET") == nullptr && st.counters.violations <= static_cast<std::int64_t>(kPrinted))
    std::fprintf(stderr, "ringbench-emu: %s%s\n", v.text().c_str(),
                 st.counters.violations == static_cast<std::int64_t>(kPrinted)
                     ? " (later violations are counted, not printed)"
                     : "");
  if (st.violations.size() < kKept) st.violations.push_back(std::move(v));
}

std::string StreamRec::name() const {
  if (legacy) return "legacy stream (device " + std::to_string(device) + ")";
  return "stream " + std::to_string(id) + " (device " + std::to_string(device) + ")";
}

bool in_epoch(const State& st, const OpRef& r) { return r.epoch == st.epoch; }
OpRef ref_of(const State& st, OpId id) { return OpRef{st.epoch, id}; }
bool has_run(const State& st, const OpRef& r) { return !in_epoch(st, r) || st.ops[r.id].done; }

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::function<void()> stamp_event(EventRec* ev) {
  const std::uint64_t gen = ++ev->gen;
  return [ev, gen] {
    if (ev->gen == gen) ev->time_ns = now_ns();
  };
}

namespace {

std::string range_text(const Allocation& a, std::uintptr_t lo, std::uintptr_t hi) {
  return "bytes [" + std::to_string(lo - a.base) + ", " + std::to_string(hi - a.base) + ") of allocation #" +
         std::to_string(a.id) + " (" + std::to_string(a.bytes) + " bytes)";
}

// Races between the new op's accesses and those of every op not ordered before it.
void check_races(State& st, OpId id, const Op& op) {
  std::vector<OpId> reported;
  for (const Access& a : op.accesses) {
    if (a.bytes == 0 || !check_access(st, a, op.name, op.stream)) continue;
    const Allocation* al = find_allocation(st, a.ptr);
    const auto lo = reinterpret_cast<std::uintptr_t>(a.ptr), hi = lo + a.bytes;
    auto& recs = st.accesses[al->id];
    for (const auto& r : recs) {
      if (r.op == id || r.hi <= lo || hi <= r.lo || !(r.write || a.write) || op.ancestors.has(r.op)) continue;
      if (std::find(reported.begin(), reported.end(), r.op) != reported.end()) continue;
      reported.push_back(r.op);
      const Op& other = st.ops[r.op];
      violate(st, "race", op.name, op.stream,
              std::string(a.write ? "writes " : "reads ") + range_text(*al, std::max(lo, r.lo), std::min(hi, r.hi)) +
                  " that " + other.name + " on " + other.stream + (r.write ? " writes" : " reads") +
                  ", with no order between the two (no stream, event, graph edge or host wait)");
    }
    recs.push_back(State::AccessRec{id, lo, hi, a.write});
  }
}

void maybe_end_epoch(State& st) {
  if (st.host_known.count() != st.ops.size()) return;
  ++st.epoch;
  st.ops.clear();
  st.host_known.clear();
  st.accesses.clear();
}

void run_op(State& st, Op& op) {
  if (op.work && st.sticky == cudaSuccess) {
    try {
      op.work();
    } catch (const std::exception& e) {
      st.sticky = cudaErrorLaunchFailure;
      violate(st, "kernel", op.name, op.stream, std::string("the kernel's twin threw: ") + e.what());
    }
  }
  op.done = true;
  op.done_ns = now_ns();
  ++st.counters.ops_run;
}

// Runs the targets and everything they depend on, in the schedule's order.
void run_closure(State& st, const std::vector<OpId>& targets) {
  OpSet need;
  for (OpId t : targets) {
    need.merge(st.ops[t].ancestors);
    need.add(t);
  }
  std::vector<OpId> pending;
  for (OpId i = 0; i < st.ops.size(); ++i)
    if (need.has(i) && !st.ops[i].done) pending.push_back(i);
  std::vector<std::size_t> ready;
  while (!pending.empty()) {
    ready.clear();
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const Op& op = st.ops[pending[k]];
      if (std::all_of(op.preds.begin(), op.preds.end(), [&](OpId p) { return st.ops[p].done; })) ready.push_back(k);
    }
    // Every op's predecessors are earlier ops it needs, so one is always ready.
    const std::size_t pick = st.seed == 0 ? ready.front() : ready[st.rng() % ready.size()];
    run_op(st, st.ops[pending[pick]]);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  for (OpId t : targets) {
    st.host_known.merge(st.ops[t].ancestors);
    st.host_known.add(t);
  }
}

}  // namespace

OpId add_op_after(State& st, Op op, std::vector<OpId> preds) {
  const auto id = static_cast<OpId>(st.ops.size());
  std::sort(preds.begin(), preds.end());
  preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  op.ancestors = st.host_known;
  for (OpId p : preds) {
    op.ancestors.add(p);
    op.ancestors.merge(st.ops[p].ancestors);
  }
  op.preds = std::move(preds);
  st.ops.push_back(std::move(op));
  check_races(st, id, st.ops.back());
  ++st.counters.ops_enqueued;
  return id;
}

OpId add_op(State& st, StreamRec& s, Op op, const std::vector<OpId>& extra) {
  std::vector<OpId> preds = extra;
  if (s.tail && in_epoch(st, *s.tail)) preds.push_back(s.tail->id);
  // The legacy stream waits for every blocking stream of its device, and they for it;
  // cudaStreamNonBlocking streams take no part.
  if (s.legacy) {
    for (const auto& o : st.streams)
      if (!o->destroyed && !o->nonblocking && o->device == s.device && o->tail && in_epoch(st, *o->tail))
        preds.push_back(o->tail->id);
  } else if (!s.nonblocking) {
    const auto& leg = *st.legacy.at(static_cast<std::size_t>(s.device));
    if (leg.tail && in_epoch(st, *leg.tail)) preds.push_back(leg.tail->id);
  }
  if (op.stream.empty()) op.stream = s.name();
  const OpId id = add_op_after(st, std::move(op), std::move(preds));
  s.tail = ref_of(st, id);
  return id;
}

void wait_for(State& st, OpId id) {
  run_closure(st, {id});
  maybe_end_epoch(st);
}

void wait_for(State& st, const std::optional<OpRef>& r) {
  if (r && in_epoch(st, *r)) wait_for(st, r->id);
}

void wait_all(State& st) {
  std::vector<OpId> all(st.ops.size());
  for (OpId i = 0; i < all.size(); ++i) all[i] = i;
  run_closure(st, all);
  maybe_end_epoch(st);
}

}  // namespace rb::emu::detail

namespace rb::emu {

std::string Violation::text() const { return rule + ": " + call + " on " + stream + ": " + detail; }

std::vector<Violation> violations() {
  auto lk = detail::lock();
  return detail::state().violations;
}

void clear_violations() {
  auto lk = detail::lock();
  detail::state().violations.clear();
  detail::state().sticky = cudaSuccess;
}

void set_schedule_seed(std::uint64_t seed) {
  auto lk = detail::lock();
  detail::state().seed = seed;
  detail::state().rng.seed(seed);
}

std::uint64_t schedule_seed() {
  auto lk = detail::lock();
  return detail::state().seed;
}

Counters counters() {
  auto lk = detail::lock();
  auto c = detail::state().counters;
  c.live_bytes = detail::state().live_bytes;
  return c;
}

}  // namespace rb::emu
