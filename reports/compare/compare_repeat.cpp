// Reading the first compare and confirming a SLOWER by its repeat.
#include "reports/compare/compare_repeat.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::optional<Verdict> verdict_named(const std::string& name) {
  for (const Verdict v : kVerdicts)
    if (to_string(v) == name) return v;
  return std::nullopt;
}

}  // namespace

std::map<std::string, FirstVerdict> read_first_compare(const std::filesystem::path& file, const std::string& flag) {
  const json doc = read_json_file(file, flag, "a compare's JSON");
  const std::string where = fmt::format("{}: {}", flag, file.string());
  if (!doc.is_object() || doc.value("schema", json()) != "ringbench.compare")
    throw InputError(where, "/schema", "must be ringbench.compare (written by `ringbench compare --json-out`)");
  const json& version = doc.value("schema_version", json());
  int major = 0, minor = 0, patch = 0;
  if (!version.is_string() || !parse_semver(version.get<std::string>(), major, minor, patch) ||
      (major == 0 && minor < 3))
    throw InputError(where, "/schema_version", "must be 0.3.0 or later: the compare that controls the error rate");
  const json& runs = doc.value("runs", json());
  if (!runs.is_array()) throw InputError(where, "/runs", "must be an array");
  std::map<std::string, FirstVerdict> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const std::string at = fmt::format("/runs/{}", i);
    if (!r.is_object() || !r.value("id", json()).is_string() || !r.value("verdict", json()).is_string())
      throw InputError(where, at, "must be an object with a string id and verdict");
    const auto v = verdict_named(r.at("verdict").get<std::string>());
    if (!v) throw InputError(where, at + "/verdict", fmt::format("{} is no verdict", r.at("verdict").dump()));
    FirstVerdict f{*v, std::nullopt};
    if (r.value("change", json()).is_number()) f.change = r.at("change").get<double>();
    out[r.at("id").get<std::string>()] = f;
  }
  return out;
}

void apply_repeat(Comparison& repeat, const std::map<std::string, FirstVerdict>& first, const std::string& first_path) {
  repeat.repeat_of = first_path;
  for (RunComparison& rc : repeat.runs) {
    const auto it = first.find(rc.id);
    if (it == first.end()) {
      if (rc.verdict == Verdict::slower) {
        rc.regression = false;
        rc.note = "not a regression: SLOWER in the repeat only (not in the first compare)" +
                  (rc.note.empty() ? std::string() : "; " + rc.note);
      }
      continue;
    }
    const FirstVerdict& f = it->second;
    rc.first_verdict = f.verdict;
    const std::string was = f.change ? fmt::format("{} {:+.1f}%", to_string(f.verdict), 100 * *f.change)
                                     : std::string(to_string(f.verdict));
    std::string said;
    if (rc.verdict == Verdict::slower && f.verdict == Verdict::slower) {
      said = fmt::format("repeated: SLOWER in both pairs (first {})", was);
    } else if (rc.verdict == Verdict::slower) {
      rc.regression = false;
      said = fmt::format("not a regression: SLOWER in the repeat only (first {})", was);
    } else if (f.verdict == Verdict::slower) {
      said = fmt::format("not repeated: first {}", was);
    } else {
      said = fmt::format("first {}", was);
    }
    rc.note = rc.note.empty() ? said : said + "; " + rc.note;
  }
}

}  // namespace rb::reports
