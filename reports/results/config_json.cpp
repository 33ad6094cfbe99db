// Config to JSON, and its identifier.
#include "reports/results/config_json.hpp"

#include <map>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/documents.hpp"

#include "reports/results/record_config.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::reports {

nlohmann::json to_json(const Config& c) { return to_json(record_config(c)); }

std::span<const std::string_view> config_id_fields() {
  static constexpr std::string_view kFields[] =
      {"seq",      "cp",     "split", "variant",        "heads",           "kv_heads",
       "head_dim", "causal", "dtype", "backend",        "transport",       "link_gbps",
       "kernel",   "phase",  "dkv",   "ulysses_degree", "document_lengths"};
  return kFields;
}

// Reads exactly the fields config_id_fields() names: the two change together.
std::string config_id(const Config& c) {
  std::string id = fmt::format("s{}-c{}-{}-{}-h{}x{}-d{}-{}-{}-{}-{}", c.seq, c.cp, to_string(c.split),
                               to_string(c.variant), c.heads, c.kv_heads, c.head_dim, c.causal ? "causal" : "full",
                               to_string(c.dtype), to_string(c.backend), to_string(c.transport));
  if (c.link_gbps > 0) id += fmt::format("-link{}", c.link_gbps);
  // The kernel is part of what was measured; ringbench's own, the default, keeps the ids of older
  // results (which carry no kernel).
  if (c.kernel != Kernel::ringbench) id += fmt::format("-{}", to_string(c.kernel));
  // The phase likewise (docs/design.md §3a): a forward keeps the ids of every earlier results file; the
  // backward's design joins only where it changes what runs.
  if (c.phase != Phase::fwd) id += fmt::format("-{}", to_string(c.phase));
  if (dkv_matters(c.phase, c.variant)) id += fmt::format("-{}", to_string(c.dkv));
  // The hybrid's all-to-all group (docs/design.md §3b); ulysses' is c, the ring variants' 1.
  if (ulysses_degree_matters(c.variant)) id += fmt::format("-u{}", c.ulysses_degree);
  // Packed documents (docs/design.md §3c) likewise, only where there are any (padding shows in S,
  // which is the padded one): the lengths themselves where short, else their count and a 128-bit
  // digest (2.13.0; 2.12.0's 32-bit one let two lists of one sweep share an id).
  if (c.documents.given()) id += fmt::format("-docs-{}", documents_id(c.documents.lengths));
  return id;
}

namespace {

using nlohmann::json;

// 2.12.0's documents part of an id: 8 hex digits, the high half of FNV-1a 64 over the lengths
// joined by '+'.
std::string digest_2_12(const std::vector<std::int64_t>& lengths) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::string text;
  for (std::size_t i = 0; i < lengths.size(); ++i) text += fmt::format("{}{}", i ? "+" : "", lengths[i]);
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:08x}", static_cast<std::uint32_t>(h >> 32));
}

// The id a 2.12.0 record would have now, or "" where it is not one of those.
std::string current_id(const json& config) {
  if (!config.is_object() || !config.contains("id") || !config.at("id").is_string()) return "";
  const std::string& id = config.at("id").get_ref<const std::string&>();
  constexpr std::string_view kOld = "-docs";
  if (id.size() < kOld.size() + 8 || id.compare(id.size() - 8 - kOld.size(), kOld.size(), kOld) != 0) return "";
  const std::string digest = id.substr(id.size() - 8);
  if (digest.find_first_not_of("0123456789abcdef") != std::string::npos) return "";
  const json& l = config.contains("document_lengths") ? config.at("document_lengths") : json();
  if (!l.is_array() || l.empty()) return "";
  std::vector<std::int64_t> lengths;
  for (const json& x : l) {
    if (!x.is_number_integer()) return "";
    lengths.push_back(x.get<std::int64_t>());
  }
  if (digest_2_12(lengths) != digest) return "";  // not the record's own lengths: left as written
  return fmt::format("{}-{}", id.substr(0, id.size() - 8), documents_id(lengths));
}

}  // namespace

int upgrade_documents_ids(nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("runs") || !doc.at("runs").is_array()) return 0;
  std::map<std::string, std::string> renamed;
  for (json& run : doc.at("runs"))
    if (run.is_object() && run.contains("config"))
      if (std::string now = current_id(run.at("config")); !now.empty()) {
        json& id = run.at("config").at("id");
        renamed.emplace(id.get<std::string>(), now);
        id = std::move(now);
      }
  for (json& run : doc.at("runs"))
    if (run.is_object() && run.contains("alias_of") && run.at("alias_of").is_string())
      if (const auto it = renamed.find(run.at("alias_of").get<std::string>()); it != renamed.end())
        run["alias_of"] = it->second;
  return static_cast<int>(renamed.size());
}

}  // namespace rb::reports
