// The CPU backend's interpreter of the step program (ring/program/program.hpp): one function per op
// kind, and the loop each of a rank's threads runs over the ops of its lane (0: the compute thread;
// 1..: a comm thread). An op waits, under the rank's lock, until the ops it depends on are done
// (or belong to a part this pass does not run: an earlier pass ran them), runs, records its
// interval where it has a timeline name, and is marked done. Compute kernels are the CPU twins
// (kernels/*_ref.hpp); messages go through the KvTransport.
#pragma once

#include "ring/executor/cpu_rank.hpp"

namespace rb::ring {

// Runs the ops of `lane` of rank r's program that this pass's parts hold. Throws rb::Error on
// abort, a transport failure or an injected fault.
template <typename T>
void run_cpu_lane(const CpuPass<T>& p, int r, int lane);

}  // namespace rb::ring
