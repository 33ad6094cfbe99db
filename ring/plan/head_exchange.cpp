// The head exchange's rules and bytes (see head_exchange.hpp). Per rank, with n = S/c shard rows,
// e the run's element bytes and U − 1 peers in its group, each all-to-all sends (and receives):
//   Q, K, V in:     (U − 1) · n · (Hq/U + 2·kv_heads) · D · e     kv_heads = Hkv/U, or 1 replicated
//   O out:          (U − 1) · n · Hq/U · D · e
//   dO in:          as O;   dQ, dK, dV out: as Q, K, V
// For U = c and Hkv ≥ c this is DeepSpeed-Ulysses' 4·N·h/P per link per layer in MHA; replicated
// K/V heads cost U/Hkv times their share (each replica is sent).
#include "ring/plan/head_exchange.hpp"

#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

HeadExchange no_head_exchange(const Config& cfg) {
  HeadExchange x;
  x.degree = 1;
  x.groups = cfg.cp;
  x.q_heads = cfg.heads;
  x.kv_heads = cfg.kv_heads;
  return x;
}

HeadExchange make_head_exchange(const Config& cfg, int degree, std::int64_t shard_rows) {
  const std::string variant(to_string(cfg.variant));
  const int c = cfg.cp, u = degree;
  if (u < 1 || c % u != 0)
    throw InputError("ulysses-degree", std::to_string(u),
                     fmt::format("the {}'s all-to-all groups of U ranks must divide c = {} (U divides c)", variant, c));
  if (cfg.heads % u != 0)
    throw InputError("heads", std::to_string(cfg.heads),
                     fmt::format("the {}'s all-to-all over U = {} ranks gives each rank Hq/U query heads: needs "
                                 "Hq % U == 0",
                                 variant, u));
  if (cfg.kv_heads % u != 0 && u % cfg.kv_heads != 0)
    throw InputError("kv-heads", std::to_string(cfg.kv_heads),
                     fmt::format("the {}'s all-to-all over U = {} ranks needs the K/V heads split (Hkv % U == 0) or "
                                 "replicated (U % Hkv == 0)",
                                 variant, u));
  HeadExchange x = no_head_exchange(cfg);
  x.degree = u;
  x.groups = c / u;
  x.q_heads = cfg.heads / u;
  x.kv_heads = cfg.kv_heads % u == 0 ? cfg.kv_heads / u : 1;
  x.kv_replicas = cfg.kv_heads % u == 0 ? 1 : u / cfg.kv_heads;
  const std::int64_t row = static_cast<std::int64_t>(cfg.head_dim) * dtype_bytes(cfg.dtype);
  const std::int64_t peers_rows = static_cast<std::int64_t>(u - 1) * shard_rows;
  x.o_bytes = peers_rows * x.q_heads * row;
  x.qkv_bytes = peers_rows * (x.q_heads + 2LL * x.kv_heads) * row;
  x.do_bytes = x.o_bytes;
  x.dqkv_bytes = x.qkv_bytes;
  return x;
}

}  // namespace rb::ring
