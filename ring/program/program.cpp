// The step program's vocabulary and its dependencies (see program.hpp).
#include "ring/program/program.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {
namespace {

constexpr std::array<BufInfo, kBufCount> kBufs{{
    {"q", BufRole::q, false},
    {"own", BufRole::kv, false},
    {"kv_step0", BufRole::kv, false},
    {"kv_step1", BufRole::kv, false},
    {"all_k", BufRole::kv, false},
    {"all_v", BufRole::kv, false},
    {"o_part", BufRole::o_lse, true},
    {"o_acc", BufRole::o_lse, true},
    {"lse_part", BufRole::o_lse, true},
    {"lse_acc", BufRole::o_lse, true},
    {"q_shard", BufRole::shard, false},
    {"k_shard", BufRole::shard, false},
    {"v_shard", BufRole::shard, false},
    {"o_shard", BufRole::shard, true},
    {"stage_send", BufRole::staging, false},
    {"stage_recv", BufRole::staging, false},
    {"d_o", BufRole::d_o, false},
    {"dq", BufRole::dq, true},
    {"delta", BufRole::o_lse, true},
    {"d_own", BufRole::dkv, true},
    {"dkv_scratch", BufRole::dkv, true},
    {"dkv_step0", BufRole::dkv, true},
    {"dkv_step1", BufRole::dkv, true},
    {"all_dk", BufRole::dkv, true},
    {"all_dv", BufRole::dkv, true},
    {"d_o_shard", BufRole::shard, false},
    {"dq_shard", BufRole::shard, true},
    {"dk_shard", BufRole::shard, true},
    {"dv_shard", BufRole::shard, true},
}};

bool overlaps(const Run& a, const Run& b) { return a.buf == b.buf && a.at < b.at + b.len && b.at < a.at + a.len; }
bool covers(const Run& outer, const Run& inner) {
  return outer.buf == inner.buf && outer.at <= inner.at && inner.at + inner.len <= outer.at + outer.len;
}

}  // namespace

const BufInfo& buf_info(Buf b) { return kBufs.at(static_cast<std::size_t>(b)); }

std::string_view to_string(BufRole r) {
  switch (r) {
    case BufRole::q: return "Q";
    case BufRole::kv: return "K/V";
    case BufRole::o_lse: return "O+LSE";
    case BufRole::d_o: return "dO";
    case BufRole::dq: return "dQ";
    case BufRole::dkv: return "dK/dV";
    case BufRole::shard: return "shard";
    case BufRole::staging: return "staging";
  }
  return "?";
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::exchange: return "exchange";
    case OpKind::gather: return "gather";
    case OpKind::reduce_scatter: return "reduce_scatter";
    case OpKind::all_to_all: return "all_to_all";
    case OpKind::attend: return "attend";
    case OpKind::merge: return "merge";
    case OpKind::delta: return "delta";
    case OpKind::attend_bwd: return "attend_bwd";
    case OpKind::fold: return "fold";
    case OpKind::mark: return "mark";
    case OpKind::fail: return "fail";
    case OpKind::hang: return "hang";
  }
  return "?";
}

const BufferDecl* RankProgram::find(Buf b) const {
  for (const auto& d : buffers)
    if (d.buf == b) return &d;
  return nullptr;
}

std::int64_t RankProgram::elements(Buf b) const {
  const BufferDecl* d = find(b);
  return d ? d->elements() : 0;
}

std::int64_t RankProgram::total_elements() const {
  std::int64_t n = 0;
  for (const auto& d : buffers) n += d.elements();
  return n;
}

int RankProgram::add(Op op) {
  lanes = std::max(lanes, op.lane + 1);
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

IntervalKind timeline_kind(const Op& op) {
  switch (op.kind) {
    case OpKind::exchange:
    case OpKind::gather:
    case OpKind::reduce_scatter:
    case OpKind::all_to_all: return IntervalKind::comm;
    case OpKind::mark: return IntervalKind::other;
    case OpKind::attend_bwd: return op.skip ? IntervalKind::other : IntervalKind::compute;
    default: return IntervalKind::compute;
  }
}

std::vector<Access> accesses(const Op& op) {
  std::vector<Access> out;
  auto read = [&](std::size_t i) { out.push_back({op.runs.at(i), false}); };
  auto write = [&](std::size_t i) { out.push_back({op.runs.at(i), true}); };
  switch (op.kind) {
    case OpKind::exchange: read(0), write(1); break;
    case OpKind::gather: read(0), write(1), read(2), write(3); break;
    case OpKind::reduce_scatter: read(0), read(1), write(2), write(3); break;
    case OpKind::all_to_all:
      for (const Run& r : op.reads) out.push_back({r, false});
      for (std::size_t i = 0; i < op.runs.size(); ++i) write(i);
      break;
    case OpKind::attend: read(0), read(1), read(2), write(3), write(4); break;
    case OpKind::merge: read(0), read(1), read(2), read(3), write(0), write(1); break;
    case OpKind::delta: read(0), read(1), write(2), write(3); break;
    case OpKind::attend_bwd:
      for (std::size_t i = 0; i < 7; ++i) read(i);
      for (std::size_t i = 6; i < op.runs.size(); ++i) write(i);
      break;
    case OpKind::fold:
      for (std::size_t i = 0; i + 1 < op.runs.size(); i += 2) {
        read(i + 1);
        if (op.add >> (i / 2) & 1u) read(i);
        write(i);
      }
      break;
    case OpKind::mark:
    case OpKind::fail:
    case OpKind::hang: break;
  }
  return out;
}

void derive_dependencies(RankProgram& p) {
  // Per buffer, the accesses a later op may conflict with. A write removes the accesses it covers (a
  // later op that conflicts with one conflicts with the write, which follows it), and a read the
  // earlier reads of its own lane it covers (the lane orders them), so the lists stay short.
  struct Seen {
    Run run;
    int op;
    int lane;
    bool write;
  };
  std::array<std::vector<Seen>, kBufCount> seen;
  for (int i = 0; i < static_cast<int>(p.ops.size()); ++i) {
    Op& op = p.ops[static_cast<std::size_t>(i)];
    const std::vector<Access> acc = accesses(op);
    // The latest op waited for on each other lane: an earlier op of that lane is ordered by it.
    std::map<int, int> latest;
    for (const int d : op.deps) {
      const int lane = p.ops.at(static_cast<std::size_t>(d)).lane;
      if (d >= i) throw Error(fmt::format("step program: op {} waits for op {}, which is not before it", i, d));
      if (lane != op.lane) latest[lane] = std::max(latest[lane], d);
    }
    for (const Access& a : acc) {
      const BufferDecl* decl = p.find(a.run.buf);
      if (!decl || a.run.at < 0 || a.run.len < 0 || a.run.at + a.run.len > decl->elements())
        throw Error(
            fmt::format("step program of rank {}: op {} ({}) touches {} [{}, {}) outside the buffer's {} "
                        "elements",
                        p.rank, i, to_string(op.kind), buf_info(a.run.buf).name, a.run.at, a.run.at + a.run.len,
                        decl ? decl->elements() : 0));
      for (const Seen& s : seen[static_cast<std::size_t>(a.run.buf)])
        if ((a.write || s.write) && s.lane != op.lane && overlaps(a.run, s.run))
          latest[s.lane] = std::max(latest[s.lane], s.op);
    }
    op.deps.clear();
    for (const auto& [lane, d] : latest) op.deps.push_back(d);
    std::sort(op.deps.begin(), op.deps.end());
    for (const Access& a : acc) {
      if (a.run.len == 0) continue;
      auto& list = seen[static_cast<std::size_t>(a.run.buf)];
      std::erase_if(list, [&](const Seen& s) {
        return covers(a.run, s.run) && (a.write || (!s.write && s.lane == op.lane));
      });
      list.push_back({a.run, i, op.lane, a.write});
    }
  }
}

}  // namespace rb::ring
