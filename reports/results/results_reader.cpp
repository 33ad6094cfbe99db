// Reading and validating results files.
#include "reports/results/results_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/json_output.hpp"
#include "reports/results/results_aliases.hpp"
#include "reports/results/results_upgrade.hpp"
#include "reports/results/results_values.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& path, const json& value, const std::string& rule) {
  throw InputError(fmt::format("{}: {}", source, path.empty() ? "/" : path), json_text(value), rule);
}

void require(const json& obj, const std::string& source, const std::string& path, const char* key,
             bool (json::*is)() const noexcept, const char* what) {
  if (!obj.contains(key))
    fail(source, path + "/" + key, json(nullptr), fmt::format("required field is missing ({})", what));
  if (!(obj.at(key).*is)()) fail(source, path + "/" + key, obj.at(key), fmt::format("must be {}", what));
}

// A pass of over a day (8.64e7 ms) is not one this harness times.
constexpr double kMaxPassMs = 8.64e7;
constexpr const char* kTimeRule = "must be a time in [0, 8.64e7] ms (a day)";

void validate_run(const json& run, const std::string& source, const std::string& path) {
  if (!run.is_object()) fail(source, path, run, "a run must be an object");
  require(run, source, path, "config", &json::is_object, "an object");
  require(run, source, path, "status", &json::is_string, "a string");
  // A record names the format it was written in (1.0.0 on): a results.jsonl has no header, so a
  // line from a newer ringbench is refused here as a newer document is.
  if (run.contains("schema_version")) {
    const json& v = run.at("schema_version");
    int ma = 0, mi = 0, pa = 0, our = 0;
    parse_semver(kResultsSchemaVersion, our, mi, pa);
    if (!v.is_string() || !parse_semver(v.get<std::string>(), ma, mi, pa))
      fail(source, path + "/schema_version", v, "must be MAJOR.MINOR.PATCH");
    if (ma > our || ma < kResultsOldestMajor)
      fail(source, path + "/schema_version", v,
           fmt::format("this ringbench reads major versions {} to {} ({})", kResultsOldestMajor, our,
                       kResultsSchemaVersion));
  }
  const auto& status = run.at("status").get_ref<const std::string&>();
  if (status != "ok" && status != "failed" && status != "skipped")
    fail(source, path + "/status", run.at("status"), "must be one of: ok, failed, skipped");
  const auto& cfg = run.at("config");
  const std::string cpath = path + "/config";
  require(cfg, source, cpath, "id", &json::is_string, "a string");
  for (const char* k : {"seq", "cp", "heads", "kv_heads", "head_dim"}) {
    require(cfg, source, cpath, k, &json::is_number_integer, "an integer");
    if (cfg.at(k).get<std::int64_t>() <= 0) fail(source, cpath + "/" + k, cfg.at(k), "must be positive");
  }
  for (const char* k : {"split", "variant", "dtype", "backend", "transport"})
    require(cfg, source, cpath, k, &json::is_string, "a string");
  if (status != "ok" && (!run.contains("reason") || !run.at("reason").is_string()))
    fail(source, path + "/reason", run.value("reason", json(nullptr)), "a failed or skipped run must give its reason");
  if (run.contains("timing") && !run.at("timing").is_null()) {
    const auto& t = run.at("timing");
    const std::string tpath = path + "/timing";
    if (!t.is_object()) fail(source, tpath, t, "must be an object or null");
    require(t, source, tpath, "samples_ms", &json::is_array, "an array of numbers");
    // A time outside [0, kMaxPassMs] is no measurement: a negative median made "-893% NOISY", and
    // samples of 1e308 made "+inf% NOISY", which hid a regression.
    for (std::size_t i = 0; i < t.at("samples_ms").size(); ++i) {
      const auto& x = t.at("samples_ms")[i];
      if (!x.is_number() || !(x.get<double>() >= 0 && x.get<double>() <= kMaxPassMs))
        fail(source, fmt::format("{}/samples_ms/{}", tpath, i), x, kTimeRule);
    }
    require(t, source, tpath, "median_ms", &json::is_number, "a number");
    for (const char* k : {"min_ms", "median_ms", "mean_ms", "p90_ms", "p99_ms", "max_ms", "stdev_ms"})
      if (t.contains(k) && t.at(k).is_number() && !(t.at(k).get<double>() >= 0 && t.at(k).get<double>() <= kMaxPassMs))
        fail(source, fmt::format("{}/{}", tpath, k), t.at(k), kTimeRule);
  }
}

// The field types as a tree of path segments, so one walk of a document checks them all.
struct TypeNode {
  std::string key;     // "*": every element or member
  unsigned kinds = 0;  // 0: any type
  std::vector<TypeNode> children;
};

const TypeNode& type_tree() {
  static const TypeNode root = [] {
    TypeNode r;
    for (const FieldType& f : results_field_types()) {
      TypeNode* n = &r;
      std::string_view rest = f.path.substr(1);
      for (bool more = true; more;) {
        const auto slash = rest.find('/');
        const std::string_view key = rest.substr(0, slash);
        auto it = std::find_if(n->children.begin(), n->children.end(), [&](const TypeNode& c) { return c.key == key; });
        if (it == n->children.end()) {
          n->children.push_back(TypeNode{std::string(key), 0, {}});
          it = std::prev(n->children.end());
        }
        n = &*it;
        more = slash != std::string_view::npos;
        if (more) rest = rest.substr(slash + 1);
      }
      n->kinds = f.kinds;
    }
    return r;
  }();
  return root;
}

bool has_kind(const json& v, unsigned kinds) {
  switch (v.type()) {
    case json::value_t::null: return kinds & kNull;
    case json::value_t::boolean: return kinds & kBoolean;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return kinds & (kInteger | kNumber);
    case json::value_t::number_float: return kinds & kNumber;
    case json::value_t::string: return kinds & kString;
    case json::value_t::array: return kinds & kArray;
    case json::value_t::object: return kinds & kObject;
    default: return false;
  }
}

std::string kinds_text(unsigned kinds) {
  std::string out;
  for (const auto& [k, name] :
       {std::pair{kBoolean, "true or false"}, std::pair{kInteger, "an integer"}, std::pair{kNumber, "a number"},
        std::pair{kString, "a string"}, std::pair{kArray, "an array"}, std::pair{kObject, "an object"},
        std::pair{kNull, "null"}})
    if (kinds & k) out += (out.empty() ? "" : " or ") + std::string(name);
  return out;
}

// A member's name as a JSON pointer writes it.
std::string pointer_token(const std::string& key) {
  std::string t;
  for (const char c : key) {
    if (c == '~' || c == '/') {
      t.push_back('~');
      t.push_back(c == '~' ? '0' : '1');
    } else {
      t.push_back(c);
    }
  }
  return t;
}

void check_types(const json& v, const TypeNode& node, const std::string& source, std::string& path) {
  if (node.kinds != 0 && !has_kind(v, node.kinds))
    fail(source, path, v, fmt::format("must be {} (the type the results schema gives it)", kinds_text(node.kinds)));
  for (const TypeNode& child : node.children) {
    const std::size_t at = path.size();
    if (child.key == "*" && v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        path += fmt::format("/{}", i);
        check_types(v[i], child, source, path);
        path.resize(at);
      }
    } else if (child.key == "*" && v.is_object()) {
      for (const auto& [k, x] : v.items()) {
        path += '/';
        path += pointer_token(k);
        check_types(x, child, source, path);
        path.resize(at);
      }
    } else if (v.is_object()) {
      if (const auto it = v.find(child.key); it != v.end()) {
        path += '/';
        path += pointer_token(child.key);
        check_types(*it, child, source, path);
        path.resize(at);
      }
    } else if (v.is_array()) {
      std::size_t i = 0;
      const auto [end, ec] = std::from_chars(child.key.data(), child.key.data() + child.key.size(), i);
      if (ec == std::errc() && end == child.key.data() + child.key.size() && i < v.size()) {
        path += '/';
        path += child.key;
        check_types(v[i], child, source, path);
        path.resize(at);
      }
    }
  }
}

}  // namespace

void convert_results(json& doc, const std::string& source, std::optional<int> unversioned_major) {
  try {
    upgrade_results(doc, unversioned_major);
  } catch (const json::exception&) {
    // Unreachable while validate_results checks every field the conversion reads; should one be
    // missed, the message is still ringbench's and not the JSON library's.
    throw InputError(source, "a field of an unexpected type",
                     fmt::format("an older results file must convert to {}", kResultsSchemaVersion));
  }
}

// Digits only, three parts, each within an int: sscanf's %d took " 1", "+1", "-0" and wrapped
// "4294967297" to 1, so a far-future major read as 1.x.
bool parse_semver(const std::string& s, int& major, int& minor, int& patch) {
  int parts[3] = {0, 0, 0};
  const char* p = s.data();
  const char* const end = s.data() + s.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (p == end || *p != '.') return false;
      ++p;
    }
    if (p == end || *p < '0' || *p > '9') return false;
    const auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc()) return false;  // out of range
    p = next;
  }
  if (p != end) return false;
  major = parts[0];
  minor = parts[1];
  patch = parts[2];
  return true;
}

void validate_results(const json& doc, const std::string& source, ResultsFile* out) {
  if (!doc.is_object()) fail(source, "", json(doc.type_name()), "a results file must be a JSON object");
  require(doc, source, "", "schema", &json::is_string, "a string");
  if (doc.at("schema") != kResultsSchema)
    fail(source, "/schema", doc.at("schema"), fmt::format("must be \"{}\"", kResultsSchema));
  require(doc, source, "", "schema_version", &json::is_string, "a string");
  int ma = 0, mi = 0, pa = 0, our = 0, x = 0, y = 0;
  if (!parse_semver(doc.at("schema_version").get<std::string>(), ma, mi, pa))
    fail(source, "/schema_version", doc.at("schema_version"), "must be MAJOR.MINOR.PATCH");
  parse_semver(kResultsSchemaVersion, our, x, y);
  if (ma > our || ma < kResultsOldestMajor)
    fail(source, "/schema_version", doc.at("schema_version"),
         fmt::format("this ringbench reads major versions {} to {} ({}; older ones converted on read); use a "
                     "matching ringbench",
                     kResultsOldestMajor, our, kResultsSchemaVersion));
  require(doc, source, "", "runs", &json::is_array, "an array");
  const auto& runs = doc.at("runs");
  std::map<std::string, std::size_t> first_of;  // a results file holds one record per configuration
  for (std::size_t i = 0; i < runs.size(); ++i) {
    validate_run(runs[i], source, fmt::format("/runs/{}", i));
    const auto& id = runs[i].at("config").at("id").get_ref<const std::string&>();
    if (const auto [it, fresh] = first_of.emplace(id, i); !fresh)
      fail(source, fmt::format("/runs/{}/config/id", i), runs[i].at("config").at("id"),
           fmt::format("is also /runs/{}: one configuration, two records (which one is measured?)", it->second));
  }
  std::string path;
  check_types(doc, type_tree(), source, path);
  check_results_values(doc, source);
  if (out) {
    out->major = ma;
    out->minor = mi;
    out->patch = pa;
  }
}

ResultsFile read_results(const std::filesystem::path& path) {
  ResultsFile f;
  f.path = path;
  if (path.extension() == ".jsonl") {
    std::string note;
    f.doc = assemble_results(path, json::object(), &note);
    if (!note.empty()) f.notes.push_back(note);
  } else {
    f.doc = read_json_file(path, "results", "a results file");
  }
  validate_results(f.doc, path.string(), &f);
  // A results.jsonl's lines carried no version before 1.0.0: a line without one is 0.x.
  convert_results(f.doc, path.string(), path.extension() == ".jsonl" ? std::optional<int>(0) : std::nullopt);
  parse_semver(f.doc.at("schema_version").get<std::string>(), f.major, f.minor, f.patch);  // as converted
  check_aliases(f.doc, path.string());
  return f;
}

bool emulated_timings(const ResultsFile& f) {
  const auto tool = f.doc.find("tool");
  if (tool == f.doc.end() || !tool->is_object()) return false;
  const auto device = tool->find("device");
  return device != tool->end() && device->is_string() && device->get<std::string>() == "emulated";
}

void refuse_emulated_timings(const ResultsFile& f, std::string_view command) {
  if (!emulated_timings(f)) return;
  throw InputError(f.path.string() + ": /tool/device", "\"emulated\"",
                   fmt::format("ringbench-emu's timings are the host's, not a GPU's: `{}` does not judge them",
                               command));
}

}  // namespace rb::reports
