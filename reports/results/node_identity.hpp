// Which node a results file (or an acceptance report) describes, and when: the host's name, its
// GPUs, the library versions its figures depend on, the run's start and end, and the build. Read from
// the header of a results file of any version; what an older file lacks is listed in `missing`, so a
// reader can say so instead of guessing (results 2.5.0 added the timestamps, the build type, the GPUs'
// serial and board, and the CUDA, NCCL and MPI versions). `ringbench accept` puts it in its JSON and
// JUnit output, and `ringbench fleet` tells nodes apart by it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::reports {

struct GpuIdentity {
  std::string name, uuid, serial, pci_bus_id, board;  // empty where the file or NVML has none
};

struct NodeIdentity {
  std::string hostname;
  std::vector<GpuIdentity> gpus;
  // Library name -> version as this node loaded it: "driver", "cuda_runtime", "nccl", "cudnn", "mpi".
  std::map<std::string, std::string> versions;
  std::string started_utc, finished_utc;  // ISO 8601, "2026-12-02T10:38:21Z"
  std::string build_type, git_sha, tool_version;
  std::vector<std::string> missing;  // identity fields the file lacks, as JSON paths: "/host/hostname"

  // The hostname, or "unnamed node" for a file without one.
  std::string label() const;
};

// Reads the identity from a results document's header (validated by results_reader.hpp).
NodeIdentity node_identity(const nlohmann::json& results_doc);

// {"hostname", "gpus": [{"name", "uuid", "serial", "pci_bus_id", "board"}], "versions": {},
//  "started_utc", "finished_utc", "build_type", "git_sha", "tool_version", "missing": []}
nlohmann::json to_json(const NodeIdentity& node);

}  // namespace rb::reports
