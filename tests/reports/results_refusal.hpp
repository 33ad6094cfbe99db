// Shared by the tests of the results reader's checks: where validate_results refuses a document,
// as the JSON path its InputError names ("f.json: /runs/0/..."), or "(accepted)".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports::test {

inline std::string refusal_where(const nlohmann::json& doc) {
  try {
    validate_results(doc, "f.json");
  } catch (const InputError& e) {
    return e.where();
  }
  return "(accepted)";
}

}  // namespace rb::reports::test
