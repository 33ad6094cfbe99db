// NVTX3 wrappers (see nvtx.hpp). Ranges go to the `ringbench` domain through the C API, which
// nvtx3 keeps header-only: without a tool attached each call is one branch on a null pointer.
#include "common/nvtx.hpp"

#ifdef RINGBENCH_HAVE_NVTX
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include <nvtx3/nvToolsExt.h>
// Only where this library is itself built with CUDA: the CPU-only build finds the NVTX headers
// next to cuda_runtime.h and must still not compile against CUDA's headers.
#ifdef RINGBENCH_HAVE_CUDA
#include <nvtx3/nvToolsExtCudaRt.h>
#define RINGBENCH_NVTX_STREAMS 1
#endif
#endif

namespace rb::nvtx {

#ifdef RINGBENCH_HAVE_NVTX
namespace {

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA(kDomain);
  return d;
}

void push(const char* message, const std::optional<std::int64_t>& payload) {
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = message;
  if (payload) {
    attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attr.payload.llValue = *payload;
  }
  nvtxDomainRangePushEx(domain(), &attr);
}

}  // namespace

ScopedRange::ScopedRange(const char* name) : pushed_(true) { push(name, std::nullopt); }
ScopedRange::ScopedRange(const char* name, std::int64_t payload) : pushed_(true) { push(name, payload); }
ScopedRange::ScopedRange(const std::string& message, std::optional<std::int64_t> payload) : pushed_(true) {
  push(message.c_str(), payload);  // NVTX copies the message
}
ScopedRange::~ScopedRange() {
  if (pushed_) nvtxDomainRangePop(domain());
}

void name_current_thread(const std::string& name) {
  nvtxNameOsThreadA(static_cast<uint32_t>(::syscall(SYS_gettid)), name.c_str());
}

void name_stream(void* cuda_stream, const std::string& name) {
#ifdef RINGBENCH_NVTX_STREAMS
  nvtxNameCudaStreamA(static_cast<cudaStream_t>(cuda_stream), name.c_str());
#else
  (void)cuda_stream;
  (void)name;
#endif
}

bool enabled() { return true; }

bool attach_injection(const std::string& library) {
  if (library.empty()) return false;
  ::setenv("NVTX_INJECTION64_PATH", library.c_str(), /*overwrite=*/0);
  const char* now = std::getenv("NVTX_INJECTION64_PATH");
  return now != nullptr && library == now;
}

#else  // no NVTX: everything is a no-op

ScopedRange::ScopedRange(const char*) {}
ScopedRange::ScopedRange(const char*, std::int64_t) {}
ScopedRange::ScopedRange(const std::string&, std::optional<std::int64_t>) {}
ScopedRange::~ScopedRange() = default;
void name_current_thread(const std::string&) {}
void name_stream(void*, const std::string&) {}
bool enabled() { return false; }
bool attach_injection(const std::string&) { return false; }

#endif

}  // namespace rb::nvtx
