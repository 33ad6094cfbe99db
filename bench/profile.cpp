// Profile parsing with errors that name the file and the JSON path, and the sweep product.
#include "bench/profile.hpp"

#include <fstream>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

class FieldReader {
 public:
  explicit FieldReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const json& value, const std::string& rule) const {
    throw InputError(fmt::format("{}: {}", source_, path), value.dump(), rule);
  }

  std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
    if (!v.is_number_integer()) fail(path, v, "must be an integer");
    const auto x = v.get<std::int64_t>();
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      fail(path, v, fmt::format("must be at most {}", hi));
    if (x < lo || x > hi) fail(path, v, lo == 1 ? "must be a positive integer" : fmt::format("must be in [{}, {}]", lo, hi));
    return x;
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, v, "must be a string");
    return v.get<std::string>();
  }

  // A field that may hold one value or a non-empty list of values.
  template <typename T>
  std::vector<T> list(const json& v, const std::string& path, const std::function<T(const json&, const std::string&)>& one) const {
    std::vector<T> out;
    if (v.is_array()) {
      if (v.empty()) fail(path, v, "must not be an empty list");
      for (std::size_t i = 0; i < v.size(); ++i) out.push_back(one(v[i], fmt::format("{}/{}", path, i)));
    } else {
      out.push_back(one(v, path));
    }
    return out;
  }

 private:
  std::string source_;
};

}  // namespace

SweepSpec parse_profile(const json& doc, const std::string& source) {
  FieldReader rd(source);
  if (!doc.is_object()) rd.fail("", doc.is_discarded() ? json("<not JSON>") : json(doc.type_name()), "a profile must be a JSON object");
  SweepSpec s;
  for (const auto& [key, val] : doc.items()) {
    if (key == "name") s.name = rd.string(val, "/name");
    else if (key == "description") s.description = rd.string(val, "/description");
    else if (key == "sweep") continue;
    else if (key == "$comment") continue;
    else rd.fail("/" + key, val, "unknown field; a profile has name, description and sweep");
  }
  if (!doc.contains("sweep")) rd.fail("/sweep", json(nullptr), "a profile needs a sweep object");
  const json& sw = doc.at("sweep");
  if (!sw.is_object()) rd.fail("/sweep", sw, "must be an object of axes");

  constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
  auto as_int = [&](std::int64_t hi) {
    return std::function<int(const json&, const std::string&)>(
        [&rd, hi](const json& v, const std::string& p) { return static_cast<int>(rd.integer(v, p, 1, hi)); });
  };
  for (const auto& [key, val] : sw.items()) {
    const std::string path = "/sweep/" + key;
    if (key == "seq")
      s.seq = rd.list<std::int64_t>(val, path, [&](const json& v, const std::string& p) {
        return rd.integer(v, p, 1, std::int64_t{1} << 40);
      });
    else if (key == "cp") s.cp = rd.list<int>(val, path, as_int(1 << 20));
    else if (key == "heads") s.heads = rd.list<int>(val, path, as_int(kMaxInt));
    else if (key == "kv_heads") s.kv_heads = rd.list<int>(val, path, as_int(kMaxInt));
    else if (key == "head_dim") s.head_dim = rd.list<int>(val, path, as_int(kMaxInt));
    else if (key == "split")
      s.split = rd.list<Split>(val, path, [&](const json& v, const std::string& p) {
        return parse_split(rd.string(v, p), source + ": " + p);
      });
    else if (key == "variant")
      s.variant = rd.list<Variant>(val, path, [&](const json& v, const std::string& p) {
        return parse_variant(rd.string(v, p), source + ": " + p);
      });
    else if (key == "dtype")
      s.dtype = rd.list<DType>(val, path, [&](const json& v, const std::string& p) {
        return parse_dtype(rd.string(v, p), source + ": " + p);
      });
    else if (key == "causal")
      s.causal = rd.list<bool>(val, path, [&](const json& v, const std::string& p) {
        if (!v.is_boolean()) rd.fail(p, v, "must be true or false");
        return v.get<bool>();
      });
    else if (key == "backend") s.backend = parse_backend(rd.string(val, path), source + ": " + path);
    else if (key == "transport") s.transport = parse_transport(rd.string(val, path), source + ": " + path);
    else if (key == "seed") s.seed = static_cast<std::uint64_t>(rd.integer(val, path, 0, std::numeric_limits<std::int64_t>::max()));
    else if (key == "repeats") s.repeats = static_cast<int>(rd.integer(val, path, 1, 1000000));
    else if (key == "warmup") s.warmup = static_cast<int>(rd.integer(val, path, 0, 1000000));
    else if (key == "link_gbps") {
      if (!val.is_number() || !(val.get<double>() >= 0)) rd.fail(path, val, "must be a number >= 0 (0: unpaced)");
      s.link_gbps = val.get<double>();
    } else
      rd.fail(path, val,
              "unknown axis; known: seq, cp, split, variant, heads, kv_heads, head_dim, causal, dtype, backend, "
              "transport, seed, repeats, warmup, link_gbps");
  }
  return s;
}

SweepSpec load_profile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("profile", path.string(), "the file cannot be opened for reading");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: byte {}", path.string(), e.byte), "<malformed JSON>",
                     fmt::format("the profile must be valid JSON ({})", e.what()));
  } catch (const json::exception& e) {
    // Valid syntax the library still refuses, e.g. a number beyond double range.
    throw InputError(path.string(), "<unrepresentable JSON>",
                     fmt::format("the profile must be valid JSON ({})", e.what()));
  }
  return parse_profile(doc, path.string());
}

nlohmann::json to_json(const SweepSpec& s) {
  auto names = [](const auto& v) {
    json a = json::array();
    for (auto x : v) a.push_back(to_string(x));
    return a;
  };
  return {{"name", s.name},
          {"description", s.description},
          {"sweep",
           {{"seq", s.seq},
            {"cp", s.cp},
            {"split", names(s.split)},
            {"variant", names(s.variant)},
            {"heads", s.heads},
            {"kv_heads", s.kv_heads},
            {"head_dim", s.head_dim},
            {"causal", s.causal},
            {"dtype", names(s.dtype)},
            {"backend", to_string(s.backend)},
            {"transport", to_string(s.transport)},
            {"seed", s.seed},
            {"repeats", s.repeats},
            {"warmup", s.warmup},
            {"link_gbps", s.link_gbps}}}};
}

std::vector<Config> expand(const SweepSpec& s) {
  std::vector<Config> out;
  for (auto seq : s.seq)
    for (auto cp : s.cp)
      for (auto split : s.split)
        for (auto variant : s.variant)
          for (auto heads : s.heads)
            for (auto kvh : s.kv_heads)
              for (auto d : s.head_dim)
                for (bool causal : s.causal)
                  for (auto dtype : s.dtype) {
                    Config c;
                    c.seq = seq;
                    c.cp = cp;
                    c.split = split;
                    c.variant = variant;
                    c.heads = heads;
                    c.kv_heads = kvh;
                    c.head_dim = d;
                    c.causal = causal;
                    c.dtype = dtype;
                    c.backend = s.backend;
                    c.transport = s.transport;
                    c.seed = s.seed;
                    c.repeats = s.repeats;
                    c.warmup = s.warmup;
                    c.link_gbps = s.link_gbps;
                    out.push_back(c);
                  }
  return out;
}

}  // namespace rb::bench
