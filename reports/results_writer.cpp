// results.jsonl appending and results.json assembly.
#include "reports/results_writer.hpp"

#include <fstream>
#include <map>

#include <fmt/format.h>
#include <unistd.h>

#include "common/error.hpp"

namespace rb::reports {

ResultsWriter::ResultsWriter(std::filesystem::path dir) : dir_(std::move(dir)), jsonl_(dir_ / "results.jsonl") {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw InputError("--out", dir_.string(), fmt::format("cannot create the output directory: {}", ec.message()));
  out_ = std::fopen(jsonl_.c_str(), "w");
  if (!out_) throw InputError("--out", jsonl_.string(), "cannot open results.jsonl for writing");
}

ResultsWriter::~ResultsWriter() {
  if (out_) std::fclose(out_);
}

void ResultsWriter::append(const nlohmann::json& run) {
  // Each record names its format, so a results.jsonl (which has no header) is read in the right one.
  nlohmann::json rec = run;
  rec["schema_version"] = kResultsSchemaVersion;
  const std::string line = rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size() || std::fflush(out_) != 0)
    throw Error(fmt::format("cannot write {}", jsonl_.string()));
  ::fsync(::fileno(out_));
  ++runs_;
}

nlohmann::json assemble_results(const std::filesystem::path& jsonl, const nlohmann::json& header, int* skipped) {
  nlohmann::json doc = header;
  doc["schema"] = kResultsSchema;
  doc["schema_version"] = kResultsSchemaVersion;
  doc["runs"] = nlohmann::json::array();
  std::ifstream in(jsonl);
  if (!in) throw InputError("results.jsonl", jsonl.string(), "cannot be opened for reading");
  int bad = 0;
  // A configuration's rounds each append its record so far: the last line of an id is its record,
  // kept at the place of its first line, so the runs stay in sweep order.
  std::map<std::string, std::size_t> place;
  auto& runs = doc["runs"];
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto run = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (run.is_discarded()) {
      ++bad;
      continue;
    }
    const auto* id = run.is_object() && run.contains("config") && run["config"].is_object() &&
                             run["config"].contains("id") && run["config"]["id"].is_string()
                         ? run["config"]["id"].get_ptr<const std::string*>()
                         : nullptr;
    if (id) {
      const auto [it, fresh] = place.emplace(*id, runs.size());
      if (!fresh) {
        runs[it->second] = std::move(run);
        continue;
      }
    }
    runs.push_back(std::move(run));
  }
  if (skipped) *skipped = bad;
  return doc;
}

std::filesystem::path ResultsWriter::finish(const nlohmann::json& header) {
  std::fflush(out_);
  const auto path = dir_ / "results.json";
  const auto tmp = dir_ / "results.json.tmp";
  {
    std::ofstream o(tmp);
    o << assemble_results(jsonl_, header).dump(1) << "\n";
    if (!o) throw Error(fmt::format("cannot write {}", tmp.string()));
  }
  std::filesystem::rename(tmp, path);  // readers never see a half-written results.json
  return path;
}

}  // namespace rb::reports
