// A rank's step program in words (`ringbench run ... --list --explain`, docs/cli.md): its buffers
// with role, rows, width and bytes; then its ops in the reference order, each with its lane, part,
// step, kind and timeline name, what it moves or computes on, the bytes that arrive, and the ops
// of other lanes it waits for. Read as an nsys user reads a timeline: one line per op.
#pragma once

#include <string>

#include "ring/program/program.hpp"

namespace rb::ring {

// `element_bytes`: one element's bytes in the run's arithmetic (the CPU backend's buffers all hold
// the run's dtype).
std::string explain_program(const RankProgram& p, int element_bytes);

}  // namespace rb::ring
