// libFuzzer target: the results reader's validation and the conversion of older versions. Any JSON
// either validates and converts or fails with rb::InputError naming the JSON path; nothing else may
// escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "reports/results/node_identity.hpp"
#include "reports/results/results_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // The parser every results file goes through: depth limit and duplicate keys included.
    const auto doc = rb::parse_json_input(text, "fuzz.json", "a results file");
    rb::reports::validate_results(doc, "fuzz.json");
    auto converted = doc;
    rb::reports::convert_results(converted, "fuzz.json");
    // What accept and fleet read of a validated header: the node's identity, never a throw.
    (void)rb::reports::to_json(rb::reports::node_identity(converted));
    auto as_jsonl = doc;  // runs without a version read as 0.x, as from a results.jsonl
    rb::reports::convert_results(as_jsonl, "fuzz.jsonl", 0);
  } catch (const rb::InputError&) {
  }
  return 0;
}
