// libFuzzer target: the profile parser, from bytes (the bounded JSON parser) to a sweep spec whose
// expansion validates; anything else fails with rb::InputError. Nothing else may escape (no crash,
// no other exception), however deep the input nests.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/sweep/profile.hpp"
#include "common/error.hpp"
#include "common/json_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // The parser every profile goes through: depth limit and duplicate keys included.
    const auto doc = rb::parse_json_input(text, "fuzz.json", "a profile");
    const auto spec = rb::bench::parse_profile(doc, "fuzz.json");
    // Cap the product: a profile may legitimately ask for a huge sweep, the fuzzer needn't build it.
    std::size_t n = spec.seq.size() * spec.cp.size() * spec.split.size() * spec.variant.size() * spec.heads.size() *
                    spec.kv_heads.size() * spec.head_dim.size() * spec.causal.size() * spec.dtype.size();
    if (n <= 64)
      for (const auto& cfg : rb::bench::expand(spec)) {
        try {
          cfg.validate_shape();
        } catch (const rb::InputError&) {
        }
      }
  } catch (const rb::InputError&) {
  }
  return 0;
}
