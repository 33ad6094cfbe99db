// Named inputs of the analytic model: model shapes (Llama 3), accelerators (dense BF16 peak) and
// links (bandwidth per direction). Every preset carries its source so a report can cite it, and a
// flag may give a number instead of a name (parse_device, parse_link).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rb::model {

// The transformer shape the model needs. hidden is h of Korthikanti et al.; heads is both Hq and
// their a (attention heads).
struct ModelShape {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;     // Hq
  int kv_heads = 0;  // Hkv
  int head_dim = 0;  // D
  std::string source;
};

struct Device {
  std::string name;
  double peak_flops = 0;  // dense BF16, FLOP/s
  std::string source;
};

// One direction of one link. A ring step sends one block out and receives one block in at the same
// time on different directions, so the per-direction rate is what one transfer gets.
struct Link {
  std::string name;
  double bytes_per_s = 0;  // per direction
  double latency_s = 0;    // added once per transfer
  std::string source;

  double gbps() const { return bytes_per_s * 8.0 / 1e9; }
};

std::span<const ModelShape> model_presets();
std::span<const Device> device_presets();
std::span<const Link> link_presets();

// Lookups by name; throw InputError naming `where`, the value and the known names.
const ModelShape& find_model(std::string_view name, std::string_view where);
// A device preset name, or a number read as dense TFLOP/s.
Device parse_device(std::string_view text, std::string_view where);
// A link preset name, or a number read as Gbit/s per direction.
Link parse_link(std::string_view text, std::string_view where);

}  // namespace rb::model
