// The reader checks the type of every field the results schema gives one (results_field_types), so
// report, compare, accept and trend never meet a field of another type: the table is held to the
// schema here, and a wrong type is refused with its JSON path, in the current format and in a 0.x
// file that the reader converts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <unistd.h>

#include "common/error.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

const std::filesystem::path kSource(RINGBENCH_SOURCE_DIR);

unsigned kinds_of_type(const std::string& t) {
  static const std::map<std::string, unsigned> names{{"null", kNull},     {"boolean", kBoolean}, {"integer", kInteger},
                                                     {"number", kNumber}, {"string", kString},   {"array", kArray},
                                                     {"object", kObject}};
  return names.at(t);
}

// Every path of the schema that constrains its type, with the types it allows (a union over the
// alternatives of oneOf), as results_field_types writes them.
class SchemaTypes {
 public:
  explicit SchemaTypes(const json& schema) : defs_(schema.at("$defs")) { walk(schema, ""); }
  const std::map<std::string, unsigned>& paths() const { return paths_; }

 private:
  const json& resolve(const json& n) const {
    if (!n.contains("$ref")) return n;
    const std::string ref = n.at("$ref");
    return resolve(defs_.at(ref.substr(ref.rfind('/') + 1)));
  }
  unsigned kinds(const json& node) const {
    const json& n = resolve(node);
    unsigned k = 0;
    if (n.contains("oneOf"))
      for (const auto& alt : n.at("oneOf")) k |= kinds(alt);
    if (n.contains("type")) {
      const json& t = n.at("type");
      if (t.is_array())
        for (const auto& x : t) k |= kinds_of_type(x);
      else
        k |= kinds_of_type(t);
    } else if (n.contains("enum")) {
      for (const auto& v : n.at("enum")) k |= v.is_null() ? kNull : kString;
    } else if (n.contains("const")) {
      k |= kString;
    }
    return k;
  }
  void walk(const json& node, const std::string& path) {
    const json& n = resolve(node);
    if (const unsigned k = kinds(n); k != 0 && !path.empty()) paths_[path] |= k;
    std::vector<const json*> alts{&n};
    for (std::size_t i = 0; i < alts.size(); ++i) {
      const json& m = resolve(*alts[i]);
      if (m.contains("oneOf"))
        for (const auto& alt : m.at("oneOf")) alts.push_back(&alt);
      if (m.contains("properties"))
        for (const auto& [key, sub] : m.at("properties").items()) walk(sub, path + "/" + key);
      if (m.contains("items") && m.at("items").is_object()) walk(m.at("items"), path + "/*");
      if (m.contains("prefixItems"))
        for (std::size_t j = 0; j < m.at("prefixItems").size(); ++j)
          walk(m.at("prefixItems")[j], path + "/" + std::to_string(j));
      if (m.contains("additionalProperties") && m.at("additionalProperties").is_object())
        walk(m.at("additionalProperties"), path + "/*");
    }
  }
  const json& defs_;
  std::map<std::string, unsigned> paths_;
};

TEST(ResultsTypes, TheReadersTableIsTheSchemas) {
  const json schema = json::parse(std::ifstream(kSource / "reports/results/results.schema.json"));
  const SchemaTypes from_schema(schema);
  std::map<std::string, unsigned> table;
  for (const FieldType& f : results_field_types()) table[std::string(f.path)] = f.kinds;
  ASSERT_GT(from_schema.paths().size(), 150u);  // the walk found the schema's fields
  for (const auto& [path, kinds] : from_schema.paths()) {
    ASSERT_TRUE(table.count(path)) << path << " has a type in the schema but not in results_field_types()";
    EXPECT_EQ(table.at(path), kinds) << path;
  }
  // Fields the schema leaves untyped that a reader reads: why the sweep stopped, 1.x's rank mode,
  // and the GPU bus id.
  const std::set<std::string> older{"/stopped", "/runs/*/timing/rank_mode", "/runs/*/gpu_state/start/*/pci_bus_id",
                                    "/runs/*/gpu_state/end/*/pci_bus_id"};
  for (const auto& [path, kinds] : table)
    EXPECT_TRUE(from_schema.paths().count(path) || older.count(path)) << path << " is not in the schema";
}

json fixture() { return json::parse(std::ifstream(kSource / "tests/data/results-0.3.0-h200.json")); }

std::string where_of(const json& doc, const std::string& source) {
  try {
    validate_results(doc, source);
  } catch (const InputError& e) {
    return e.where();
  }
  return "(accepted)";
}

TEST(ResultsTypes, AWrongTypeIsRefusedWithItsPath) {
  const json good = fixture();
  ASSERT_EQ(where_of(good, "f.json"), "(accepted)");
  const struct {
    const char* pointer;
    json value;
  } cases[] = {
      {"/runs/0/correctness/checked", "yes"},
      {"/runs/0/correctness/passed", nullptr},
      {"/runs/1/timing/rank_mode", 7},                       // read when converting 0.x
      {"/runs/0/timeline/intervals/0/kind", json::array()},  // likewise
      {"/runs/0/metrics/per_rank/0/rank", "0"},
      {"/runs/0/metrics/attention_tflops", "fast"},
      {"/runs/0/timing/count", 2.5},  // an integer field takes no fraction
      {"/runs/0/plan", "none"},
      {"/host/gpus", json::object()},
      {"/tool/command_line", json::array({"ringbench"})},
  };
  for (const auto& c : cases) {
    json doc = good;
    doc[json::json_pointer(c.pointer)] = c.value;
    EXPECT_EQ(where_of(doc, "f.json"), std::string("f.json: ") + c.pointer);
  }
  // A member's name is written as a JSON pointer writes it.
  json doc = good;
  doc["host"]["libraries"] = {{"a/b", {{"c~d", 1}}}};
  EXPECT_EQ(where_of(doc, "f.json"), "f.json: /host/libraries/a~1b/c~0d");
}

TEST(ResultsTypes, ReadingAnOldFileNamesThePathNotTheLibrary) {
  json doc = fixture();
  doc["runs"][1]["timing"]["rank_mode"] = 7;
  const auto path = std::filesystem::temp_directory_path() / ("rb-types-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << doc;
  try {
    read_results(path);
    ADD_FAILURE() << "a wrong-typed 0.x field was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), path.string() + ": /runs/1/timing/rank_mode");
    EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rb::reports
