// The tables of split schemes and variants (see scheme_table.hpp).
#include "common/scheme_table.hpp"

#include <fmt/format.h>

#include <array>

#include "common/error.hpp"

namespace rb {
namespace {

// In enum order: info() indexes by the enum's value.
constexpr std::array<SplitInfo, 4> kSplits{{
    {Split::contiguous,
     "contiguous",
     "rank r holds tokens [r·S/c, (r+1)·S/c): one segment, imbalanced under a causal mask",
     {0, "circle", false}},
    {Split::zigzag,
     "zigzag",
     "rank r holds chunks r and 2c-1-r of 2c: balanced causal work (S % 2c == 0)",
     {1, "square", true}},
    {Split::striped,
     "striped",
     "rank r holds tokens r, r+c, r+2c, ...: balanced to within one row (S % c == 0)",
     {4, "diamond", false}},
    {Split::doc_zigzag,
     "doc-zigzag",
     "every document cut into 2c chunks, rank r holding chunks r and 2c-1-r of each (TransformerEngine, Megatron): "
     "balanced causal work under packed documents (each length % 2c == 0, or --pad-documents)",
     {2, "ring", false}},
}};

constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::ring,
     "ring",
     "K/V blocks circulate one rank forward per step, hidden behind the step's compute",
     {0, "circle", false},
     HeadGroups::none,
     true},
    {Variant::allgather,
     "allgather",
     "every rank gathers all K/V first (Llama 3), then attends once",
     {1, "square", true},
     HeadGroups::none,
     false},  // one backward: gather, then reduce-scatter
    {Variant::ring_bidirectional,
     "ring-bidirectional",
     "each block is cut in two halves that circulate in opposite directions, using both directions of every link "
     "(TokenRing)",
     {4, "diamond", false},
     HeadGroups::none,
     true},
    {Variant::ulysses,
     "ulysses",
     "all-to-all of Q, K, V to whole-sequence heads, local attention, all-to-all of O back (DeepSpeed-Ulysses; "
     "Hq % c == 0)",
     {2, "ring", false},
     HeadGroups::all_ranks,
     false},  // its ring has one member: nothing moves K/V, so the design changes nothing
    {Variant::hybrid,
     "hybrid",
     "all-to-all inside groups of --ulysses-degree ranks, the K/V ring across the groups (TransformerEngine's "
     "a2a+p2p, USP)",
     {3, "square", false},
     HeadGroups::ulysses_degree,
     true},
}};

template <typename Info, std::size_t N>
constexpr bool in_enum_order(const std::array<Info, N>& t) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(t[i].kind) != i) return false;
  return true;
}
static_assert(in_enum_order(kSplits) && in_enum_order(kVariants), "scheme tables must follow the enums' order");

template <typename Info, std::size_t N>
std::string names(const std::array<Info, N>& t, std::string_view sep) {
  std::string out;
  for (const auto& i : t) out += (out.empty() ? "" : std::string(sep)) + std::string(i.name);
  return out;
}

}  // namespace

std::span<const SplitInfo> split_table() { return kSplits; }
std::span<const VariantInfo> variant_table() { return kVariants; }

const SplitInfo& info(Split s) {
  const auto i = static_cast<std::size_t>(s);
  if (i >= kSplits.size()) throw Error("split scheme out of range");
  return kSplits[i];
}
const VariantInfo& info(Variant v) {
  const auto i = static_cast<std::size_t>(v);
  if (i >= kVariants.size()) throw Error("variant out of range");
  return kVariants[i];
}

const SplitInfo* find_split(std::string_view name) {
  for (const auto& i : kSplits)
    if (i.name == name) return &i;
  return nullptr;
}
const VariantInfo* find_variant(std::string_view name) {
  for (const auto& i : kVariants)
    if (i.name == name) return &i;
  return nullptr;
}

std::vector<Split> every_split() {
  std::vector<Split> out;
  for (const auto& i : kSplits) out.push_back(i.kind);
  return out;
}
std::vector<Variant> every_variant() {
  std::vector<Variant> out;
  for (const auto& i : kVariants) out.push_back(i.kind);
  return out;
}

std::string split_names(std::string_view sep) { return names(kSplits, sep); }
std::string variant_names(std::string_view sep) { return names(kVariants, sep); }

std::string strategy_label(std::string_view variant, std::optional<int> ulysses_degree) {
  const VariantInfo* v = find_variant(variant);
  if (v && v->heads == HeadGroups::ulysses_degree && ulysses_degree)
    return fmt::format("{} U={}", variant, *ulysses_degree);
  return std::string(variant);
}

}  // namespace rb
