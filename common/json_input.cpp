// The bounded JSON parser for outside input.
#include "common/json_input.hpp"

#include <fstream>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>

#include "common/error.hpp"

namespace rb {

using nlohmann::json;

json parse_json_input(std::string_view text, const std::string& source, const std::string& what) {
  // The callback sees every object open and close, so it keeps the keys seen at each open object;
  // throwing from it stops the parse before a deeper level is ever built.
  std::vector<std::set<std::string>> keys;
  const auto bytes = static_cast<std::size_t>(text.size());
  json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth)
          throw InputError(source, fmt::format("JSON nested more than {} levels deep", kMaxJsonDepth),
                           fmt::format("{} nests at most {} levels", what, kMaxJsonDepth));
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && parsed.is_string() && !keys.back().insert(parsed.get<std::string>()).second)
          throw InputError(source, fmt::format("key {} given twice in one object", parsed.dump()),
                           fmt::format("{} names each key once", what));
        break;
      default: break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::parse_error& e) {
    const std::size_t at = e.byte > 0 && e.byte <= bytes ? e.byte : bytes;
    throw InputError(fmt::format("{}: byte {}", source, at), "<malformed JSON>",
                     fmt::format("{} must be valid JSON ({})", what, e.what()));
  } catch (const json::exception& e) {
    // Valid syntax the library still refuses, e.g. a number beyond double range.
    throw InputError(source, "<unrepresentable JSON>", fmt::format("{} must be valid JSON ({})", what, e.what()));
  }
}

std::string read_input_file(const std::filesystem::path& path, const std::string& field, std::size_t max_bytes,
                            const std::string& limit_flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(field, path.string(), "the file does not exist or cannot be read");
  if (S_ISDIR(st.st_mode)) throw InputError(field, path.string(), "is a folder; give a file");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw InputError(field, path.string(), "is not a regular file or a pipe (a device?)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(field, path.string(), "the file cannot be opened for reading");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputError(field, path.string(),
                       limit_flag.empty()
                           ? fmt::format("is larger than {} MiB, the most ringbench reads", max_bytes >> 20)
                           : fmt::format("is larger than {} MiB; raise {} to read it", max_bytes >> 20, limit_flag));
  }
  return text;
}

json read_json_file(const std::filesystem::path& path, const std::string& field, const std::string& what) {
  return parse_json_input(read_input_file(path, field, kMaxJsonFileBytes), path.string(), what);
}

}  // namespace rb
