// The emulated device's identity and errors: device count and selection, properties and attributes
// of an sm_90 part (what the backend asks: SMs, clock, L2, shared memory), versions (13.0, the
// toolkit the headers come from), peer access, and the thread's last error with names.
#include <cstdio>
#include <cstring>

#include "emu/runtime/emu_state.hpp"

namespace rb::emu::detail {
namespace {

constexpr int kSms = 132;             // an H100 SXM's
constexpr int kClockKhz = 1'980'000;  // its boost clock
constexpr int kL2Bytes = 50 << 20;
constexpr int kSmemOptin = 227 * 1024;  // per block, opted in

bool valid_device(const State& st, int d) { return d >= 0 && d < st.device_count; }

struct ErrorName {
  cudaError_t code;
  const char* name;
  const char* text;
};

// The codes the emulator gives, and those the backend names in its own checks.
constexpr ErrorName kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched", "capture was not initiated in this stream"},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorName* error_name(cudaError_t e) {
  for (const auto& n : kErrors)
    if (n.code == e) return &n;
  return nullptr;
}

}  // namespace
}  // namespace rb::emu::detail

namespace rb::emu {

void set_device_count(int n) {
  auto lk = detail::lock();
  detail::state().device_count = n < 1 ? 1 : n > 8 ? 8 : n;
}

}  // namespace rb::emu

using namespace rb::emu;
using namespace rb::emu::detail;

extern "C" {

cudaError_t cudaGetDeviceCount(int* n) {
  auto lk = lock();
  if (n == nullptr) return fail(cudaErrorInvalidValue);
  *n = state().device_count;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* d) {
  if (d == nullptr) return fail(cudaErrorInvalidValue);
  *d = current_device();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
  auto lk = lock();
  if (!valid_device(state(), d)) return fail(cudaErrorInvalidDevice);
  current_device() = d;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int d) {
  auto lk = lock();
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (!valid_device(state(), d)) return fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = kSms; break;
    case cudaDevAttrClockRate: *value = kClockKhz; break;
    case cudaDevAttrL2CacheSize: *value = kL2Bytes; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = kSmemOptin; break;
    case cudaDevAttrPciBusId: *value = d; break;
    case cudaDevAttrPciDeviceId:
    case cudaDevAttrPciDomainId: *value = 0; break;
    case cudaDevAttrMemoryClockRate: *value = 2'619'000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; break;
    default: *value = 0; break;  // what the backend never asks reads as absent
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  auto lk = lock();
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (!valid_device(state(), d)) return fail(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "ringbench emulated device (sm_90)");
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = kSms;
  p->l2CacheSize = kL2Bytes;
  p->sharedMemPerBlockOptin = kSmemOptin;
  p->pciBusID = d;
  p->warpSize = 32;
  p->totalGlobalMem = std::size_t{80} << 30;
  p->memoryBusWidth = 5120;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* bus, int len, int d) {
  auto lk = lock();
  if (bus == nullptr || len <= 0) return fail(cudaErrorInvalidValue);
  if (!valid_device(state(), d)) return fail(cudaErrorInvalidDevice);
  std::snprintf(bus, static_cast<std::size_t>(len), "0000:%02x:00.0", d);
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int d, int peer) {
  auto lk = lock();
  if (can == nullptr) return fail(cudaErrorInvalidValue);
  if (!valid_device(state(), d) || !valid_device(state(), peer)) return fail(cudaErrorInvalidDevice);
  *can = d != peer ? 1 : 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int) {
  auto lk = lock();
  if (!valid_device(state(), peer) || peer == current_device()) return fail(cudaErrorInvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* v) {
  if (v == nullptr) return fail(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* v) {
  if (v == nullptr) return fail(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }

cudaError_t cudaGetLastError(void) {
  auto lk = lock();
  const cudaError_t e = last_error();
  // A sticky error stays: every later call of a lost context fails too.
  last_error() = state().sticky;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error(); }

const char* cudaGetErrorName(cudaError_t e) {
  const ErrorName* n = error_name(e);
  return n ? n->name : "cudaErrorUnknown (emulated: unnamed code)";
}

const char* cudaGetErrorString(cudaError_t e) {
  const ErrorName* n = error_name(e);
  return n ? n->text : "an error the emulated device does not name";
}

}  // extern "C"
