// The one reader of results.json (and of results.jsonl, for a sweep that was killed before it
// finished). It checks the schema name and refuses an unknown MAJOR version, and checks the fields
// every consumer relies on, so `report`, `compare` and `accept` can trust what they get. Errors are
// rb::InputError naming the file, the JSON path, the value and the rule.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::reports {

struct ResultsFile {
  std::filesystem::path path;
  nlohmann::json doc;  // the whole document: schema, schema_version, tool, host, profile, runs
  int major = 0, minor = 0, patch = 0;
  std::vector<std::string> notes;  // what the reader skipped, for the command to print
  const nlohmann::json& runs() const { return doc.at("runs"); }
};

// Reads results.json, or a results.jsonl (one run per line; a torn last line is ignored), which is
// wrapped into a document with an empty header. Runs of an older major version come back converted
// to the current one (results_upgrade.hpp); the document then says `converted_from`.
ResultsFile read_results(const std::filesystem::path& path);

// Checks an already parsed document; `source` names it in errors.
void validate_results(const nlohmann::json& doc, const std::string& source, ResultsFile* out = nullptr);

// Converts a validated document of an older major version in place (results_upgrade.hpp);
// `unversioned_major` is the version of runs that carry none (a results.jsonl: 0). Throws
// InputError naming `source` when a field the conversion reads has the wrong type.
void convert_results(nlohmann::json& doc, const std::string& source,
                     std::optional<int> unversioned_major = std::nullopt);

// Parses "MAJOR.MINOR.PATCH"; false when malformed.
bool parse_semver(const std::string& s, int& major, int& minor, int& patch);

}  // namespace rb::reports
