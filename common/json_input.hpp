// Parsing JSON that comes from outside ringbench (profiles, results files, traces): one parser with
// the limits a hostile file needs. Nesting deeper than kMaxJsonDepth, an object naming a key twice,
// a NUL byte and more values than the parse may build are input errors, as is malformed JSON; every
// error is an InputError naming the source and the byte. The depth limit also bounds every later
// recursion over the value (dumps in error messages).
//
// The parse runs in time linear in the text (a SAX handler builds the document; nlohmann's callback
// parser rescanned the parent after each object, which was quadratic), and its memory is bounded by
// the value counts below, not only by the bytes: a small gzip of `0,0,0,...` is refused once it has
// built kMaxJsonValues values, long before it would exhaust memory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rb {

// Far above any format ringbench reads (a results file nests about 6 deep, a Kineto trace 5).
inline constexpr int kMaxJsonDepth = 128;

// Values one document may hold: a results file of 1,000 configurations holds about 400,000, so 8 Mi
// leaves room for twenty times that and still bounds the document to about 1 GB of memory.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 23;

// Whole documents ringbench reads as JSON (profiles, results files) stay far below this.
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{1} << 30;

// What one parse may build. A streamed element (see JsonArrayStream) counts against
// max_element_values and is forgotten once handed on; everything kept counts against max_values.
struct JsonLimits {
  std::size_t max_values = kMaxJsonValues;
  std::size_t max_element_values = kMaxJsonValues;
  // A profile's numbers are read as a flag's are (common/strict_number.hpp): a number written with
  // a fraction or an exponent whose value is whole within int64 (1e2, 5.0) becomes that integer,
  // read from its text, so `"seq": 1e2` is 100 as `--seq 1e2` is (docs/cli.md, Numbers).
  bool whole_numbers_as_integers = false;
};

// Hands the elements of one array to `sink` one at a time instead of keeping them, so a trace of
// millions of events never exists as one document. The array is the root itself when the root is an
// array, else the root object's member named `member`; in the returned document it stays empty. The
// sink gets the array's JSON pointer ("" or "/member") and the element's index, for its errors.
struct JsonArrayStream {
  std::string member;
  std::function<void(nlohmann::json&& element, const std::string& array_pointer, std::size_t index)> sink;
};

// `what` names the kind of document for the rule text ("a profile", "a results file").
nlohmann::json parse_json_input(std::string_view text, const std::string& source, const std::string& what,
                                const JsonLimits& limits = {});

// The same over a stream, which may be a file, a pipe or a decompressor that never holds the whole
// text; `stream` (optional) names the array whose elements are handed on.
nlohmann::json parse_json_stream(std::istream& in, const std::string& source, const std::string& what,
                                 const JsonArrayStream* stream = nullptr, const JsonLimits& limits = {});

// Reads and parses a file (streamed, never held whole); a missing or unreadable file is an InputError
// naming `field`, as is a file beyond kMaxJsonFileBytes.
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& field, const std::string& what,
                              const JsonLimits& limits = {});

// Reads at most `max_bytes` of a file into memory; more is an InputError that names `limit_flag`,
// the flag that raises the cap, if there is one. Regular files and pipes are read; devices and
// folders are refused, so `/dev/zero` is an error rather than a read without end.
std::string read_input_file(const std::filesystem::path& path, const std::string& field, std::size_t max_bytes,
                            const std::string& limit_flag = "");

}  // namespace rb
