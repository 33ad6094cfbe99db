// A rank's step program in words (see explain.hpp).
#include "ring/program/explain.hpp"

#include <fmt/format.h>

namespace rb::ring {
namespace {

std::string run_text(const Run& r) { return fmt::format("{}[{}+{}]", buf_info(r.buf).name, r.at, r.len); }

std::string lane_text(int lane) { return lane == 0 ? "compute" : fmt::format("comm {}", lane); }

// What the op works on, in one cell.
std::string what(const Op& op, int element_bytes) {
  switch (op.kind) {
    case OpKind::exchange:
      return fmt::format("{} -> rank {}, {} <- rank {}, {} B, tag {}", run_text(op.runs[0]), op.to,
                         run_text(op.runs[1]), op.from, op.runs[1].len * element_bytes, op.tag);
    case OpKind::gather:
      return fmt::format("{} -> {}, {} -> {}, {} B in", run_text(op.runs[0]), run_text(op.runs[1]),
                         run_text(op.runs[2]), run_text(op.runs[3]),
                         (op.runs[1].len - op.runs[0].len + op.runs[3].len - op.runs[2].len) * element_bytes);
    case OpKind::reduce_scatter: {
      std::string peers;
      for (const Op::Round& r : op.rounds) peers += fmt::format("{}{}", peers.empty() ? "" : ",", r.from);
      return fmt::format("{} {} -> {}, {} B in from ranks {}", run_text(op.runs[0]), run_text(op.runs[1]),
                         run_text(op.runs[2]),
                         static_cast<std::int64_t>(op.rounds.size()) * op.runs[2].len * element_bytes, peers);
    }
    case OpKind::all_to_all: {
      std::string in, out;
      for (const Run& r : op.reads) in += fmt::format("{}{}", in.empty() ? "" : " ", buf_info(r.buf).name);
      for (const Run& r : op.runs) out += fmt::format("{}{}", out.empty() ? "" : " ", buf_info(r.buf).name);
      return fmt::format("{} -> {}", in, out);
    }
    case OpKind::attend:
      return fmt::format("{} x {} {} -> {} {}, {} pairs, {} key rows", run_text(op.runs[0]), run_text(op.runs[1]),
                         run_text(op.runs[2]), buf_info(op.runs[3].buf).name, buf_info(op.runs[4].buf).name,
                         op.pairs.size(), op.sk);
    case OpKind::merge:
      return fmt::format("{} {} into {} {}", buf_info(op.runs[2].buf).name, buf_info(op.runs[3].buf).name,
                         buf_info(op.runs[0].buf).name, buf_info(op.runs[1].buf).name);
    case OpKind::delta: return "rowsum(d_o * o_acc) -> delta; dq cleared";
    case OpKind::attend_bwd:
      if (op.skip) return "no unmasked pair: its block gradients stay zero";
      return fmt::format("{} {} -> dq, {} {}, {} pairs, {} key rows", run_text(op.runs[1]), run_text(op.runs[2]),
                         run_text(op.runs[7]), run_text(op.runs[8]), op.pairs.size(), op.sk);
    case OpKind::fold: {
      std::string s;
      for (std::size_t i = 0; i + 1 < op.runs.size(); i += 2)
        s += fmt::format("{}{} {} {}", s.empty() ? "" : "; ", run_text(op.runs[i]),
                         (op.add >> (i / 2) & 1u) ? "+=" : "=", run_text(op.runs[i + 1]));
      return s.empty() ? "nothing: the sums meet at their owners" : s;
    }
    case OpKind::mark: return "no unmasked pair";
    case OpKind::fail: return "injected: throws";
    case OpKind::hang: return "injected: waits until the executor aborts";
  }
  return "";
}

}  // namespace

std::string explain_program(const RankProgram& p, int element_bytes) {
  std::string out = fmt::format("rank {}: {} buffers, {} B; {} lanes (compute + {} comm)\n", p.rank, p.buffers.size(),
                                p.total_elements() * element_bytes, p.lanes, p.lanes - 1);
  for (const BufferDecl& b : p.buffers) {
    const BufInfo& info = buf_info(b.buf);
    out += fmt::format("  buffer {:<12} {:<7} {} x {} = {} B\n", info.name, to_string(info.role), b.rows, b.width,
                       b.elements() * element_bytes);
  }
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    std::string deps;
    for (const int d : op.deps) deps += fmt::format("{}#{}", deps.empty() ? "" : ",", d);
    out += fmt::format("  #{:<4} {:<8} {:<3} step {:>3}  {:<14} {:<18} {}{}\n", i, lane_text(op.lane),
                       op.part == Part::forward ? "fwd" : "bwd", op.step, to_string(op.kind), op.name ? op.name : "-",
                       what(op, element_bytes), deps.empty() ? "" : "  waits " + deps);
  }
  return out;
}

}  // namespace rb::ring
