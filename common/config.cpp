// Names, parsing and shape checks for Config.
#include "common/config.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/config_label.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"

namespace rb {
namespace {

template <typename E, std::size_t N>
std::string_view name_of(E v, const std::array<std::string_view, N>& names) {
  auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : std::string_view{"?"};
}

template <typename E, std::size_t N>
E parse_name(std::string_view s, std::string_view where, const std::array<std::string_view, N>& names,
             std::string_view what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  throw InputError(std::string(where), fmt::format("'{}'", s),
                   fmt::format("{} must be one of: {}", what, fmt::join(names, ", ")));
}

constexpr std::array<std::string_view, 3> kDType{"float64", "float32", "bfloat16"};
constexpr std::array<std::string_view, 2> kBackend{"cpu", "cuda"};
constexpr std::array<std::string_view, 3> kTransport{"local", "mpi", "nccl"};
constexpr std::array<std::string_view, 3> kKernel{"ringbench", "cudnn", "auto"};
constexpr std::array<std::string_view, 3> kPhase{"fwd", "bwd", "fwd+bwd"};
constexpr std::array<std::string_view, 2> kDkv{"reverse", "follow"};

}  // namespace

std::string_view to_string(Split v) { return info(v).name; }
std::string_view to_string(Variant v) { return info(v).name; }
std::string_view to_string(DType v) { return name_of(v, kDType); }
std::string_view to_string(Backend v) { return name_of(v, kBackend); }
std::string_view to_string(Transport v) { return name_of(v, kTransport); }

Split parse_split(std::string_view s, std::string_view w) {
  if (const SplitInfo* i = find_split(s)) return i->kind;
  throw InputError(std::string(w), fmt::format("'{}'", s), "split scheme must be one of: " + split_names());
}
Variant parse_variant(std::string_view s, std::string_view w) {
  if (const VariantInfo* i = find_variant(s)) return i->kind;
  throw InputError(std::string(w), fmt::format("'{}'", s), "variant must be one of: " + variant_names());
}
DType parse_dtype(std::string_view s, std::string_view w) { return parse_name<DType>(s, w, kDType, "dtype"); }
Backend parse_backend(std::string_view s, std::string_view w) { return parse_name<Backend>(s, w, kBackend, "backend"); }
Transport parse_transport(std::string_view s, std::string_view w) {
  return parse_name<Transport>(s, w, kTransport, "transport");
}
std::string_view to_string(Kernel v) { return name_of(v, kKernel); }
Kernel parse_kernel(std::string_view s, std::string_view w) { return parse_name<Kernel>(s, w, kKernel, "kernel"); }
std::string_view to_string(Phase v) { return name_of(v, kPhase); }
Phase parse_phase(std::string_view s, std::string_view w) { return parse_name<Phase>(s, w, kPhase, "phase"); }
std::string_view to_string(Dkv v) { return name_of(v, kDkv); }
Dkv parse_dkv(std::string_view s, std::string_view w) { return parse_name<Dkv>(s, w, kDkv, "dkv"); }

bool dkv_matters(Phase p, Variant v) { return times_backward(p) && info(v).dkv_choice; }
bool exchanges_heads(Variant v) { return info(v).heads != HeadGroups::none; }
bool ulysses_degree_matters(Variant v) { return info(v).heads == HeadGroups::ulysses_degree; }

int exchange_degree(const Config& c) {
  switch (info(c.variant).heads) {
    case HeadGroups::all_ranks: return c.cp;
    case HeadGroups::ulysses_degree: return c.ulysses_degree;
    case HeadGroups::none: break;
  }
  return 1;
}

int dtype_bytes(DType d) {
  switch (d) {
    case DType::float64: return 8;
    case DType::float32: return 4;
    case DType::bfloat16: return 2;
  }
  return 0;
}

void Config::validate_shape() const {
  auto positive = [](std::string_view name, std::int64_t v) {
    if (v <= 0) throw InputError(std::string(name), std::to_string(v), "must be a positive integer");
  };
  positive("seq", seq);
  positive("cp", cp);
  positive("heads", heads);
  positive("kv-heads", kv_heads);
  positive("head-dim", head_dim);
  positive("repeats", repeats);
  if (warmup < 0) throw InputError("warmup", std::to_string(warmup), "must be zero or more");
  if (cp > seq)
    throw InputError("cp", std::to_string(cp), fmt::format("c must not exceed S ({}): every rank needs a token", seq));
  if (heads % kv_heads != 0)
    throw InputError("heads", std::to_string(heads),
                     fmt::format("Hq must be a multiple of Hkv ({}) for grouped-query attention", kv_heads));
  if (!(link_gbps >= 0.0))
    throw InputError("link-gbps", fmt::format("{}", link_gbps), "must be zero (unpaced) or a positive bandwidth");
  // Plans, work matrices and memory estimates count attention pairs and bytes in int64. A shape
  // whose counts would not fit cannot be planned, let alone run: refused here, before anything
  // multiplies them (formed in double, which does not wrap).
  constexpr double kCountable = 4.611686018427387904e18;  // 2^62
  const double s = static_cast<double>(seq), pairs = s * s * heads;
  const double elements = s * std::max(heads, 2 * kv_heads) * static_cast<double>(head_dim);
  if (pairs > kCountable || elements * 8 > kCountable)
    throw InputError("seq", std::to_string(seq),
                     fmt::format("with Hq={} Hkv={} D={} the attention pairs (S^2*Hq = {:.3g}) or the tensors "
                                 "({:.3g} bytes) exceed what ringbench counts (2^62)",
                                 heads, kv_heads, head_dim, pairs, elements * 8));
}

std::string Config::label() const {
  return config_label({.seq = seq,
                       .cp = cp,
                       .split = to_string(split),
                       .variant = to_string(variant),
                       .heads = heads,
                       .kv_heads = kv_heads,
                       .head_dim = head_dim,
                       .causal = causal,
                       .dtype = to_string(dtype),
                       .backend = to_string(backend),
                       .transport = to_string(transport),
                       .kernel = to_string(kernel),
                       .link_gbps = link_gbps,
                       .phase = to_string(phase),
                       .dkv = dkv_matters(phase, variant) ? to_string(dkv) : std::string_view{},
                       .ulysses_degree = ulysses_degree_matters(variant) ? ulysses_degree : 0,
                       .documents = documents.spec});
}

}  // namespace rb
