// The bounded JSON parser for outside input.
#include "common/json_input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/strict_number.hpp"

namespace rb {

using nlohmann::json;

namespace {

// Builds the document from nlohmann's SAX events, like its own DOM parser, with the checks a hostile
// file needs made as each event arrives: so a refused document is refused before it is built.
class BoundedDomBuilder {
 public:
  // `input_bytes` tells how many bytes the input has given so far: the parser counts the end of input
  // as one more character, and the byte an error names must be one the file has.
  BoundedDomBuilder(const std::string& source, const std::string& what, const JsonArrayStream* stream,
                    const JsonLimits& limits, std::function<std::size_t()> input_bytes)
      : source_(source), what_(what), stream_(stream), limits_(limits), input_bytes_(std::move(input_bytes)) {}

  json take() { return std::move(root_); }

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    if (limits_.whole_numbers_as_integers) {
      // Read from the text, exactly, as a flag's value is: 1e2 and 5.0 are 100 and 5.
      try {
        if (const auto whole = read_number(text, source_).integer) return scalar(json(*whole));
      } catch (const InputError&) {
        // Not a number the strict reader takes: the double stays, for the field's own rule.
      }
    }
    return scalar(json(v));
  }
  bool string(json::string_t& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t& v) { return scalar(json::binary(std::move(v))); }

  bool start_object(std::size_t /*elements*/) {
    open(json::value_t::object);
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    open(json::value_t::array);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    count();
    json& obj = *stack_.back();
    if (obj.contains(k))
      throw InputError(source_, fmt::format("key {} given twice in one object", json(k).dump()),
                       fmt::format("{} names each key once", what_));
    if (stack_.size() == 1) root_key_ = k;
    member_ = &obj[k];
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/, const json::exception& ex) {
    const bool syntax = dynamic_cast<const json::parse_error*>(&ex) != nullptr;
    throw InputError(fmt::format("{}: byte {}", source_, std::min(position, input_bytes_())),
                     syntax ? "<malformed JSON>" : "<unrepresentable JSON>",
                     fmt::format("{} must be valid JSON ({})", what_, ex.what()));
  }

 private:
  // Counts one value (or one object member) against the limit that applies where it lands.
  void count() {
    if (streamed_ != nullptr) {
      if (++element_values_ > limits_.max_element_values)
        throw InputError(fmt::format("{}: element {}", source_, index_),
                         fmt::format("more than {} JSON values", limits_.max_element_values),
                         fmt::format("one element of {} holds at most {} values", what_, limits_.max_element_values));
    } else if (++kept_values_ > limits_.max_values) {
      throw InputError(source_, fmt::format("more than {} JSON values", limits_.max_values),
                       fmt::format("{} holds at most {} values, the most ringbench builds from one file", what_,
                                   limits_.max_values));
    }
  }

  json* place(json&& v) {
    count();
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      auto& elements = parent.get_ref<json::array_t&>();
      elements.push_back(std::move(v));
      return &elements.back();
    }
    *member_ = std::move(v);
    return member_;
  }

  bool scalar(json&& v) {
    place(std::move(v));
    if (!stack_.empty() && stack_.back() == streamed_) hand_off();
    return true;
  }

  void open(json::value_t type) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      throw InputError(source_, fmt::format("JSON nested more than {} levels deep", kMaxJsonDepth),
                       fmt::format("{} nests at most {} levels", what_, kMaxJsonDepth));
    const bool target = type == json::value_t::array && stream_ != nullptr &&
                        (stack_.empty() || (stack_.size() == 1 && root_.is_object() && root_key_ == stream_->member));
    json* opened = place(json(type));
    stack_.push_back(opened);
    if (target) {
      streamed_ = opened;
      streamed_pointer_ = stack_.size() == 1 ? "" : (json::json_pointer{} / root_key_).to_string();
    }
  }

  bool close() {
    json* closed = stack_.back();
    stack_.pop_back();
    if (closed == streamed_) {
      streamed_ = nullptr;
    } else if (!stack_.empty() && stack_.back() == streamed_) {
      hand_off();
    }
    return true;
  }

  // The streamed array holds one finished element at a time: move it out and hand it on.
  void hand_off() {
    auto& elements = streamed_->get_ref<json::array_t&>();
    json element = std::move(elements.back());
    elements.pop_back();
    element_values_ = 0;
    stream_->sink(std::move(element), streamed_pointer_, index_++);
  }

  const std::string& source_;
  const std::string& what_;
  const JsonArrayStream* stream_;
  JsonLimits limits_;
  std::function<std::size_t()> input_bytes_;
  json root_;
  std::vector<json*> stack_;  // the open containers, outermost first
  json* member_ = nullptr;    // where the next value of the innermost object goes
  std::string root_key_;      // the root object's latest key, to find the streamed member
  json* streamed_ = nullptr;
  std::string streamed_pointer_;
  std::size_t index_ = 0, kept_values_ = 0, element_values_ = 0;
};

// An open file descriptor that closes itself.
class InputFd {
 public:
  explicit InputFd(int fd) : fd_(fd) {}
  ~InputFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  InputFd(const InputFd&) = delete;
  InputFd& operator=(const InputFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void check_input_kind(const std::filesystem::path& path, const std::string& field, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) throw InputError(field, path.string(), "is a folder; give a file");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw InputError(field, path.string(), "is not a regular file or a pipe (a device?)");
}

std::string open_failure(int err) {
  if (err == ENOENT || err == ENOTDIR) return "does not exist";
  return fmt::format("cannot be read: {}", path_error_text(err));
}

// Opens `path` for reading after the checks that keep a read bounded: no folder, no device.
int open_input(const std::filesystem::path& path, const std::string& field) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(field, path.string(), open_failure(errno));
  check_input_kind(path, field, st);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(field, path.string(), open_failure(errno));
  return fd;
}

std::size_t read_some(int fd, char* buf, std::size_t capacity, const std::filesystem::path& path,
                      const std::string& field) {
  for (;;) {
    const ssize_t n = ::read(fd, buf, capacity);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR)
      throw InputError(field, path.string(), fmt::format("reading failed ({})", std::strerror(errno)));
  }
}

std::string too_large_rule(std::size_t max_bytes, const std::string& limit_flag) {
  return limit_flag.empty() ? fmt::format("is larger than {} MiB, the most ringbench reads", max_bytes >> 20)
                            : fmt::format("is larger than {} MiB; raise {} to read it", max_bytes >> 20, limit_flag);
}

}  // namespace

json parse_json_input(std::string_view text, const std::string& source, const std::string& what,
                      const JsonLimits& limits) {
  if (const void* nul = std::memchr(text.data(), '\0', text.size()); nul != nullptr)
    throw_nul_byte(source, what, static_cast<std::size_t>(static_cast<const char*>(nul) - text.data()) + 1);
  BoundedDomBuilder builder(source, what, nullptr, limits, [&] { return text.size(); });
  json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json, true);
  return builder.take();
}

json parse_json_stream(std::istream& in, const std::string& source, const std::string& what,
                       const JsonArrayStream* stream, const JsonLimits& limits) {
  // Only a BoundedInput knows how far it has read; elsewhere the parser's position stands.
  const auto* bounded = dynamic_cast<const BoundedInput*>(in.rdbuf());
  BoundedDomBuilder builder(source, what, stream, limits, [bounded] {
    return bounded ? bounded->bytes_read() : std::numeric_limits<std::size_t>::max();
  });
  json::sax_parse(in, &builder, json::input_format_t::json, true);
  return builder.take();
}

std::string read_input_file(const std::filesystem::path& path, const std::string& field, std::size_t max_bytes,
                            const std::string& limit_flag) {
  InputFd fd(open_input(path, field));
  std::string text;
  std::vector<char> buf(std::size_t{1} << 16);
  while (const std::size_t n = read_some(fd.get(), buf.data(), buf.size(), path, field)) {
    if (text.size() + n > max_bytes) throw InputError(field, path.string(), too_large_rule(max_bytes, limit_flag));
    text.append(buf.data(), n);
  }
  return text;
}

json read_json_file(const std::filesystem::path& path, const std::string& field, const std::string& what,
                    const JsonLimits& limits) {
  InputFd fd(open_input(path, field));
  BoundedInput input([&](char* buf, std::size_t capacity) { return read_some(fd.get(), buf, capacity, path, field); },
                     kMaxJsonFileBytes,
                     [&] { throw InputError(field, path.string(), too_large_rule(kMaxJsonFileBytes, "")); },
                     path.string(), what);
  std::istream in(&input);
  return parse_json_stream(in, path.string(), what, nullptr, limits);
}

}  // namespace rb
