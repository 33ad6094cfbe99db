// The versions of the libraries this process loaded, one entry per library this build knows.
#include "ring/library_versions.hpp"

#include <string_view>

#include <fmt/format.h>

#ifdef RINGBENCH_HAVE_CUDA
#include <cuda_runtime.h>

#include "ring/cuda/cudnn_sdpa.hpp"
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
#include <nccl.h>
#endif
#ifdef RINGBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace rb::ring {
namespace {

using Versions = std::map<std::string, std::string>;

#ifdef RINGBENCH_HAVE_CUDA
Versions cuda() {
  // Neither call needs a device, but the driver's needs the driver: a machine without one says so.
  Versions v;
  int driver = 0, runtime = 0;
  const cudaError_t d = cudaDriverGetVersion(&driver);
  v["driver"] = d == cudaSuccess && driver > 0 ? cuda_version_text(driver) : "unavailable: no CUDA driver";
  (void)cudaGetLastError();
  v["runtime"] = cudaRuntimeGetVersion(&runtime) == cudaSuccess ? cuda_version_text(runtime)
                                                                : "unavailable: cudaRuntimeGetVersion failed";
  (void)cudaGetLastError();
  v["headers"] = cuda_version_text(CUDART_VERSION);
  return v;
}
#endif

#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
Versions nccl() {
  int code = 0;
  return {{"headers", nccl_version_text(NCCL_VERSION_CODE)},
          {"library",
           ncclGetVersion(&code) == ncclSuccess ? nccl_version_text(code) : "unavailable: ncclGetVersion failed"}};
}
#endif

#ifdef RINGBENCH_HAVE_MPI
Versions mpi() {
  // MPI_Get_library_version is one of the few calls MPI allows before MPI_Init.
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  std::string library = "unavailable: MPI_Get_library_version failed";
  if (MPI_Get_library_version(text, &len) == MPI_SUCCESS) {
    library.assign(text, static_cast<std::size_t>(len));
    if (const auto cut = library.find_first_of("\n,"); cut != std::string::npos) library.resize(cut);
  }
  return {{"headers", fmt::format("MPI {}.{}", MPI_VERSION, MPI_SUBVERSION)}, {"library", library}};
}
#endif

}  // namespace

std::string cudnn_library_status() {
#ifdef RINGBENCH_HAVE_CUDA
  const auto v = cudnn_versions();
  if (v.empty()) return "";
  const auto path = v.find("path");
  return v.at("library") + (path == v.end() ? "" : " (" + path->second + ")");
#else
  return "";
#endif
}

std::string cuda_version_text(int code) { return fmt::format("{}.{}", code / 1000, (code % 1000) / 10); }

std::string nccl_version_text(int code) {
  if (code < 10000) return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

std::map<std::string, Versions> library_versions() {
  std::map<std::string, Versions> out;
#ifdef RINGBENCH_HAVE_CUDA
  out["cuda"] = cuda();
  if (auto v = cudnn_versions(); !v.empty()) out["cudnn"] = std::move(v);
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
  out["nccl"] = nccl();
#endif
#ifdef RINGBENCH_HAVE_MPI
  out["mpi"] = mpi();
#endif
  return out;
}

}  // namespace rb::ring
