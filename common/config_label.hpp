// The words a configuration is shown by, wherever it is shown: progress lines and NVTX ranges
// (from a Config), compare, accept and trend output and the HTML report (from a results file's
// record). One function makes them, so every place names a configuration alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rb {

struct ConfigWords {
  std::int64_t seq = 0;
  int cp = 0;
  std::string_view split{}, variant{};
  int heads = 0, kv_heads = 0, head_dim = 0;
  bool causal = true;
  std::string_view dtype{}, backend{}, transport{}, kernel{};
  double link_gbps = 0;             // 0: unpaced
  std::string_view phase{}, dkv{};  // empty or "fwd": a forward; dkv empty where it changes nothing
  int ulysses_degree = 0;           // the hybrid's all-to-all group; 0 where it is not named
  std::string_view documents{};     // the packed documents' spec (docs/design.md §3c); empty: none
};

// Everything but S, c and the split, the runs a chart against S or c joins with a line:
// "ring Hq=8 Hkv=2 D=64 causal float32 cpu/local", plus the hybrid's group after its name ("hybrid
// U=2 Hq=8 …"), " cudnn", " link 100 Gb/s", the phase with its dK/dV design (" fwd+bwd reverse")
// and the documents (" docs uniform:1k:8k") where they apply.
std::string shape_label(const ConfigWords& w);

// "S=1024 c=4 zigzag " followed by the shape label.
std::string config_label(const ConfigWords& w);

}  // namespace rb
