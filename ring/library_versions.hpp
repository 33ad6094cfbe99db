// The libraries a run's figures depend on, as this process loaded them: results.json's
// `host.libraries` (docs/formats.md). A library this build was compiled without is absent; one it was
// compiled with but could not load says "unavailable: <why>", so a node missing a library is told
// apart from a build that never had it. `ringbench fleet` compares these across nodes.
#pragma once

#include <map>
#include <string>

namespace rb::ring {

// Library -> {"headers": what this build compiled against, "library": what it loaded, ...}:
// "cuda" {"driver", "runtime"}, "nccl", "mpi", "cudnn" (headers, frontend, library, path).
std::map<std::string, std::map<std::string, std::string>> library_versions();

// Whether this build's cuDNN opens on this node (kernels/cudnn_library.hpp opens it once per
// process): "9.14.0 (/path/libcudnn.so.9)", or "unavailable: why"; "" for a build without cuDNN.
// `ringbench --version` prints it, and scripts/device-check.sh runs the cudnn acceptance only where
// it opens, whatever the build was made with.
std::string cudnn_library_status();

// 13000 -> "13.0", 12080 -> "12.8": CUDA's encoding of its versions.
std::string cuda_version_text(int code);
// 22809 -> "2.28.9", 2708 -> "2.7.8": NCCL's encoding (major*10000 + minor*100 + patch since 2.9).
std::string nccl_version_text(int code);

}  // namespace rb::ring
