// results.jsonl appending and results.json assembly.
#include "reports/results/results_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::reports {

std::vector<NamedPath> sweep_outputs(const std::string& flag, const std::filesystem::path& dir) {
  std::vector<NamedPath> out{{flag, dir, PathKind::folder}};
  for (const char* name : kSweepFiles) out.push_back({flag, dir / name});
  return out;
}

ResultsWriter::ResultsWriter(std::filesystem::path dir) : dir_(std::move(dir)), jsonl_(dir_ / "results.jsonl") {
  make_output_dir("--out", dir_);
  for (const char* name : kSweepFiles) check_output_file("--out", dir_ / name);
  // O_NOFOLLOW: a link planted since the check fails the open rather than truncating its target,
  // the rule every output follows (common/output_file.hpp).
  const int fd = ::open(jsonl_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    throw InputError("--out", jsonl_.string(),
                     errno == ELOOP ? "is a symbolic link; an output is never written through a link nor replaces one"
                                    : fmt::format("cannot open results.jsonl for writing: {}", std::strerror(errno)));
  out_ = ::fdopen(fd, "w");
  if (!out_) {
    const int err = errno;
    ::close(fd);
    throw Error(fmt::format("cannot open {}: {}", jsonl_.string(), std::strerror(err)));
  }
}

ResultsWriter::~ResultsWriter() {
  if (out_) std::fclose(out_);
}

void ResultsWriter::append(const RunRecord& run) {
  // Each record names its format, so a results.jsonl (which has no header) is read in the right one.
  const std::string line = json_text(to_json(run)) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size() || std::fflush(out_) != 0)
    throw Error(fmt::format("cannot write {}: {}", jsonl_.string(), std::strerror(errno)));
  ::fsync(::fileno(out_));
  ++runs_;
}

nlohmann::json assemble_results(const std::filesystem::path& jsonl, const nlohmann::json& header, std::string* note) {
  nlohmann::json doc = header;
  doc["schema"] = kResultsSchema;
  doc["schema_version"] = kResultsSchemaVersion;
  doc["runs"] = nlohmann::json::array();
  const std::string text = read_input_file(jsonl, "results.jsonl", kMaxJsonFileBytes);
  // A configuration's rounds each append its record so far: the last line of an id is its record,
  // kept at the place of its first line, so the runs stay in sweep order.
  std::map<std::string, std::size_t> place;
  auto& runs = doc["runs"];
  std::size_t from = 0;
  for (int number = 1; from < text.size(); ++number) {
    const auto eol = text.find('\n', from);
    const bool last = eol == std::string::npos || text.find_first_not_of(" \t\r\n", eol) == std::string::npos;
    const std::string_view line(text.data() + from, (eol == std::string::npos ? text.size() : eol) - from);
    from = eol == std::string::npos ? text.size() : eol + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json run;
    try {
      run = parse_json_input(line, fmt::format("{}: line {}", jsonl.string(), number), "a results.jsonl line");
    } catch (const InputError& e) {
      // A results.json (pretty-printed: its first line is a lone brace) given where a results.jsonl
      // is read is the likelier mistake than a damaged file, and its remedy is a rename.
      if (number == 1 && !last &&
          (line.find_first_not_of(" \t\r{[") == std::string_view::npos || nlohmann::json::accept(text)))
        throw InputError(jsonl.string(), "a JSON document over several lines",
                         "looks like a pretty-printed JSON document (a results.json), not one JSON record per line: "
                         "name it .json to read it as one");
      // Only the line being written when a sweep was killed may be torn; any other was damaged
      // after it was written, or another writer's line cut into it.
      if (!last)
        throw InputError(e.where(), e.value(),
                         fmt::format("only the last line may be torn (by a kill), and this one is not: the file was "
                                     "damaged, or two writers shared it ({})",
                                     e.rule()));
      if (note)
        *note = fmt::format("{}: skipped the torn last line {} ({} bytes): the sweep was stopped while writing it",
                            jsonl.string(), number, line.size());
      break;
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
  return doc;
}

std::filesystem::path ResultsWriter::finish(const nlohmann::json& header, const std::vector<std::string>& order) {
  std::fflush(out_);
  const auto path = dir_ / "results.json";
  nlohmann::json doc = assemble_results(jsonl_, header);
  // A configuration's first line may come late (a c = 1 alias is written when the configuration it
  // repeats closes): the sweep's own order puts it back in its place.
  if (!order.empty()) {
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < order.size(); ++i) at.emplace(order[i], i);
    const auto rank = [&](const nlohmann::json& run) {
      const auto it = at.find(run.at("config").value("id", std::string()));
      return it == at.end() ? order.size() : it->second;
    };
    auto& runs = doc["runs"];
    std::stable_sort(runs.begin(), runs.end(),
                     [&](const nlohmann::json& a, const nlohmann::json& b) { return rank(a) < rank(b); });
  }
  // Readers never see a half-written results.json: it is written beside and renamed.
  write_output_file("--out", path, json_text(doc, 1) + "\n");
  return path;
}

}  // namespace rb::reports
