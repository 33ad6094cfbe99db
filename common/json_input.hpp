// Parsing JSON that comes from outside ringbench (profiles, results files, traces): one parser with
// the limits a hostile file needs. Nesting deeper than kMaxJsonDepth and an object naming a key twice
// are input errors, as is malformed JSON; every error is an InputError naming the source and the
// byte. The depth limit also bounds every later recursion over the value (dumps in error messages).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rb {

// Far above any format ringbench reads (a results file nests about 6 deep, a Kineto trace 5).
inline constexpr int kMaxJsonDepth = 128;

// `what` names the kind of document for the rule text ("a profile", "a results file").
nlohmann::json parse_json_input(std::string_view text, const std::string& source, const std::string& what);

// Reads and parses a file; a missing or unreadable file is an InputError naming `field`.
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& field, const std::string& what);

// Reads at most `max_bytes` of a file into memory; more is an InputError that names `limit_flag`,
// the flag that raises the cap, if there is one. Regular files and pipes are read; devices and
// folders are refused, so `/dev/zero` is an error rather than a read without end.
std::string read_input_file(const std::filesystem::path& path, const std::string& field, std::size_t max_bytes,
                            const std::string& limit_flag = "");

// Whole documents ringbench reads as JSON (profiles, results files) stay far below this.
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{4} << 30;

}  // namespace rb
