// Reading the first compare and confirming a SLOWER by its repeat.
#include "reports/compare/compare_repeat.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/json_output.hpp"
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

FirstCompare read_first_compare(const std::filesystem::path& file, const std::string& flag, const Metric& metric) {
  const json doc = read_json_file(file, flag, "a compare's JSON");
  // Errors name the flag, the file and the JSON path, with the value found there.
  auto refuse = [&](const std::string& pointer, const json& value, const std::string& rule) {
    throw InputError(fmt::format("{}: {}: {}", flag, file.string(), pointer), json_text(value), rule);
  };
  const json none;
  const json& schema = doc.is_object() ? doc.value("schema", none) : doc;
  if (schema != "ringbench.compare")
    refuse("/schema", schema, "must be ringbench.compare (written by `ringbench compare --json-out`)");
  const json& version = doc.value("schema_version", none);
  int major = 0, minor = 0, patch = 0;
  if (!version.is_string() || !parse_semver(version.get<std::string>(), major, minor, patch) || major != 0 || minor < 3)
    refuse("/schema_version", version,
           fmt::format("must be 0.3.0 or a later 0.x (the compare that controls the error rate; this ringbench "
                       "writes {})",
                       kCompareSchemaVersion));
  const json& name = doc.value("metric", none).is_object() ? doc.at("metric").value("name", none) : none;
  if (!name.is_string()) refuse("/metric/name", name, "must be the metric's name, as compare writes it");
  if (name.get<std::string>() != metric.compare_name)
    refuse("/metric/name", name,
           fmt::format("FIRST compared this metric, this compare {} (--metric): a repeat confirms the same metric",
                       json_text(json(std::string(metric.compare_name)))));
  FirstCompare out;
  const json& paired = doc.value("paired", none);
  if (!paired.is_boolean()) refuse("/paired", paired, "must be true or false");
  out.paired = paired.get<bool>();
  if (doc.value("base", none).is_string()) out.base = doc.at("base").get<std::string>();
  if (doc.value("new", none).is_string()) out.neu = doc.at("new").get<std::string>();
  const json& runs = doc.value("runs", none);
  if (!runs.is_array()) refuse("/runs", runs.is_null() ? json("(none)") : json(runs.type_name()), "must be an array");
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const std::string at = fmt::format("/runs/{}", i);
    if (!r.is_object() || !r.value("id", none).is_string() || !r.value("verdict", none).is_string())
      refuse(at, json(r.type_name()), "must be an object with a string id and verdict");
    const std::string& id = r.at("id").get_ref<const std::string&>();
    if (const auto [it, fresh] = seen.emplace(id, i); !fresh)
      refuse(at + "/id", r.at("id"),
             fmt::format("is also /runs/{}: one configuration, two verdicts (which one counts?)", it->second));
    const auto v = verdict_named(r.at("verdict").get<std::string>());
    if (!v) refuse(at + "/verdict", r.at("verdict"), "is no verdict");
    FirstVerdict f{*v, std::nullopt};
    if (r.value("change", none).is_number()) f.change = r.at("change").get<double>();
    out.verdicts[id] = f;
  }
  return out;
}

void apply_repeat(Comparison& repeat, const FirstCompare& first_compare, const std::string& first_path,
                  const std::string& flag) {
  auto refuse = [&](const std::string& pointer, const json& value, const std::string& rule) {
    throw InputError(fmt::format("{}: {}: {}", flag, first_path, pointer), json_text(value), rule);
  };
  if (first_compare.paired != repeat.paired)
    refuse("/paired", first_compare.paired,
           fmt::format("FIRST compared {}, this compare {}: a repeat measures what FIRST measured, again",
                       first_compare.paired ? "an A/B pair" : "two files that are no A/B pair",
                       repeat.paired ? "an A/B pair" : "two files that are no A/B pair"));
  auto same_file = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec) && !ec;
  };
  if (same_file(first_compare.base, repeat.base_path) && same_file(first_compare.neu, repeat.new_path))
    refuse("/base", first_compare.base,
           fmt::format("FIRST compared these very files ({} and {}); a repeat compares a fresh pair, measured again",
                       repeat.base_path, repeat.new_path));
  const auto& first = first_compare.verdicts;
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
