// How a record's fields stand to each other (results_relations.hpp).
#include "reports/results/results_relations.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"

namespace rb::reports {
// Named apart: a unity build joins this file with others that have helpers of the same names.
namespace relations {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& source, const std::string& path, const json& value,
                         const std::string& rule) {
  throw InputError(fmt::format("{}: {}", source, path), json_text(value), rule);
}

bool present(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && !obj.at(key).is_null();
}

const json& at_or_null(const json& obj, const char* key) {
  static const json kNull;
  return obj.is_object() && obj.contains(key) ? obj.at(key) : kNull;
}

// Whether the id holds `word` as one of its '-'-joined parts ("...-zigzag-ring-...-fwd+bwd-reverse").
bool id_has_part(const std::string& id, std::string_view word) {
  std::size_t at = 0;
  while (at <= id.size()) {
    const std::size_t end = std::min(id.find('-', at), id.size());
    if (std::string_view(id).substr(at, end - at) == word) return true;
    at = end + 1;
  }
  return false;
}

// ---- what the writer derives from the configuration: every record ----

void check_phase(const json& run, const std::string& rp, const std::string& source) {
  const json& cfg = run.at("config");
  const std::string cpath = rp + "/config";
  // Absent, the phase reads as fwd (every record before 2.10.0 timed the forward): an id naming
  // another phase beside it was compared as that phase's (compare skips a field absent on one side).
  const std::string phase = cfg.contains("phase") ? cfg.at("phase").get<std::string>() : "fwd";
  if (phase != "fwd" && phase != "bwd" && phase != "fwd+bwd") return;  // a newer minor's phase
  const std::string& id = cfg.at("id").get_ref<const std::string&>();
  for (const char* word : {"bwd", "fwd+bwd"})
    if (id_has_part(id, word) != (phase == word))
      refuse(source, cpath + "/id", cfg.at("id"),
             fmt::format("must {}name the phase \"{}\" as config.phase is \"{}\" (the id names every phase but fwd)",
                         phase == word ? "" : "not ", word, phase));

  // A forward has no backward: accept judged a fwd record's bwd_* checks from figures it carried.
  const bool backward = phase != "fwd";
  if (!backward) {
    const struct {
      const char* parent;
      const char* key;
    } kBackwardOnly[] = {{"correctness", "gradients"},
                         {"timing", "phase_ms"},
                         {nullptr, "phase_metrics"},
                         {"plan", "forward_flops"},
                         {"plan", "backward"}};
    for (const auto& f : kBackwardOnly) {
      const json& parent = f.parent ? at_or_null(run, f.parent) : run;
      if (present(parent, f.key))
        refuse(source, fmt::format("{}/{}{}", rp, f.parent ? std::string(f.parent) + "/" : "", f.key),
               json(fmt::format("present on a {} record", phase)),
               "a forward carries no backward figure (only a phase of bwd or fwd+bwd does)");
    }
    const json& intervals = at_or_null(at_or_null(run, "timeline"), "intervals");
    if (intervals.is_array())
      for (std::size_t i = 0; i < intervals.size(); ++i)
        if (const json& p = at_or_null(intervals[i], "phase"); p.is_number() && p.get<double>() != 0)
          refuse(source, fmt::format("{}/timeline/intervals/{}/phase", rp, i), p,
                 "a forward's intervals are all of the forward (phase 0)");
  } else {
    // The backward's figures name no forward under bwd, which times the backward alone.
    for (const char* parent : {"/timing/phase_ms", "/phase_metrics"})
      if (const json::json_pointer p(std::string(parent) + "/fwd");
          phase == "bwd" && run.contains(p) && !run.at(p).is_null())
        refuse(source, rp + parent + "/fwd", json("present on a bwd record"),
               "phase bwd times the backward alone: its figures have no forward part");
  }

  // The design of the backward's dK/dV: there exactly for a backward of a rotating variant.
  const std::string variant = cfg.at("variant").get<std::string>();
  const bool rotating = variant == "ring" || variant == "ring-bidirectional" || variant == "hybrid";
  const bool gathering = variant == "allgather" || variant == "ulysses";
  if (rotating || gathering) {
    const bool wants = backward && rotating;
    if (wants != cfg.contains("dkv"))
      refuse(source, cpath + "/dkv", cfg.contains("dkv") ? cfg.at("dkv") : json(nullptr),
             wants
                 ? fmt::format("required on a backward of the rotating variant {} (reverse or follow)", variant)
                 : fmt::format("only a backward of a rotating variant has a dK/dV design, not {} {}", phase, variant));
  }

  // The gradients passed only where every gradient checked passed.
  const json& g = at_or_null(at_or_null(run, "correctness"), "gradients");
  if (g.is_object() && at_or_null(g, "passed") == json(true))
    for (const char* k : {"dq", "dk", "dv"})
      if (at_or_null(at_or_null(g, k), "passed") == json(false))
        refuse(source, rp + "/correctness/gradients/passed", g.at("passed"),
               fmt::format("must be false: correctness.gradients.{}.passed is false", k));
}

void check_exchange(const json& run, const std::string& rp, bool ran, const std::string& source) {
  const json& cfg = run.at("config");
  const std::string cpath = rp + "/config";
  const std::string variant = cfg.at("variant").get<std::string>();
  const bool exchanges = variant == "ulysses" || variant == "hybrid";
  const bool known = exchanges || variant == "ring" || variant == "ring-bidirectional" || variant == "allgather";
  if (!known) return;  // a newer minor's variant
  const json& u = at_or_null(cfg, "ulysses_degree");
  if (exchanges != cfg.contains("ulysses_degree"))
    refuse(source, cpath + "/ulysses_degree", u,
           exchanges ? fmt::format("required on a {} record (the ranks of each all-to-all of heads)", variant)
                     : fmt::format("only ulysses and hybrid exchange heads, not {}", variant));
  if (!exchanges || !u.is_number_integer()) return;
  const std::int64_t cp = cfg.at("cp").get<std::int64_t>();
  if (variant == "ulysses" && u.get<std::int64_t>() != cp)
    refuse(source, cpath + "/ulysses_degree", u, fmt::format("must be c ({}): ulysses exchanges over every rank", cp));
  // A head exchange's groups tile the c ranks of what ran (docs/design.md §3b).
  if (ran && u.get<std::int64_t>() > 0 && cp % u.get<std::int64_t>() != 0)
    refuse(source, cpath + "/ulysses_degree", u, fmt::format("must divide the run's c ({})", cp));
}

void check_documents(const json& run, const std::string& rp, bool ran, const std::string& source) {
  const json& cfg = run.at("config");
  const std::string cpath = rp + "/config";
  const bool has_lengths = cfg.contains("document_lengths") && cfg.at("document_lengths").is_array();
  const json& pad = at_or_null(cfg, "padding_tokens");
  if (!has_lengths && (cfg.contains("padding_tokens") || cfg.contains("documents")))
    refuse(source, cpath + "/document_lengths", json(nullptr),
           "required beside config.documents and config.padding_tokens (the documents' own lengths)");
  // Only doc-zigzag pads (--pad-documents), and the padding is what it added to the lengths.
  if (pad.is_number_integer() && pad.get<std::int64_t>() > 0 && cfg.at("split") != "doc-zigzag")
    refuse(source, cpath + "/padding_tokens", pad,
           fmt::format("must be 0 under split {}: only doc-zigzag pads documents", json_text(cfg.at("split"))));
  if (!has_lengths || !ran) return;
  // With their padding the documents are the sequence (each length is in [1, 2^40], and at most
  // 2^20 of them, so the sum cannot wrap; the padding is at most 2^40).
  std::int64_t tokens = 0;
  for (const json& l : cfg.at("document_lengths")) tokens += l.get<std::int64_t>();
  if (pad.is_number_integer()) tokens += pad.get<std::int64_t>();
  if (tokens != cfg.at("seq").get<std::int64_t>())
    refuse(source, cpath + "/document_lengths", json(fmt::format("{} tokens with the padding", tokens)),
           fmt::format("the documents and their padding must make up config.seq ({}) on a record that ran",
                       cfg.at("seq").get<std::int64_t>()));
}

// ---- what a record carries beyond its configuration: every record ----

void check_ranks(const json& run, const std::string& rp, const std::string& source) {
  const std::int64_t cp = run.at("config").at("cp").get<std::int64_t>();
  const json& plan = at_or_null(run, "plan");
  const auto each_rank_list = [&](const json& per_rank, const std::string& path) {
    if (!per_rank.is_array()) return;
    if (static_cast<std::int64_t>(per_rank.size()) != cp)
      refuse(source, path, json(fmt::format("{} ranks", per_rank.size())),
             fmt::format("a plan lists each of config.cp's {} ranks", cp));
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      const std::string rpath = fmt::format("{}/{}", path, r);
      if (const json& x = at_or_null(per_rank[r], "rank"); x.is_number_integer() && x.get<std::int64_t>() >= cp)
        refuse(source, rpath + "/rank", x,
               fmt::format("must be a rank of the configuration, below config.cp ({})", cp));
      const json& steps = at_or_null(per_rank[r], "steps");
      if (!steps.is_array()) continue;
      if (static_cast<std::int64_t>(steps.size()) > cp)
        refuse(source, rpath + "/steps", json(fmt::format("{} steps", steps.size())),
               fmt::format("a rank takes at most config.cp's {} steps", cp));
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const std::string spath = fmt::format("{}/steps/{}", rpath, s);
        if (const json& x = at_or_null(steps[s], "step"); x.is_number_integer() && x.get<std::int64_t>() >= cp)
          refuse(source, spath + "/step", x, fmt::format("must be a step of the ring, below config.cp ({})", cp));
        const json& sources = at_or_null(steps[s], "sources");
        if (!sources.is_array()) continue;
        for (std::size_t k = 0; k < sources.size(); ++k)
          if (const json& x = sources[k]; x.is_number_integer() && x.get<std::int64_t>() >= cp)
            refuse(source, fmt::format("{}/sources/{}", spath, k), x,
                   fmt::format("must be a rank (or group) of the configuration, below config.cp ({})", cp));
      }
    }
  };
  each_rank_list(at_or_null(plan, "per_rank"), rp + "/plan/per_rank");
  each_rank_list(at_or_null(at_or_null(plan, "backward"), "per_rank"), rp + "/plan/backward/per_rank");
  const json& phases = at_or_null(run, "phase_metrics");
  for (const char* p : {"fwd", "bwd"}) {
    const json& m = at_or_null(phases, p);
    for (const char* k : {"slowest_rank"})
      if (const json& x = at_or_null(m, k); x.is_number_integer() && x.get<std::int64_t>() >= cp)
        refuse(source, fmt::format("{}/phase_metrics/{}/{}", rp, p, k), x,
               fmt::format("must be a rank of the configuration, below config.cp ({})", cp));
    const json& per_rank = at_or_null(m, "per_rank");
    if (!per_rank.is_array()) continue;
    for (std::size_t r = 0; r < per_rank.size(); ++r)
      if (const json& x = at_or_null(per_rank[r], "rank"); x.is_number_integer() && x.get<std::int64_t>() >= cp)
        refuse(source, fmt::format("{}/phase_metrics/{}/per_rank/{}/rank", rp, p, r), x,
               fmt::format("must be a rank of the configuration, below config.cp ({})", cp));
  }
}

}  // namespace
}  // namespace relations

void check_record_relations(const nlohmann::json& run, const std::string& run_path, const std::string& source) {
  const bool ran = run.at("status") == "ok";
  relations::check_phase(run, run_path, source);
  relations::check_exchange(run, run_path, ran, source);
  relations::check_documents(run, run_path, ran, source);
  relations::check_ranks(run, run_path, source);
}

}  // namespace rb::reports
