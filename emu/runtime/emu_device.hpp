// The emulated device: the CUDA runtime entry points the CUDA backend calls (cudaMalloc, streams,
// events, capture, graphs, ...), implemented on the host, so that the backend's own host code runs
// unchanged in CI, linked against this library in place of libcudart (emu/README.md, issue 52).
//
// What it models, and checks:
// - memory: a device allocation is a host allocation filled with a poison pattern (0xFF bytes: a
//   NaN in bf16 and in fp32), with bounds; a freed one is never reused, so a use after free is seen;
// - streams are queues of ops; events record and wait; the legacy stream orders against every
//   blocking stream; cudaStreamNonBlocking streams do not;
// - capture: begin/end, status and dependencies (edge data included), forks and joins through
//   events; graph instantiate and launch replay the captured ops in their recorded dependency order;
// - ops run when the host waits for them (a synchronize, a synchronous copy, an event query), in an
//   order chosen by the schedule seed among every order the declared dependencies allow, so an
//   ordering that works only because one stream happened to run first is caught;
// - the rules below, each a Violation naming the rule, the call and the stream.
//
// Kernels: each rb::kernels:: launcher (emu/kernels/) enqueues its CPU twin through launch(),
// declaring the bytes it reads and writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace rb::emu {

// One byte range an op reads or writes (device memory).
struct Access {
  const void* ptr = nullptr;
  std::size_t bytes = 0;
  bool write = false;
};

inline Access reads(const void* p, std::size_t bytes) { return Access{p, bytes, false}; }
inline Access writes(const void* p, std::size_t bytes) { return Access{p, bytes, true}; }

// Enqueues `work` as one kernel named `name` on `stream` (nullptr: the legacy stream); while the
// stream captures, adds it to the capture's graph instead. Every access must lie inside one live
// device allocation. Returns the CUDA error the call would give (also left as the thread's last
// error), or cudaSuccess.
cudaError_t launch(cudaStream_t stream, std::string name, std::vector<Access> accesses, std::function<void()> work);

// The rules a GPU would not report, or would report only as a wrong number sometimes:
//   "race"            an op reads or writes bytes that another op writes (or reads, when it writes)
//                     with no happens-before order between the two (streams, events, graph edges,
//                     host synchronisation);
//   "bounds"          an access outside every live allocation, or past the end of one;
//   "use-after-free"  an access to, or a free of, freed memory;
//   "capture"         an allocation, free, synchronous copy, synchronize or event query during a
//                     capture; a forked stream not joined before cudaStreamEndCapture; a wait on an
//                     event never recorded in that capture;
//   "handle"          a destroyed or unknown stream, event or graph;
//   "kernel"          a kernel's twin threw (an index outside its buffers): every later call fails,
//                     as after a faulting kernel.
struct Violation {
  std::string rule;    // one of the names above
  std::string call;    // the runtime call or kernel, e.g. "cudaMemcpyAsync" or "attention_block"
  std::string stream;  // the stream's name: "legacy", "stream 3 (device 0)"
  std::string detail;
  std::string text() const;  // "race: attention_block on stream 3 (device 0): ..."
};

// The first 256 violations since the last clear, in the order seen; the process's first 8 are also
// printed to stderr unless RINGBENCH_EMU_QUIET is set.
std::vector<Violation> violations();
void clear_violations();

// The order in which ready ops run when the host waits: 0 runs them in issue order; any other seed
// picks, at each step, a random op among those whose dependencies have run.
void set_schedule_seed(std::uint64_t seed);
std::uint64_t schedule_seed();

// How many devices cudaGetDeviceCount reports (default: RINGBENCH_EMU_DEVICES, else 1; at most 8).
void set_device_count(int n);

// What the emulator has done, for tests: ops run, ops enqueued, graphs launched, bytes allocated now.
struct Counters {
  std::int64_t ops_run = 0, ops_enqueued = 0, graph_launches = 0, live_bytes = 0;
  std::int64_t violations = 0;  // every one seen, also those past the 256 violations() keeps
};
Counters counters();

// The device-side names the emulator gives streams in violations ("stream 3 (device 0)").
std::string stream_name(cudaStream_t stream);

}  // namespace rb::emu
