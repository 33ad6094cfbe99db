// The JSON form of a Config, as it appears in every run of results.json (`config`).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/config.hpp"

namespace rb::reports {

nlohmann::json to_json(const Config& c);
// A stable identifier of a configuration, used to match runs across results files.
std::string config_id(const Config& c);
// The fields of `config` that config_id is made of: what was measured. Two runs matched by id must
// agree on each (seed, repeats and warmup may differ: they say how it was measured).
std::span<const std::string_view> config_id_fields();

// A results document's runs of 2.12.0 named their documents by "-docs" and an 8-hex-digit digest;
// since 2.13.0 by "-docs-" and the lengths, or their count and a 128-bit digest. Rewrites in place
// each `config.id` of the old form whose digest is its own `document_lengths`' (and each `alias_of`
// naming one) to the id it has now, so that compare, trend and accept pair a 2.12.0 file's runs with
// a 2.13.0 file's as with each other. An id whose digest is not its lengths' is left as written.
// Returns how many ids were rewritten.
int upgrade_documents_ids(nlohmann::json& doc);

}  // namespace rb::reports
