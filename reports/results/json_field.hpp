// Tolerant reads of one field of a JSON object, for the code in reports/results/ that turns a
// validated results document into types. validate_results has already named any field of the wrong
// type, so these never throw: a field that is absent, null or of another type reads as absent.
#pragma once

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace rb::reports {

// obj[key], or null when `obj` is not an object or lacks the key.
inline const nlohmann::json& json_member(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json absent;
  return obj.is_object() && obj.contains(key) ? obj.at(key) : absent;
}

// A finite number, or nullopt when the field is absent, null, not a number or not finite.
inline std::optional<double> json_finite(const nlohmann::json& obj, const char* key) {
  const nlohmann::json& v = json_member(obj, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

}  // namespace rb::reports
