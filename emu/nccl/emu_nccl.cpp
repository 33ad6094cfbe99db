// The emulated device's NCCL: the calls the nccl transport makes (ring/cuda/cuda_transport_nccl.cpp),
// one rank per MPI process as the transport runs, the bytes carried by MPI. A group's sends,
// receives and all-gathers become one op on their stream (rb::emu::launch: ordered by the stream's
// and the capture's rules like any kernel, replayed by a graph, its reads and writes declared for the
// race check), which posts every send and receive at once and waits for all of them: NCCL's group
// semantics, under which a ring's sends and receives of one step cannot deadlock. MPI keeps the
// order of messages between two ranks, and each rank runs its groups in its stream's order, so the
// n-th group of one rank meets the n-th of its peer.
//
// The communicator is MPI_COMM_WORLD split by the unique id, ranked by the NCCL rank: every process
// of the job calls ncclCommInitRankConfig with the id rank 0 made, as NCCL requires.
#include <mpi.h>
#include <nccl.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "emu/runtime/emu_device.hpp"

struct ncclComm {
  MPI_Comm mpi = MPI_COMM_NULL;
  int rank = 0, nranks = 0;
  bool aborted = false;
};

namespace {

constexpr char kMagic[] = "ringbench-emu nccl";

std::size_t type_bytes(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2: return 1;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32: return 4;
    default: return 8;
  }
}

// One call of a group.
struct Call {
  enum Kind { send, recv, all_gather } kind;
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t bytes = 0;  // per rank
  int peer = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

struct Group {
  int depth = 0;
  std::vector<Call> calls;
};

Group& group() {
  thread_local Group g;
  return g;
}

// Runs a group's calls: every send and receive posted, each all-gather in order, then all waited.
void run_calls(const std::vector<Call>& calls) {
  std::vector<MPI_Request> reqs;
  for (const Call& c : calls) {
    MPI_Request r = MPI_REQUEST_NULL;
    const int n = static_cast<int>(c.bytes);
    if (c.kind == Call::send) MPI_Isend(c.in, n, MPI_BYTE, c.peer, 0, c.comm->mpi, &r);
    if (c.kind == Call::recv) MPI_Irecv(c.out, n, MPI_BYTE, c.peer, 0, c.comm->mpi, &r);
    if (r != MPI_REQUEST_NULL) reqs.push_back(r);
  }
  for (const Call& c : calls) {
    if (c.kind != Call::all_gather) continue;
    auto* own = static_cast<char*>(c.out) + c.bytes * static_cast<std::size_t>(c.comm->rank);
    const void* in = c.in == own ? MPI_IN_PLACE : c.in;
    MPI_Allgather(in, static_cast<int>(c.bytes), MPI_BYTE, c.out, static_cast<int>(c.bytes), MPI_BYTE, c.comm->mpi);
  }
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

// Enqueues calls (all on one stream) as one op.
ncclResult_t enqueue(std::vector<Call> calls) {
  if (calls.empty()) return ncclSuccess;
  std::vector<rb::emu::Access> acc;
  for (const Call& c : calls) {
    if (c.kind != Call::recv) acc.push_back(rb::emu::reads(c.in, c.bytes));
    if (c.kind == Call::recv) acc.push_back(rb::emu::writes(c.out, c.bytes));
    if (c.kind == Call::all_gather)
      acc.push_back(rb::emu::writes(c.out, c.bytes * static_cast<std::size_t>(c.comm->nranks)));
  }
  const cudaStream_t s = calls.front().stream;
  const char* name = calls.front().kind == Call::all_gather ? "ncclAllGather" : "ncclSend/ncclRecv";
  return rb::emu::launch(s, name, std::move(acc), [calls] { run_calls(calls); }) == cudaSuccess
             ? ncclSuccess
             : ncclUnhandledCudaError;
}

ncclResult_t add(Call c) {
  if (c.comm == nullptr || c.comm->aborted) return ncclInvalidArgument;
  if (c.kind != Call::all_gather && (c.peer < 0 || c.peer >= c.comm->nranks)) return ncclInvalidArgument;
  Group& g = group();
  if (g.depth > 0) {
    if (!g.calls.empty() && g.calls.front().stream != c.stream) return ncclInvalidUsage;  // one stream a group here
    g.calls.push_back(c);
    return ncclSuccess;
  }
  return enqueue({c});
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr) return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (id == nullptr) return ncclInvalidArgument;
  std::memset(id->internal, 0, sizeof id->internal);
  std::memcpy(id->internal, kMagic, sizeof kMagic);
  std::random_device rd;
  const unsigned color = rd() & 0x3FFFFFFFu;
  std::memcpy(id->internal + sizeof kMagic, &color, sizeof color);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* out, int nranks, ncclUniqueId id, int rank, ncclConfig_t*) {
  if (out == nullptr || nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  if (std::memcmp(id.internal, kMagic, sizeof kMagic) != 0) return ncclInvalidUsage;
  int up = 0;
  MPI_Initialized(&up);
  if (!up) return ncclInvalidUsage;  // one rank per MPI process, as the nccl transport runs
  unsigned color = 0;
  std::memcpy(&color, id.internal + sizeof kMagic, sizeof color);
  auto comm = std::make_unique<ncclComm>();
  if (MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(color), rank, &comm->mpi) != MPI_SUCCESS) return ncclSystemError;
  int size = 0, me = 0;
  MPI_Comm_size(comm->mpi, &size);
  MPI_Comm_rank(comm->mpi, &me);
  if (size != nranks || me != rank) {
    MPI_Comm_free(&comm->mpi);
    return ncclInvalidUsage;
  }
  comm->rank = rank;
  comm->nranks = nranks;
  *out = comm.release();
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* state) {
  if (comm == nullptr || state == nullptr) return ncclInvalidArgument;
  *state = ncclSuccess;
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) { return comm == nullptr ? ncclInvalidArgument : ncclSuccess; }

ncclResult_t ncclCommRevoke(ncclComm_t comm, int) {
  if (comm == nullptr) return ncclInvalidArgument;
  comm->aborted = true;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclInvalidArgument;
  if (comm->mpi != MPI_COMM_NULL) MPI_Comm_free(&comm->mpi);
  delete comm;  // NOLINT(cppcoreguidelines-owning-memory): NCCL's handle is a raw pointer
  return ncclSuccess;
}

// No MPI call here: an abort runs where a peer may be gone, and must not wait for it.
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclInvalidArgument;
  delete comm;  // NOLINT(cppcoreguidelines-owning-memory)
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  ++group().depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  Group& g = group();
  if (g.depth == 0) return ncclInvalidUsage;
  if (--g.depth > 0) return ncclSuccess;
  return enqueue(std::exchange(g.calls, {}));
}

ncclResult_t ncclSend(const void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return add(Call{Call::send, buf, nullptr, count * type_bytes(type), peer, comm, stream});
}

ncclResult_t ncclRecv(void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  return add(Call{Call::recv, nullptr, buf, count * type_bytes(type), peer, comm, stream});
}

ncclResult_t ncclAllGather(const void* in, void* out, size_t count, ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t stream) {
  return add(Call{Call::all_gather, in, out, count * type_bytes(type), 0, comm, stream});
}

const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument (emulated NCCL)";
    case ncclInvalidUsage: return "invalid usage (emulated NCCL: one rank per MPI process, one stream a group)";
    case ncclSystemError: return "system error (emulated NCCL: MPI)";
    case ncclUnhandledCudaError: return "unhandled cuda error (the emulated device refused the op)";
    default: return "emulated NCCL error";
  }
}

const char* ncclGetLastError(ncclComm_t) { return ""; }

}  // extern "C"
