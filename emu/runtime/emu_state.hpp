// The emulated device's state, shared by the files that implement the runtime's entry points
// (emu_memory.cpp, emu_streams.cpp, emu_capture.cpp, emu_device_info.cpp) and the scheduler
// (emu_scheduler.cpp). One process-wide state under one mutex: the runtime's calls are short, and
// ops run under it too, when the host waits for them.
//
// The model. An op (a kernel, a copy, a memset, an event's record, a join) is a node of a DAG:
// its predecessors are the ops it must follow (its stream's last op, the op an awaited event
// marks, the legacy stream's rules, a graph's edges). Each op keeps the set of all its ancestors
// (a bitset over the ops of the current epoch), so "happens before" is one bit test. The host's
// knowledge is such a set too: what it has waited for. An epoch ends when the host knows every op
// of it; ids then start again, so the bitsets stay as small as one pass.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"

namespace rb::emu::detail {

using OpId = std::uint32_t;

// A set of op ids of one epoch.
class OpSet {
 public:
  bool has(OpId id) const { return id / 64 < bits_.size() && (bits_[id / 64] >> (id % 64) & 1u) != 0; }
  void add(OpId id) {
    if (id / 64 >= bits_.size()) bits_.resize(id / 64 + 1, 0);
    bits_[id / 64] |= std::uint64_t{1} << (id % 64);
  }
  void merge(const OpSet& o) {
    if (o.bits_.size() > bits_.size()) bits_.resize(o.bits_.size(), 0);
    for (std::size_t i = 0; i < o.bits_.size(); ++i) bits_[i] |= o.bits_[i];
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (auto w : bits_) n += static_cast<std::size_t>(__builtin_popcountll(w));
    return n;
  }
  void clear() { bits_.clear(); }

 private:
  std::vector<std::uint64_t> bits_;
};

struct Op {
  std::string name;    // the kernel's or the call's
  std::string stream;  // its stream's name, for messages
  std::vector<Access> accesses;
  std::function<void()> work;  // empty for markers (event records, joins, waits)
  std::vector<OpId> preds;
  OpSet ancestors;
  bool done = false;
  std::int64_t done_ns = 0;  // host steady-clock time when it ran
};

// Where an event's last eager record stands: an op of some epoch (done, and known to the host, if
// that epoch has ended).
struct OpRef {
  std::uint64_t epoch = 0;
  OpId id = 0;
};

struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  int device = 0;
  bool live = true;
  std::uint64_t id = 0;
  std::unique_ptr<unsigned char[], void (*)(void*)> memory{nullptr, nullptr};
};

struct Graph;
struct Capture;

// A node of a captured graph: what an op will be at each launch.
struct Node {
  Graph* graph = nullptr;
  std::size_t index = 0;
  std::string name, stream;
  std::vector<Node*> deps;
  std::vector<Access> accesses;
  std::function<void()> work;
  struct EventRec* records = nullptr;  // an event-record node (cudaEventRecordExternal)
};

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;
  bool destroyed = false;
};

// An instantiated graph: its nodes copied (dependencies as indices, each earlier than its node),
// so the captured graph may be destroyed first, as CUDA allows.
struct ExecNode {
  std::string name, stream;
  std::vector<std::size_t> deps;
  std::vector<Access> accesses;
  std::function<void()> work;
  struct EventRec* records = nullptr;
};
struct Exec {
  std::vector<ExecNode> nodes;
  std::optional<OpRef> last_join;  // launches of one executable are ordered
  bool destroyed = false;
};

struct StreamRec {
  int id = 0, device = 0;
  bool nonblocking = false, legacy = false, destroyed = false;
  std::optional<OpRef> tail;  // its last op
  Capture* capture = nullptr;
  std::vector<Node*> frontier;             // while capturing: what the next node depends on
  std::vector<cudaGraphNode_t> info_deps;  // cudaStreamGetCaptureInfo's answer, alive until the next
  std::vector<cudaGraphEdgeData> info_edges;
  std::string name() const;
};

struct EventRec {
  int id = 0, device = 0;
  bool timing = true, destroyed = false;
  std::optional<OpRef> last;   // the last eager record's marker op
  std::uint64_t gen = 0;       // records so far: only the last one's op sets time_ns
  std::int64_t time_ns = 0;    // when the last record ran (host steady clock)
  Capture* capture = nullptr;  // the capture its last record in a capture belongs to
  std::vector<Node*> nodes;    // that record's frontier
};

struct Capture {
  std::unique_ptr<Graph> graph;
  StreamRec* origin = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread;
  bool invalidated = false, active = true;
  unsigned long long id = 0;
  std::vector<StreamRec*> streams;
};

struct State {
  std::mutex mu;
  int device_count = 1;
  std::uint64_t seed = 0;
  std::mt19937_64 rng{0};

  // Ops of the current epoch.
  std::uint64_t epoch = 1;
  std::vector<Op> ops;
  OpSet host_known;
  struct AccessRec {
    OpId op;
    std::uintptr_t lo, hi;
    bool write;
  };
  std::map<std::uint64_t, std::vector<AccessRec>> accesses;  // by allocation id

  std::map<std::uintptr_t, Allocation> allocations;  // by base address
  std::vector<std::uintptr_t> quarantine;            // freed, kept poisoned until the cap
  std::size_t quarantine_bytes = 0;
  std::uint64_t next_alloc_id = 1;
  std::int64_t live_bytes = 0;

  // Every handle made, by address, with its kind: a call's handle is found in one lookup (an
  // emulated sweep makes thousands of streams and events; a scan per call was most of its time).
  enum class HandleKind : char { stream, event, graph, exec };
  std::unordered_map<const void*, HandleKind> handles;
  std::vector<std::unique_ptr<StreamRec>> streams;  // never freed: a destroyed handle stays known
  std::vector<std::unique_ptr<StreamRec>> legacy;   // one per device
  std::vector<std::unique_ptr<EventRec>> events;
  std::vector<std::unique_ptr<Graph>> graphs;
  std::vector<std::unique_ptr<Exec>> execs;
  std::vector<std::unique_ptr<Capture>> captures;
  unsigned long long next_capture_id = 1;

  std::vector<Violation> violations;
  Counters counters;
  cudaError_t sticky = cudaSuccess;  // a kernel that threw: every later call fails, as on a GPU
};

// RINGBENCH_EMU_DEVICES and RINGBENCH_EMU_SEED, read strictly: rb::InputError names a malformed one.
struct Environment {
  int devices = 1;
  std::uint64_t seed = 0;
};
Environment read_environment();

State& state();
std::unique_lock<std::mutex> lock();

// The thread's current device and last error.
int& current_device();
cudaError_t& last_error();
// Returns e, and leaves it as the thread's last error when it is an error.
cudaError_t fail(cudaError_t e);

void violate(State& st, std::string rule, std::string call, std::string stream, std::string detail);

// Handles.
StreamRec* stream_of(State& st, cudaStream_t s);  // nullptr: destroyed or unknown
EventRec* event_of(State& st, cudaEvent_t e);
// The record behind handle h when it is one of `kind`, else nullptr.
const void* find_handle(const State& st, const void* h, State::HandleKind kind);

// The scheduler (emu_scheduler.cpp).
// Adds an op on `s` after `extra` (and the stream's rules), checks its accesses, and makes it the
// stream's tail. Not for a capturing stream.
OpId add_op(State& st, StreamRec& s, Op op, const std::vector<OpId>& extra = {});
// Adds an op after exactly `preds` (a graph's node at launch), checking its accesses.
OpId add_op_after(State& st, Op op, std::vector<OpId> preds);
std::int64_t now_ns();
// The op that marks an event's record: it stamps the event when it runs, if no later record came.
std::function<void()> stamp_event(EventRec* ev);
bool in_epoch(const State& st, const OpRef& r);
OpRef ref_of(const State& st, OpId id);
// Runs `id` and every op it depends on, in the schedule's order; the host knows them after.
void wait_for(State& st, OpId id);
void wait_for(State& st, const std::optional<OpRef>& r);
void wait_all(State& st);
// Whether the op r refers to has run (an op of an ended epoch has).
bool has_run(const State& st, const OpRef& r);
std::int64_t run_ns(const State& st, const OpRef& r);

// Memory (emu_memory.cpp): the allocation holding [p, p + bytes), or nullptr.
Allocation* find_allocation(State& st, const void* p);
// Checks an access's bounds (violations "bounds", "use-after-free"); false when it is not in one
// live allocation.
bool check_access(State& st, const Access& a, const std::string& call, const std::string& stream);

// Capture (emu_capture.cpp): whether an unsafe call (an allocation, a synchronisation) is illegal
// now on this thread; if so it invalidates the captures concerned, records the violation and
// returns the error to give.
cudaError_t unsafe_during_capture(State& st, const char* call);
// Adds a node to the capture `s` is in (its frontier as dependencies), or returns the error.
cudaError_t add_node(State& st, StreamRec& s, Node node);

}  // namespace rb::emu::detail
