// A c = 1 alias (results 2.6.0, `alias_of`): a record that carries another configuration's
// measurement, since at c = 1 every split and variant is one computation (docs/design.md, "c = 1
// runs once"). Readers count an alias once and compare leaves it out, so an alias the sweep never
// wrote could hide a configuration: the reader checks each one against the rule the sweep keeps.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rb::reports {

// Refuses, with an InputError naming `source`, the run's JSON path and the value: an `alias_of` that
// is not a config id of another run of this document, that names a run which is itself an alias (a
// chain or a circle: which one was measured?), or that joins two configurations which are not one
// computation: both at c = 1, equal in every field of their id but split and variant.
void check_aliases(const nlohmann::json& doc, const std::string& source);

}  // namespace rb::reports
