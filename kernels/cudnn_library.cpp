// Opening cuDNN at run time (see cudnn_library.hpp).
#include "kernels/cudnn_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

#include <cuda_runtime_api.h>

#include "common/loaded_library.hpp"

// The frontend declares it (`extern void* cudnn_dlhandle;`) and looks every cuDNN symbol up in it.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace rb::kernels::cudnn {
namespace {

std::string dl_error() {
  const char* e = ::dlerror();
  return e != nullptr ? e : "unknown error";
}

// The CUDA runtime this process was linked with: the loaded libcudart of the runtime's own major,
// from the loader's list (common/loaded_library.hpp: dladdr on a runtime function names the
// executable where it was linked without PIE). Calling cudaRuntimeGetVersion (a host call, no
// device needed) also keeps the shared runtime linked where --as-needed would drop it. None loaded:
// the runtime is static, and the frontend picks one itself.
void pin_cuda_runtime() {
  if (std::getenv("CUDNN_FRONTEND_CUDART_LIB_NAME") != nullptr) return;
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return;
  const std::string path = loaded_library_path("libcudart.so." + std::to_string(version / 1000));
  if (path.empty()) return;
  ::setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", path.c_str(), 0);
}

// The file the dynamic loader opened for handle h (a full path where it searched by name).
std::string opened_path(void* h, const std::string& name) {
  link_map* map = nullptr;
  if (::dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0')
    return name;
  return map->l_name;
}

Library open_library() {
  Library lib;
  std::string tried;
  auto attempt = [&](const std::string& what, const std::string& name) {
    ::dlerror();
    void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      tried += (tried.empty() ? "" : "; ") + what + ": " + dl_error();
      return false;
    }
    using GetVersion = std::size_t (*)();
    auto* get_version = reinterpret_cast<GetVersion>(::dlsym(h, "cudnnGetVersion"));
    if (get_version == nullptr) {
      tried += (tried.empty() ? "" : "; ") + what + ": no cudnnGetVersion in " + name;
      ::dlclose(h);
      return false;
    }
    const std::size_t version = get_version();
    const std::string path = opened_path(h, name);
    if (version < 90000) {
      tried += (tried.empty() ? "" : "; ") + what + ": " + path + " is cuDNN " + std::to_string(version) +
               ", older than 9";
      ::dlclose(h);
      return false;
    }
    lib.loaded = true;
    lib.path = path;
    lib.version = version;
    cudnn_frontend::cudnn_dlhandle = h;
    return true;
  };
  // A library named by the user is the only one tried: falling back would hide the mistake.
  const char* env = std::getenv("RINGBENCH_CUDNN_LIBRARY");
  const bool named = env != nullptr && env[0] != '\0';
  const bool found = named ? attempt(std::string("RINGBENCH_CUDNN_LIBRARY=") + env, env)
                           : attempt("libcudnn.so.9", "libcudnn.so.9") ||
                                 (configured_library()[0] != '\0' &&
                                  attempt(std::string("configured ") + configured_library(), configured_library()));
  if (!found) lib.error = "cuDNN could not be opened (" + tried + ")";
  if (found) pin_cuda_runtime();
  return lib;
}

}  // namespace

const Library& library() {
  static const Library lib = open_library();
  return lib;
}

std::string version_string(std::size_t version) {
  return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
         std::to_string(version % 100);
}

const char* header_version() { return RINGBENCH_CUDNN_HEADER_VERSION; }
const char* frontend_version() { return RINGBENCH_CUDNN_FRONTEND_VERSION; }
const char* configured_library() { return RINGBENCH_CUDNN_CONFIGURED_LIBRARY; }

}  // namespace rb::kernels::cudnn
