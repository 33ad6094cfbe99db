// libFuzzer target: the profile parser. Any bytes either parse into a sweep spec whose expansion
// validates, or fail with rb::InputError; nothing else may escape (no crash, no other exception).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/profile.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  try {
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
