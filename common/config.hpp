// One point of a sweep: the shape of the problem and how it is run (docs/design.md §5). Every layer speaks
// in these terms; the JSON form is written by reports/ and read back by reports/ and bench/.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

enum class Split { contiguous, zigzag, striped, doc_zigzag };
// Names and summaries: common/scheme_table.hpp. ulysses and hybrid exchange heads by all-to-all
// before and after the attention (docs/design.md §3b).
enum class Variant { ring, allgather, ring_bidirectional, ulysses, hybrid };
enum class DType { float64, float32, bfloat16 };
enum class Backend { cpu, cuda };
enum class Transport { local, mpi, nccl };
// The attention kernel of each ring step on the cuda backend: ringbench's own, or cuDNN's fused
// flash attention (ring/plan/sdpa_pieces.hpp). `automatic` is what a sweep may ask for ("auto"); each
// configuration then runs one of the other two (bench/sweep/backend.hpp), which is its identity.
enum class Kernel { ringbench, cudnn, automatic };
// Which directions of the pass a configuration times (docs/design.md §3a): the forward; the backward
// alone, after an untimed forward that produced O and the log-sum-exp; or both, each part reported.
enum class Phase { fwd, bwd, fwd_bwd };
// How a rotating variant's backward returns the partial dK/dV to their owners (docs/design.md §3a):
// `reverse` (TransformerEngine) reverses the ring and carries K/V and dK/dV in one message of the
// run's dtype, starting from the last K/V the forward received; `follow` (ring-flash-attn) sends
// dK/dV one hop behind K/V in the forward's direction, in fp32 (float64 on a float64 run).
enum class Dkv { reverse, follow };

std::string_view to_string(Split v);
std::string_view to_string(Variant v);
std::string_view to_string(DType v);
std::string_view to_string(Backend v);
std::string_view to_string(Transport v);
std::string_view to_string(Kernel v);
std::string_view to_string(Phase v);  // "fwd", "bwd", "fwd+bwd"
std::string_view to_string(Dkv v);

// Parsers throw InputError naming `where` (a flag or a JSON path), the value and the allowed names.
Split parse_split(std::string_view s, std::string_view where);
Variant parse_variant(std::string_view s, std::string_view where);
DType parse_dtype(std::string_view s, std::string_view where);
Backend parse_backend(std::string_view s, std::string_view where);
Transport parse_transport(std::string_view s, std::string_view where);
Kernel parse_kernel(std::string_view s, std::string_view where);
Phase parse_phase(std::string_view s, std::string_view where);
Dkv parse_dkv(std::string_view s, std::string_view where);

// Whether a phase runs the forward or the backward timed.
constexpr bool times_forward(Phase p) { return p != Phase::bwd; }
constexpr bool times_backward(Phase p) { return p != Phase::fwd; }
// Whether a configuration's dkv changes what it runs: only with a backward, of a variant whose
// design is a choice (common/scheme_table.hpp's dkv_choice: not the all-gather's one backward, nor
// Ulysses' one-member ring). Elsewhere a sweep keeps one value and the id none.
bool dkv_matters(Phase p, Variant v);
// Whether a variant exchanges heads (scheme_table's HeadGroups), and whether a configuration's
// ulysses_degree changes what it runs: only where the variant's groups are that degree. Elsewhere a
// sweep keeps one value, the id none.
bool exchanges_heads(Variant v);
bool ulysses_degree_matters(Variant v);

struct Config;
// The ranks each all-to-all of heads spans (docs/design.md §3b), by the variant's HeadGroups: c, the
// configuration's ulysses_degree, or 1 (no exchange).
int exchange_degree(const Config& c);

// Bytes of one element as stored and moved between ranks.
int dtype_bytes(DType d);

// Packed documents (docs/design.md §3c): the sequence is documents laid end to end, each attending
// only within itself. Empty lengths: one causal sequence, the rule of §3. The lengths are real
// tokens; under `pad` a split that needs it (doc-zigzag) pads each document at its end to a
// multiple of 2c, and Config::seq is then the padded S the ranks hold (common/documents.hpp).
struct Documents {
  std::string spec;                   // as given ("64k+32k", "uniform:1k:8k"); empty: no documents
  std::vector<std::int64_t> lengths;  // real tokens per document, in order; drawn for this S and seed
  bool pad = false;                   // --pad-documents

  bool given() const { return !lengths.empty(); }
};

struct Config {
  std::int64_t seq = 1024;  // S, tokens of the one sequence
  int cp = 1;               // c, ranks the sequence is split over
  Split split = Split::contiguous;
  Variant variant = Variant::ring;
  int heads = 8;      // Hq
  int kv_heads = 2;   // Hkv
  int head_dim = 64;  // D
  bool causal = true;
  DType dtype = DType::float32;
  Backend backend = Backend::cpu;
  Transport transport = Transport::local;
  std::uint64_t seed = 1;
  int repeats = 5;                    // timed passes
  int warmup = 1;                     // untimed passes after the checked one
  double link_gbps = 0.0;             // 0: transfers run at memory speed; else paced to this link (Gbit/s)
  Kernel kernel = Kernel::ringbench;  // never automatic once a sweep has chosen
  Phase phase = Phase::fwd;           // what is timed; the backward is checked whenever it runs
  Dkv dkv = Dkv::reverse;             // the backward's dK/dV design; meaningful only with a backward
  int ulysses_degree = 1;             // U, the hybrid's all-to-all group (docs/design.md §3b); see exchange_degree
  Documents documents;                // packed documents; none: one causal sequence

  // Checks that do not depend on the split scheme: positive sizes, c <= S, Hq % Hkv == 0.
  // The scheme's divisibility rule is checked by ring::validate_plan_inputs.
  void validate_shape() const;
  // Short human label used in progress lines and reports.
  std::string label() const;
};

}  // namespace rb
