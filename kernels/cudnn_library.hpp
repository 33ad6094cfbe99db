// cuDNN, opened at run time. ringbench builds cudnn-frontend with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
// (cmake/RingbenchDependencies.cmake: a build made against one cuDNN runs on the GPU node's older one
// and starts where there is none), so nothing links libcudnn: this is where it is opened, and the
// one definition of the frontend's handle to it, cudnn_frontend::cudnn_dlhandle. Code that uses the
// frontend calls library() first and refuses the cudnn kernel with its `error` when not loaded.
// Needs no GPU: opening the library and its version are host calls.
#pragma once

#include <cstddef>
#include <string>

namespace rb::kernels::cudnn {

struct Library {
  bool loaded = false;
  std::string path;         // the file opened, as the dynamic loader resolved it
  std::size_t version = 0;  // the library's cudnnGetVersion(): 91400 for 9.14.0
  std::string error;        // why not, when not loaded: each place tried and its answer
};

// Opens libcudnn once per process (thread-safe; every call returns that first answer) and points the
// frontend at it: $RINGBENCH_CUDNN_LIBRARY (a file) where set, and then only that; otherwise
// libcudnn.so.9 by the loader's search (LD_LIBRARY_PATH, then ld.so.cache), then the library
// configure found (configured_library(): e.g. a PyTorch wheel's copy, on no search path).
// A library older than cuDNN 9 is refused. Also names this process's own CUDA runtime to the
// frontend (CUDNN_FRONTEND_CUDART_LIB_NAME, unless already set), which would otherwise open the first
// of libcudart.so.12 and .13 it finds: a wheel's CUDA 12 runtime beside ringbench's would put two
// runtimes in one process.
const Library& library();

// cuDNN 9's encoding (major * 10000 + minor * 100 + patch) as "9.14.0".
std::string version_string(std::size_t version);

// What this build was compiled against, for the record.
const char* header_version();      // cuDNN's headers, e.g. "9.19.0"
const char* frontend_version();    // cudnn-frontend's headers, e.g. "1.32.0"
const char* configured_library();  // the libcudnn configure found (the last place library() tries)

}  // namespace rb::kernels::cudnn
