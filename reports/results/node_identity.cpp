// The node identity of a results file's header.
#include "reports/results/node_identity.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::string text_at(const json& doc, const json::json_pointer& p) {
  if (!doc.contains(p)) return {};
  const json& v = doc.at(p);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// The first GPU's field, for versions a file of before 2.5.0 kept per GPU only.
std::string first_gpu(const json& doc, const char* field) {
  const json::json_pointer gpus("/host/gpus");
  if (!doc.contains(gpus) || !doc.at(gpus).is_array() || doc.at(gpus).empty()) return {};
  const json& g = doc.at(gpus).front();
  if (!g.is_object() || !g.contains(field)) return {};
  const json& v = g.at(field);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return {};
}

}  // namespace

std::string NodeIdentity::label() const { return hostname.empty() ? "unnamed node" : hostname; }

NodeIdentity node_identity(const json& doc) {
  NodeIdentity n;
  const auto want = [&](const char* path, std::string& into) {
    const json::json_pointer p(path);
    if (!doc.contains(p) || doc.at(p).is_null())
      n.missing.emplace_back(path);
    else
      into = text_at(doc, p);
  };
  want("/host/hostname", n.hostname);
  want("/run_time/started_utc", n.started_utc);
  want("/run_time/finished_utc", n.finished_utc);
  want("/tool/build_type", n.build_type);
  want("/tool/git_sha", n.git_sha);
  want("/tool/version", n.tool_version);

  const json::json_pointer gpus("/host/gpus");
  if (doc.contains(gpus) && doc.at(gpus).is_array()) {
    for (const json& g : doc.at(gpus)) {
      if (!g.is_object()) continue;
      const auto s = [&](const char* k) {
        return g.contains(k) && g.at(k).is_string() ? g.at(k).get<std::string>() : "";
      };
      n.gpus.push_back({s("name"), s("uuid"), s("serial"), s("pci_bus_id"), s("board")});
    }
  }

  const auto version = [&](const char* name, std::string value) {
    if (!value.empty()) n.versions[name] = std::move(value);
  };
  version("driver", text_at(doc, json::json_pointer("/host/libraries/cuda/driver")));
  if (!n.versions.count("driver")) version("driver", first_gpu(doc, "driver_version"));
  version("cuda_runtime", text_at(doc, json::json_pointer("/host/libraries/cuda/runtime")));
  if (!n.versions.count("cuda_runtime")) version("cuda_runtime", first_gpu(doc, "runtime_version"));
  version("nccl", text_at(doc, json::json_pointer("/host/libraries/nccl/library")));
  version("cudnn", text_at(doc, json::json_pointer("/host/libraries/cudnn/library")));
  version("mpi", text_at(doc, json::json_pointer("/host/libraries/mpi/library")));
  if (!n.versions.count("mpi")) version("mpi", text_at(doc, json::json_pointer("/distributed/library")));
  return n;
}

json to_json(const NodeIdentity& n) {
  json gpus = json::array();
  for (const auto& g : n.gpus)
    gpus.push_back(
        {{"name", g.name}, {"uuid", g.uuid}, {"serial", g.serial}, {"pci_bus_id", g.pci_bus_id}, {"board", g.board}});
  return {{"hostname", n.hostname},
          {"gpus", gpus},
          {"versions", n.versions},
          {"started_utc", n.started_utc},
          {"finished_utc", n.finished_utc},
          {"build_type", n.build_type},
          {"git_sha", n.git_sha},
          {"tool_version", n.tool_version},
          {"missing", n.missing}};
}

}  // namespace rb::reports
