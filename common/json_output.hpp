// The one way ringbench turns JSON into text. JSON text must be UTF-8, but what goes into it is not
// always: a path or a command line is the operating system's bytes (`--out $'bad\xff'`), and
// nlohmann's dump throws at a byte that is not UTF-8, which after a sweep cost its results.json. The
// rule, for every JSON file and every JSON printed (docs/formats.md): a byte that is not UTF-8 is
// written as U+FFFD, the replacement character. The files themselves keep their names.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rb {

// `j` as JSON text (indent < 0: on one line), any byte that is not UTF-8 replaced by U+FFFD.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace rb
