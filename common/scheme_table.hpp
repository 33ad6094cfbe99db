// The one table of split schemes and the one table of variants: each entry's name (what profiles,
// flags and results.json say), a one-line summary (what help text and docs say) and how charts
// draw it. Parsing, to_string, the CLI's help, the results schema's enums (a test holds them
// equal) and the report's colours all read these tables, so adding a scheme or a variant is an
// enum value and a row here, beside the scheme's own file in ring/.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"

namespace rb {

// How a chart draws a series of one scheme or variant: palette index (.c0 … .c9 in the report's
// CSS), marker and line style.
struct ChartStyle {
  int color = 0;
  std::string_view marker = "circle";  // circle, square, diamond, ring
  bool dashed = false;
};

struct SplitInfo {
  Split kind;
  std::string_view name;
  std::string_view summary;
  ChartStyle style;
};

// Over which ranks a variant's all-to-all of heads runs (docs/design.md §3b).
enum class HeadGroups { none, all_ranks, ulysses_degree };

// A variant's facts that the layers below ring/ need (the id, the record, the model's strategies,
// the report's labels); its class in ring/plan/ says the same (tests/ring/plan/test_variant_facts.cpp
// holds them equal), and everything else about it is the class's.
struct VariantInfo {
  Variant kind;
  std::string_view name;
  std::string_view summary;
  ChartStyle style;
  HeadGroups heads = HeadGroups::none;  // its head exchange
  bool dkv_choice = false;              // its backward's dK/dV design is --dkv's to choose (reverse, follow)
};

std::span<const SplitInfo> split_table();
std::span<const VariantInfo> variant_table();

const SplitInfo& info(Split s);
const VariantInfo& info(Variant v);
// The entry of that name, or nullptr.
const SplitInfo* find_split(std::string_view name);
const VariantInfo* find_variant(std::string_view name);

// Every kind, in table order (tests loop over these, so a new entry is tested everywhere).
std::vector<Split> every_split();
std::vector<Variant> every_variant();

// A strategy's name as tables print it: the variant's, with " U=<degree>" where its all-to-all
// groups are the configuration's ulysses_degree ("hybrid U=2"). An unknown name comes back as it is.
std::string strategy_label(std::string_view variant, std::optional<int> ulysses_degree);

// "contiguous, zigzag, striped": the names in table order, for help text and error messages.
std::string split_names(std::string_view sep = ", ");
std::string variant_names(std::string_view sep = ", ");

}  // namespace rb
