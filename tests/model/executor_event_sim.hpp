// A brute-force, event-driven replay of the CPU executor's protocol (ring/executor/executor_cpu.cpp with the
// local transport), written independently of model/ring_simulator.cpp: per rank a compute thread and
// a comm thread as state machines, an inbox per rank with posted/consumed flags, and a clock that
// jumps to the next finishing copy or compute. The simulator's one-pass recurrences must agree with it.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "model/step_table.hpp"

namespace rb::model::testing {

struct EventSimResult {
  double pass_s = 0;
  bool complete = true;                // every rank ran every step (false: the protocol deadlocked)
  std::vector<double> cb, ce, xb, xe;  // [r * steps + j], as Simulation
};

inline EventSimResult event_simulate(const StepTable& t) {
  const int c = t.ranks, steps = t.steps;
  EventSimResult out;
  const auto n = static_cast<std::size_t>(c) * steps;
  out.cb.assign(n, 0);
  out.ce.assign(n, 0);
  out.xb.assign(n, 0);
  out.xe.assign(n, 0);
  auto at = [steps](int r, int j) { return static_cast<std::size_t>(r) * steps + j; };
  const double kIdle = std::numeric_limits<double>::infinity();

  if (t.schedule.gathered) {
    // Barrier at 0 (nothing precedes it), each rank copies its gather, then computes.
    for (int r = 0; r < c; ++r) {
      out.xe[at(r, 0)] = c > 1 ? t.transfer(r, 0) : 0.0;
      out.cb[at(r, 0)] = out.xe[at(r, 0)];
      out.ce[at(r, 0)] = out.cb[at(r, 0)] + t.compute(r, 0);
      out.pass_s = std::max(out.pass_s, out.ce[at(r, 0)]);
    }
    return out;
  }

  struct Inbox {
    bool posted = false;
    int step = -1;
    bool consumed = false;
  };
  enum Phase { kRelease, kAwaitOffer, kCopying, kAwaitConsumed, kDone };
  std::vector<int> cstep(c, 0), compute_done(c, 0), recv_done(c, 0), iter(c, 0);
  std::vector<double> cbusy(c, kIdle), xbusy(c, kIdle);
  std::vector<Phase> phase(c, c > 1 ? kRelease : kDone);
  std::vector<Inbox> inbox(c);
  double now = 0;
  while (true) {
    for (bool moved = true; moved;) {
      moved = false;
      for (int r = 0; r < c; ++r) {
        const int dst = (r + 1) % c;
        if (cbusy[r] == kIdle && cstep[r] < steps && (cstep[r] == 0 || recv_done[r] >= cstep[r])) {
          out.cb[at(r, cstep[r])] = now;
          cbusy[r] = now + t.compute(r, cstep[r]);
          moved = true;
        }
        const int j = iter[r];
        if (phase[r] == kRelease && (j < 2 || compute_done[r] >= j)) {
          inbox[dst].posted = true;
          inbox[dst].step = j;
          phase[r] = kAwaitOffer;
          moved = true;
        }
        if (phase[r] == kAwaitOffer && inbox[r].posted && inbox[r].step == j) {
          out.xb[at(r, j + 1)] = now;
          xbusy[r] = now + t.transfer(r, j + 1);
          phase[r] = kCopying;
          moved = true;
        }
        if (phase[r] == kAwaitConsumed && inbox[dst].consumed) {
          inbox[dst].consumed = false;
          recv_done[r] = j + 1;
          iter[r] = j + 1;
          phase[r] = iter[r] + 1 < c ? kRelease : kDone;
          moved = true;
        }
      }
    }
    double next = kIdle;
    for (int r = 0; r < c; ++r) next = std::min({next, cbusy[r], xbusy[r]});
    if (next == kIdle) break;
    now = next;
    for (int r = 0; r < c; ++r) {
      if (cbusy[r] == now) {
        out.ce[at(r, cstep[r])] = now;
        out.pass_s = std::max(out.pass_s, now);
        cbusy[r] = kIdle;
        compute_done[r] = ++cstep[r];
      }
      if (xbusy[r] == now) {
        out.xe[at(r, iter[r] + 1)] = now;
        xbusy[r] = kIdle;
        inbox[r].posted = false;
        inbox[r].consumed = true;
        phase[r] = kAwaitConsumed;
      }
    }
  }
  for (int r = 0; r < c; ++r) out.complete = out.complete && cstep[r] == steps;
  return out;
}

}  // namespace rb::model::testing
