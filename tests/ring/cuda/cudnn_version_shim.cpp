// A stand-in libcudnn that reports cuDNN 9.14.0 (the GPU node's version) and is otherwise the real
// one: it exports only cudnnGetVersion and names the real libcudnn.so.9 as DT_NEEDED
// (tests/ring/CMakeLists.txt). ringbench opens it through RINGBENCH_CUDNN_LIBRARY, and the frontend
// looks every cuDNN symbol up with dlsym on that handle, which searches this file first and then its
// dependencies: the frontend takes its 9.14 branches while the real library's descriptors answer.
// Used by the ring.test_cudnn_graphs_914 test only.
#include <cstddef>

extern "C" __attribute__((visibility("default"))) std::size_t cudnnGetVersion() { return 91400; }
