// Which attention kernel a configuration runs (`--kernel`, the profile's `kernel`): ringbench's own,
// or cuDNN's fused flash attention where this build has it and cuDNN can express the configuration
// (ring/plan/sdpa_pieces.hpp). `auto` picks cudnn where it can, else ringbench, per configuration, and the
// record says why; an explicit cudnn that cannot run is bad input (exit 2).
#pragma once

#include <string>

#include "common/config.hpp"
#include "reports/results/run_record.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"

namespace rb::bench {

// Why the cudnn kernel cannot run cfg ("" when it can): this build has none, the backend is cpu,
// the backend's own rule (dtype, D), or a step the SDPA pieces cannot express. Throws InputError
// for a configuration that is bad input whatever the kernel (its split's rules).
std::string cudnn_refusal(const Config& cfg);

// cfg's kernel, automatic resolved (a configuration that is bad input resolves to ringbench and is
// refused later, by the sweep's validation).
Kernel choose_kernel(const Config& cfg);

// Throws InputError("kernel", "cudnn", why) when cfg asks for cudnn and cudnn_refusal says no.
void check_kernel(const Config& cfg);

// The record's `kernel_choice` when the sweep asked for `requested` and cfg runs cfg.kernel: the
// request, the choice and, for auto, why.
reports::RecordKernelChoice kernel_choice_record(Kernel requested, const Config& cfg);

// The cuDNN graphs a configuration ran on, into its `kernel_choice`: from `latest` (the last round's
// executor) each shape's plan (cudnn_plans), implementation and build time (cudnn_graphs); and the
// plans every round built, `builds` in `build_ms` (the first configuration to need a shape builds
// it, later rounds and configurations find it built). Nothing where no graph was used.
void add_cudnn_graphs(reports::RecordKernelChoice& choice, const ring::CudnnGraphsUsed& latest, int builds,
                      double build_ms);

}  // namespace rb::bench
