// The one writer of results.jsonl and results.json (docs/design.md §8). Every round of a configuration
// appends its record so far to results.jsonl, flushed at once, so a crash or a kill loses nothing
// already measured; results.json is rebuilt from results.jsonl at the end (or by `ringbench
// report`), keeping the last line of each configuration.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/output_file.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {

inline constexpr const char* kResultsSchema = "ringbench.results";
// MAJOR changes break readers; MINOR adds fields; PATCH fixes. docs/formats.md keeps the history.
inline constexpr const char* kResultsSchemaVersion = "2.15.0";
// The oldest major version readers still take, converted on read (reports/results/results_upgrade.hpp).
inline constexpr int kResultsOldestMajor = 0;

// The files a sweep writes into its output folder.
inline constexpr const char* kSweepFiles[] = {"results.json", "results.jsonl", "report.html"};

// A sweep's output folder and the files it writes there, each the output of `flag`: what a command
// that runs a sweep (run, accept, each build of ab) gives check_outputs_apart.
std::vector<NamedPath> sweep_outputs(const std::string& flag, const std::filesystem::path& dir);

class ResultsWriter {
 public:
  // Creates dir if needed and starts a fresh results.jsonl there. results.json, results.jsonl and
  // report.html must each be a regular file or absent (common/output_file.hpp).
  explicit ResultsWriter(std::filesystem::path dir);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Appends one run as a line (run_record_writer.hpp) and flushes it to the kernel before returning.
  void append(const RunRecord& run);
  // Writes results.json: `header` (tool, host, profile, ...) plus every run in results.jsonl, in
  // the order of `order`'s ids where given (the sweep's), else in the order of their first lines.
  std::filesystem::path finish(const nlohmann::json& header, const std::vector<std::string>& order = {});

  const std::filesystem::path& jsonl_path() const { return jsonl_; }
  int runs_written() const { return runs_; }

 private:
  std::filesystem::path dir_, jsonl_;
  std::FILE* out_ = nullptr;
  int runs_ = 0;
};

// Builds results.json from a results.jsonl and a header; used by finish() and to recover a sweep
// that was killed. A torn last line (the sweep was killed while writing it) is skipped, and `note`,
// if given, says so; a line that does not parse anywhere else means the file was damaged or mixed,
// an InputError naming the line. Of several lines with one config.id the last is kept, in the place
// of the first.
nlohmann::json assemble_results(const std::filesystem::path& jsonl, const nlohmann::json& header,
                                std::string* note = nullptr);

}  // namespace rb::reports
