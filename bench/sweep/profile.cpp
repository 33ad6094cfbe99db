// Profile parsing with errors that name the file and the JSON path, and the sweep product.
#include "bench/sweep/profile.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/token_count.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

class FieldReader {
 public:
  explicit FieldReader(FieldOrigin origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& path, const json& value, const std::string& rule) const {
    throw InputError(where(path), value.is_string() && !origin_.flag.empty() ? value.get<std::string>() : value.dump(),
                     rule);
  }

  // A flag names itself for each of its items; a profile names the JSON path.
  std::string where(const std::string& path) const {
    if (!origin_.flag.empty()) return origin_.flag;
    return origin_.source.empty() ? path : fmt::format("{}: {}", origin_.source, path);
  }
  std::string item(const std::string& path, std::size_t i) const {
    return origin_.flag.empty() ? fmt::format("{}/{}", path, i) : path;
  }

  std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
    const std::string rule = lo == 1 ? fmt::format("must be a positive integer, at most {}", hi)
                                     : fmt::format("must be an integer in [{}, {}]", lo, hi);
    if (!v.is_number_integer()) fail(path, v, rule);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) fail(path, v, rule);
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi) fail(path, v, rule);
    return x;
  }

  double number(const json& v, const std::string& path, double lo, double hi, const std::string& meaning) const {
    const std::string rule = fmt::format("must be a number in [{}, {}]{}", lo, hi, meaning);
    if (!v.is_number()) fail(path, v, rule);
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) fail(path, v, rule);
    return x;
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, v, "must be a string");
    return v.get<std::string>();
  }

  // A field that may hold one value or a non-empty list of values.
  template <typename T>
  std::vector<T> list(const json& v, const std::string& path,
                      const std::function<T(const json&, const std::string&)>& one) const {
    std::vector<T> out;
    if (v.is_array()) {
      if (v.empty()) fail(path, v, "must not be an empty list");
      for (std::size_t i = 0; i < v.size(); ++i) out.push_back(one(v[i], item(path, i)));
    } else {
      out.push_back(one(v, path));
    }
    return out;
  }

  // A field that takes one value.
  const json& scalar(const json& v, const std::string& path) const {
    if (v.is_array()) fail(path, v, "takes one value, not a list");
    return v;
  }

 private:
  FieldOrigin origin_;
};

// The seq axis: each value an integer, or text that is a token count ("4k") or a range
// ("1k:128k:x2", "1024:4096:+1024", common/token_count.hpp) standing for the values it expands to.
// What it expands to is then checked like any list (divisibility is checked per configuration).
std::vector<std::int64_t> seq_values(const FieldReader& rd, const json& val, const std::string& path) {
  std::vector<std::int64_t> out;
  auto one = [&](const json& v, const std::string& p) {
    if (!v.is_string()) {
      out.push_back(rd.integer(v, p, 1, kMaxSeq));
    } else {
      // One range expands to at most kMaxRangeValues; the axis stops where it passes the sweep's cap.
      for (const std::int64_t x : parse_token_values(v.get<std::string>(), rd.where(p), kMaxSeq)) out.push_back(x);
    }
    if (out.size() > kMaxConfigurations)
      rd.fail(p, v,
              fmt::format("the seq axis reaches {} values here, and a sweep may have at most {} configurations "
                          "(the product of its axes)",
                          out.size(), kMaxConfigurations));
  };
  if (val.is_array()) {
    if (val.empty()) rd.fail(path, val, "must not be an empty list");
    for (std::size_t i = 0; i < val.size(); ++i) one(val[i], rd.item(path, i));
  } else {
    one(val, path);
  }
  return out;
}

// "documents": [128, 128] lists two values of the axis, each one document of 128 tokens; where the
// numbers sum to an S of the sweep, no value fills it and one list of lengths, "128+128", was meant.
// Said so here, before the sweep refused each configuration as lengths that miss S. Only against
// the profile's own seq: one that leaves S to --seq is not judged by the default S.
void check_documents_as_numbers(const SweepSpec& s, const json& sweep, const FieldReader& rd) {
  const auto it = sweep.find("documents");
  if (!sweep.contains("seq") || it == sweep.end() || !it->is_array() || it->size() < 2) return;
  std::int64_t total = 0;
  std::string lengths;
  for (const json& v : *it) {
    if (!v.is_number_integer()) return;
    if (__builtin_add_overflow(total, v.get<std::int64_t>(), &total)) return;  // no S is that long
    lengths += fmt::format("{}{}", lengths.empty() ? "" : "+", v.get<std::int64_t>());
  }
  if (std::find(s.seq.begin(), s.seq.end(), total) == s.seq.end()) return;
  rd.fail("/sweep/documents", *it,
          fmt::format("each number is one value of the axis, one document of that many tokens, so none fills S = "
                      "{}; for {} documents in one sequence write one value, \"{}\"",
                      total, it->size(), lengths));
}

}  // namespace

void set_sweep_axis(SweepSpec& s, const std::string& key, const json& val, const FieldOrigin& origin) {
  const FieldReader rd(origin);
  const std::string path = "/sweep/" + key;
  constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
  auto as_int = [&](std::int64_t hi) {
    return std::function<int(const json&, const std::string&)>([&rd, hi](const json& v, const std::string& p) {
      return static_cast<int>(rd.integer(v, p, 1, hi));
    });
  };
  // Names go through the parsers in common/config, which know every valid value.
  auto name = [&](auto parse) {
    return [&rd, parse](const json& v, const std::string& p) { return parse(rd.string(v, p), rd.where(p)); };
  };
  if (key == "seq")
    s.seq = seq_values(rd, val, path);
  else if (key == "cp")
    s.cp = rd.list<int>(val, path, as_int(kMaxCp));
  else if (key == "heads")
    s.heads = rd.list<int>(val, path, as_int(kMaxInt));
  else if (key == "kv_heads")
    s.kv_heads = rd.list<int>(val, path, as_int(kMaxInt));
  else if (key == "head_dim")
    s.head_dim = rd.list<int>(val, path, as_int(kMaxInt));
  else if (key == "split")
    s.split = rd.list<Split>(val, path, name(parse_split));
  else if (key == "variant")
    s.variant = rd.list<Variant>(val, path, name(parse_variant));
  else if (key == "dtype")
    s.dtype = rd.list<DType>(val, path, name(parse_dtype));
  else if (key == "causal")
    s.causal = rd.list<bool>(val, path, [&](const json& v, const std::string& p) {
      if (!v.is_boolean()) rd.fail(p, v, "must be true or false");
      return v.get<bool>();
    });
  else if (key == "backend")
    s.backend = parse_backend(rd.string(rd.scalar(val, path), path), rd.where(path));
  else if (key == "transport")
    s.transport = parse_transport(rd.string(rd.scalar(val, path), path), rd.where(path));
  else if (key == "seed")
    s.seed = static_cast<std::uint64_t>(rd.integer(rd.scalar(val, path), path, 0,
                                                   std::numeric_limits<std::int64_t>::max()));
  else if (key == "repeats")
    s.repeats = static_cast<int>(rd.integer(rd.scalar(val, path), path, 1, 1000000));
  else if (key == "warmup")
    s.warmup = static_cast<int>(rd.integer(rd.scalar(val, path), path, 0, 1000000));
  else if (key == "rounds")
    s.rounds = static_cast<int>(rd.integer(rd.scalar(val, path), path, 1, 1000000));
  else if (key == "link_gbps") {
    const json& v = rd.scalar(val, path);
    s.link_gbps = rd.number(v, path, kLinkGbps.lo, kLinkGbps.hi, " Gbit/s (0: unpaced)");
    if (s.link_gbps != 0 && s.link_gbps < kLinkGbps.least_nonzero) rd.fail(path, v, describe(kLinkGbps));
  } else if (key == "kernel")
    s.kernel = parse_kernel(rd.string(rd.scalar(val, path), path), rd.where(path));
  else if (key == "phase")
    s.phase = rd.list<Phase>(val, path, name(parse_phase));
  else if (key == "dkv")
    s.dkv = rd.list<Dkv>(val, path, name(parse_dkv));
  else if (key == "ulysses_degree")
    s.ulysses_degree = rd.list<int>(val, path, as_int(kMaxCp));
  else if (key == "documents")
    s.documents = rd.list<DocumentSpec>(val, path, [&rd](const json& v, const std::string& p) {
      // One document of N tokens may be written as the number N.
      if (v.is_number_integer()) return parse_document_spec(v.dump(), rd.where(p));
      return parse_document_spec(rd.string(v, p), rd.where(p));
    });
  else if (key == "pad_documents") {
    const json& v = rd.scalar(val, path);
    if (!v.is_boolean()) rd.fail(path, v, "must be true or false");
    s.pad_documents = v.get<bool>();
  } else
    rd.fail(path, val,
            "unknown axis; known: seq, cp, split, variant, heads, kv_heads, head_dim, causal, dtype, backend, "
            "transport, seed, repeats, warmup, rounds, link_gbps, kernel, phase, dkv, ulysses_degree, documents, "
            "pad_documents");
}

SweepSpec parse_profile(const json& doc, const std::string& source) {
  const FieldReader rd(FieldOrigin{source, ""});
  if (!doc.is_object())
    rd.fail("", doc.is_discarded() ? json("<not JSON>") : json(doc.type_name()), "a profile must be a JSON object");
  SweepSpec s;
  for (const auto& [key, val] : doc.items()) {
    if (key == "name")
      s.name = rd.string(val, "/name");
    else if (key == "description")
      s.description = rd.string(val, "/description");
    else if (key == "sweep")
      continue;
    else if (key == "$comment")
      continue;
    else
      rd.fail("/" + key, val, "unknown field; a profile has name, description and sweep");
  }
  if (!doc.contains("sweep")) rd.fail("/sweep", json(nullptr), "a profile needs a sweep object");
  const json& sw = doc.at("sweep");
  if (!sw.is_object()) rd.fail("/sweep", sw, "must be an object of axes");
  for (const auto& [key, val] : sw.items()) set_sweep_axis(s, key, val, FieldOrigin{source, ""});
  check_documents_as_numbers(s, sw, rd);
  return s;
}

SweepSpec load_profile(const std::filesystem::path& path) {
  return parse_profile(read_json_file(path, "profile", "a profile", JsonLimits{.whole_numbers_as_integers = true}),
                       path.string());
}

nlohmann::json to_json(const SweepSpec& s) {
  auto names = [](const auto& v) {
    json a = json::array();
    for (auto x : v) a.push_back(to_string(x));
    return a;
  };
  json out = {{"name", s.name},
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
                {"link_gbps", s.link_gbps},
                {"kernel", to_string(s.kernel)},
                {"phase", names(s.phase)},
                {"dkv", names(s.dkv)},
                {"ulysses_degree", s.ulysses_degree}}}};
  if (s.rounds) out["sweep"]["rounds"] = *s.rounds;
  // Written only where given, so a sweep without documents reads as it always did.
  if (s.documents.size() != 1 || s.documents.front().kind != DocumentSpec::Kind::none) {
    json docs = json::array();
    for (const auto& d : s.documents) docs.push_back(d.kind == DocumentSpec::Kind::none ? "none" : d.text);
    out["sweep"]["documents"] = docs;
  }
  if (s.pad_documents) out["sweep"]["pad_documents"] = true;
  return out;
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
                  for (auto dtype : s.dtype)
                    for (auto phase : s.phase)
                      for (auto dkv : s.dkv) {
                        if (!dkv_matters(phase, variant) && dkv != s.dkv.front()) continue;
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
                        c.kernel = s.kernel;
                        c.phase = phase;
                        c.dkv = dkv_matters(phase, variant) ? dkv : Dkv::reverse;
                        // The hybrid once per group U; ulysses' is c, the ring variants' 1.
                        for (const int degree : s.ulysses_degree) {
                          if (!ulysses_degree_matters(variant) && degree != s.ulysses_degree.front()) continue;
                          c.ulysses_degree = degree;
                          c.ulysses_degree = exchange_degree(c);
                          for (const auto& docs : s.documents) {
                            Config packed = c;
                            set_documents(packed, docs, s.pad_documents);  // drawn for this S and seed
                            out.push_back(std::move(packed));
                          }
                        }
                      }
  return out;
}

}  // namespace rb::bench
