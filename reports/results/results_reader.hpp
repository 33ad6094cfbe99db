// The one reader of results.json (and of results.jsonl, for a sweep that was killed before it
// finished). It checks the schema name and refuses an unknown MAJOR version, and checks the fields
// every consumer relies on, so `report`, `compare` and `accept` can trust what they get. Errors are
// rb::InputError naming the file, the JSON path, the value and the rule.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

// The JSON types a field of a results file may have, as a set.
enum JsonKind : unsigned {
  kNull = 1,
  kBoolean = 2,
  kInteger = 4,
  kNumber = 8,
  kString = 16,
  kArray = 32,
  kObject = 64
};

// A field the reader checks the type of wherever it is present: `path` is a JSON pointer in which
// `*` stands for every element of an array or every member of an object.
struct FieldType {
  std::string_view path;
  unsigned kinds;  // JsonKind; kNumber takes integers too
};

// Every field the results schema gives a type (tests/reports/test_results_types.cpp holds the two
// together), and the few beyond it that a reader reads. validate_results refuses a field of any
// other type with its JSON path, so no reader ever meets one: report, compare, accept and trend
// read through nlohmann's typed accessors, which throw the library's own error at a wrong type.
std::span<const FieldType> results_field_types();

// Whether the file was measured on the emulated device (tool.device "emulated", 2.14.0:
// ringbench-emu, docs/emulated-device.md), whose timings are the host's, not a GPU's.
bool emulated_timings(const ResultsFile& f);
// Throws InputError (exit 2) for such a file: `command` (compare, accept, fleet) judges timings,
// and these are no GPU's.
void refuse_emulated_timings(const ResultsFile& f, std::string_view command);

// Parses "MAJOR.MINOR.PATCH"; false when malformed.
bool parse_semver(const std::string& s, int& major, int& minor, int& patch);

}  // namespace rb::reports
