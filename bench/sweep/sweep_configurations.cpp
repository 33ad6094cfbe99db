// Expanding and validating a sweep's configurations.
#include "bench/sweep/sweep_configurations.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/kernel_choice.hpp"
#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/sweep_limits.hpp"
#include "reports/results/config_json.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

namespace {

struct Axis {
  const char* name;
  std::size_t size;
};

std::vector<Axis> axes(const SweepSpec& s) {
  return {{"seq", s.seq.size()},
          {"cp", s.cp.size()},
          {"split", s.split.size()},
          {"variant", s.variant.size()},
          {"heads", s.heads.size()},
          {"kv_heads", s.kv_heads.size()},
          {"head_dim", s.head_dim.size()},
          {"causal", s.causal.size()},
          {"dtype", s.dtype.size()},
          {"phase", s.phase.size()},
          {"dkv", s.dkv.size()},
          {"ulysses_degree", s.ulysses_degree.size()},
          {"documents", s.documents.size()}};
}

// The most document lengths a sweep's configurations may hold together (each keeps its own list):
// 2^26 are 512 MiB. Counted from each (S, documents) pair's lengths before any configuration is made.
constexpr std::uint64_t kMaxSweepDocumentLengths = std::uint64_t{1} << 26;

void check_document_lengths(const SweepSpec& spec, std::uint64_t configurations) {
  const std::uint64_t per_pair = configurations / (spec.seq.size() * spec.documents.size());
  std::uint64_t total = 0;
  for (const auto seq : spec.seq)
    for (const auto& d : spec.documents) {
      if (d.kind == DocumentSpec::Kind::none) continue;
      total += document_lengths(d, seq, spec.seed).size() * per_pair;
      if (total > kMaxSweepDocumentLengths)
        throw AgreedInputError("documents", d.text,
                               fmt::format("the sweep's {} configurations would hold more than {} document lengths "
                                           "together; fewer configurations, or longer documents",
                                           configurations, kMaxSweepDocumentLengths));
    }
}

}  // namespace

std::uint64_t configuration_count(const SweepSpec& spec) {
  std::uint64_t n = 1;
  for (const Axis& a : axes(spec))
    if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(a.size), &n)) return UINT64_MAX;
  return n;
}

std::vector<Config> expand_configurations(const SweepSpec& spec) {
  if (const std::uint64_t n = configuration_count(spec); n > kMaxConfigurations) {
    std::string product;
    for (const Axis& a : axes(spec))
      if (a.size > 1) product += fmt::format("{}{} {}", product.empty() ? "" : " x ", a.name, a.size);
    throw AgreedInputError("sweep",
                           n == UINT64_MAX ? "more than 2^64 configurations" : fmt::format("{} configurations", n),
                           fmt::format("the product of the axes ({}) may be at most {} configurations", product,
                                       kMaxConfigurations));
  }
  check_document_lengths(spec, configuration_count(spec));
  std::vector<Config> out = expand(spec);
  for (auto& c : out) c.kernel = choose_kernel(c);  // before the ids: the kernel is part of one
  return listed_once(std::move(out));
}

bool same_measurement(const Config& a, const Config& b) {
  return a.seq == b.seq && a.cp == b.cp && a.split == b.split && a.variant == b.variant && a.heads == b.heads &&
         a.kv_heads == b.kv_heads && a.head_dim == b.head_dim && a.causal == b.causal && a.dtype == b.dtype &&
         a.backend == b.backend && a.transport == b.transport && a.link_gbps == b.link_gbps && a.kernel == b.kernel &&
         a.phase == b.phase && a.dkv == b.dkv && a.ulysses_degree == b.ulysses_degree &&
         a.documents.lengths == b.documents.lengths && pads_documents(a) == pads_documents(b);
}

std::vector<Config> listed_once(std::vector<Config> configs, const std::function<std::string(const Config&)>& id_of) {
  std::vector<Config> out;
  std::map<std::string, std::size_t> first;  // id -> its configuration's place in `configs`
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::string id = id_of(configs[i]);
    const auto [at, fresh] = first.emplace(id, i);
    if (fresh) {
      out.push_back(configs[i]);
      continue;
    }
    // The same configuration again (an axis value given twice, or two specs of the same lengths):
    // run once. Two that differ under one id would be one record of two measurements.
    const Config& earlier = configs[at->second];
    if (!same_measurement(earlier, configs[i]))
      throw AgreedInputError("sweep", id,
                             fmt::format("configurations {} ({}) and {} ({}) would share this id; each must have its "
                                         "own",
                                         at->second + 1, earlier.label(), i + 1, configs[i].label()));
  }
  return out;
}

std::vector<Config> select_configurations(std::vector<Config> configs, const std::vector<std::string>& ids) {
  if (ids.empty()) return configs;
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::set<std::string> found;
  std::vector<Config> out;
  for (auto& c : configs)
    if (const std::string id = reports::config_id(c); wanted.contains(id)) {
      found.insert(id);
      out.push_back(std::move(c));
    }
  for (const auto& id : ids)
    if (!found.contains(id))
      throw AgreedInputError("--only", id, "names no configuration of this sweep (ids as results.json gives them)");
  return out;
}

std::vector<std::string> validate_configurations(const std::vector<Config>& configs, const RunOptions& opts) {
  std::vector<std::string> invalid(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // doc-zigzag's padding makes S the padded one, past the --seq given: held to the bound every
    // results reader holds config.seq to, whatever --skip-invalid says, so that no file is written
    // that the readers refuse.
    if (configs[i].seq > kMaxSeq)
      throw AgreedInputError("--pad-documents", fmt::format("padded S = {}", configs[i].seq),
                             fmt::format("must be at most 2^40 (the largest S a sweep runs; configuration {})",
                                         configs[i].label()));
    try {
      check_backend(configs[i], world());
      ring::validate_plan_inputs(configs[i]);
    } catch (const InputError& e) {
      if (!opts.skip_invalid)
        throw AgreedInputError(e.where(), e.value(),
                               fmt::format("{} (configuration {})", e.rule(), configs[i].label()));
      invalid[i] = e.what();
    }
  }
  return invalid;
}

}  // namespace rb::bench
