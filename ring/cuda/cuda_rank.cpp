// One rank's buffers, attention steps and compute intervals on a GPU (see cuda_rank.hpp).
#include "ring/cuda/cuda_rank.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/fold_piece.cuh"
#include "kernels/merge_partials.cuh"
#include "ring/cuda/cuda_devices.hpp"

namespace rb::ring {

void EnqueueContext::timing(const CudaEvent& e, cudaStream_t s) const { record_timing(e.get(), s, capturing); }

void EnqueueContext::label(cudaStream_t s, int rank, int step, IntervalKind kind, const char* lane,
                           const char* name) const {
  if (!capturing || labels == nullptr) return;
  if (void* node = last_captured_node(s)) labels->push_back(GraphNodeLabel{node, rank, step, kind, lane, name});
}

std::vector<void*> EnqueueContext::frontier(cudaStream_t s) const {
  return capturing && labels != nullptr ? capture_frontier(s) : std::vector<void*>{};
}

void EnqueueContext::label_since(cudaStream_t s, const std::vector<void*>& before, int rank, int step,
                                 IntervalKind kind, const char* lane, const char* name) const {
  if (!capturing || labels == nullptr) return;
  for (void* node : captured_since(s, before)) labels->push_back(GraphNodeLabel{node, rank, step, kind, lane, name});
}

void CudaRank::setup(const Plan& plan, int r, int dev, CudnnSdpa* cudnn) {
  const Config& cfg = plan.config;
  const KvSchedule& sch = plan.schedule;
  plan_ = &plan;
  if (cfg.kernel == Kernel::cudnn && cudnn == nullptr) throw Error("cuda rank: the cudnn kernel needs a cuDNN handle");
  cudnn_ = cfg.kernel == Kernel::cudnn ? cudnn : nullptr;
  rank = r;
  device = dev;
  shape_ = rank_buffer_shape(plan, r);
  const std::int64_t half = shape_.half;
  compute = make_stream();
  comm = make_stream();
  name_stream(compute.get(), fmt::format("rank {} compute", r));
  name_stream(comm.get(), fmt::format("rank {} comm", r));
  const cudaStream_t s = compute.get();
  allocate_inputs(shape_);
  fill_inputs(plan, r, DType::bfloat16, shape_,
              [&](DeviceBuffer<bf16>& b, std::int64_t at, const SegmentList& segs, const kernels::ref::FillParams& fp) {
                kernels::fill_inputs(b.get() + at, segs, fp, s);
              });
  allocate_working(shape_);
  if (sch.gathered) {
    // Its own slot never changes, and an in-place gather sends from it: copied once here.
    RB_CUDA_CHECK(cudaMemcpyAsync(all_k.get() + half * r, own.get(), half * sizeof(bf16), cudaMemcpyDeviceToDevice, s));
    RB_CUDA_CHECK(cudaMemcpyAsync(all_v.get() + half * r, own.get() + half, half * sizeof(bf16),
                                  cudaMemcpyDeviceToDevice, s));
  }
  launches = step_launches(plan, r);
  for (const auto& sl : launches)
    work.push_back(sl.action == StepAction::skip || cudnn_
                       ? kernels::DeviceAttentionWork()
                       : kernels::DeviceAttentionWork(sl.pairs, sl.work, sl.sq, cfg.causal));
  if (cudnn_) {
    sdpa = sdpa_steps(plan, r);
    std::int64_t ws = 0;
    for (const auto& st : sdpa)
      for (const auto& piece : st.pieces) {
        // The sweep refuses such a configuration first (sdpa_refusal); a direct caller learns why here.
        if (!stats_aligned(piece, cfg)) throw Error(fmt::format("cuda rank {}: {}", r, sdpa_refusal(plan)));
        ws = std::max(ws, cudnn_->prepare(graph_key(piece, cfg)));
      }
    if (ws > 0) workspace = DeviceBuffer<std::byte>(static_cast<std::size_t>(ws));
  }
  for (std::size_t j = 0; j < launches.size(); ++j)
    ev.push_back(StepEvents{make_event(true), make_event(true), make_event(true), make_event(true), make_event(true),
                            make_event(false), make_event(false)});
}

void CudaRank::attend(int j, const EnqueueContext& ctx) {
  if (cudnn_) {
    attend_cudnn(j, ctx);
    return;
  }
  const Config& cfg = plan_->config;
  const bool gathered = plan_->schedule.gathered;
  const cudaStream_t s = compute.get();
  const StepLaunch& sl = launches.at(static_cast<std::size_t>(j));
  kernels::AttentionBlockParams ap;
  ap.q = q.get();
  ap.k = gathered ? all_k.get() : block(j);
  ap.v = gathered ? all_v.get() : block(j) + shape_.v_offset;
  // Step 0 writes the accumulators directly: merging into (O = 0, L = -inf) would copy it anyway.
  ap.o = sl.action == StepAction::write ? o_acc.get() : o_part.get();
  ap.lse = sl.action == StepAction::write ? lse_acc.get() : lse_part.get();
  ap.sq = sl.sq;
  ap.sk = sl.sk;
  ap.hq = cfg.heads;
  ap.hkv = cfg.kv_heads;
  ap.d = cfg.head_dim;
  ap.causal = cfg.causal;
  ap.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(cfg.head_dim)));
  work[static_cast<std::size_t>(j)].bind(ap);
  StepEvents& e = ev[static_cast<std::size_t>(j)];
  // A skipped step keeps its events (waits and the step clock read them) and launches nothing.
  ctx.timing(e.attn_begin, s);
  if (sl.action != StepAction::skip) {
    kernels::attention_block(ap, s);
    ctx.label(s, rank, j, IntervalKind::compute, "compute", "attention");
  }
  ctx.timing(e.attn_end, s);
  if (sl.action == StepAction::merge) {
    kernels::merge_partials(kernels::MergeParams{o_acc.get(), lse_acc.get(), o_part.get(), lse_part.get(), sl.sq,
                                                 cfg.heads, cfg.head_dim},
                            s);
    ctx.label(s, rank, j, IntervalKind::compute, "compute", "merge");
  }
  ctx.timing(e.merge_end, s);
  RB_CUDA_CHECK(cudaEventRecord(e.compute_done.get(), s));
}

void CudaRank::attend_cudnn(int j, const EnqueueContext& ctx) {
  const Config& cfg = plan_->config;
  const bool gathered = plan_->schedule.gathered;
  const cudaStream_t s = compute.get();
  const SdpaStep& st = sdpa.at(static_cast<std::size_t>(j));
  const bf16* k = gathered ? all_k.get() : block(j);
  const bf16* v = gathered ? all_v.get() : block(j) + shape_.v_offset;
  // The piece's O goes to o_part's memory, which holds twice what a bf16 (rows, Hq, D) needs.
  auto* o_piece = reinterpret_cast<bf16*>(o_part.get());
  kernels::FoldPieceParams fold{o_acc.get(), lse_acc.get(), o_piece, lse_part.get(), 0, 0, cfg.heads, cfg.head_dim};
  StepEvents& e = ev[static_cast<std::size_t>(j)];
  ctx.timing(e.attn_begin, s);
  if (st.clear_first) {
    fold.mode = kernels::FoldMode::clear;
    fold.row0 = 0;
    fold.rows = plan_->ranks[rank].tokens;
    kernels::fold_piece(fold, s);
    ctx.label(s, rank, j, IntervalKind::compute, "compute", "merge");
  }
  for (const SdpaPiece& piece : st.pieces) {
    SdpaPointers p;
    p.q = q.get() + q_offset(piece, cfg);
    p.k = k + kv_offset(piece, cfg);
    p.v = v + kv_offset(piece, cfg);
    p.o = o_piece + q_offset(piece, cfg);
    p.stats = lse_part.get() + stats_offset(piece, cfg);
    const auto before = ctx.frontier(s);
    cudnn_->run(graph_key(piece, cfg), p, workspace.get(), s);
    ctx.label_since(s, before, rank, j, IntervalKind::compute, "compute", "attention");
    fold.mode = piece.writes ? kernels::FoldMode::write : kernels::FoldMode::merge;
    fold.row0 = piece.q_row0;
    fold.rows = piece.rows;
    kernels::fold_piece(fold, s);
    ctx.label(s, rank, j, IntervalKind::compute, "compute", "merge");
  }
  ctx.timing(e.attn_end, s);
  ctx.timing(e.merge_end, s);
  RB_CUDA_CHECK(cudaEventRecord(e.compute_done.get(), s));
}

void CudaRank::compute_intervals(int j, const CudaEvent& ref, std::vector<Interval>& out) const {
  const StepEvents& e = ev.at(static_cast<std::size_t>(j));
  const auto a0 = ns_between(ref, e.attn_begin), a1 = ns_between(ref, e.attn_end), a2 = ns_between(ref, e.merge_end);
  const StepAction action = launches[static_cast<std::size_t>(j)].action;
  if (action != StepAction::skip)
    out.push_back(Interval{rank, IntervalKind::compute, "compute", "attention", j, 0, a0, a1});
  if (action == StepAction::merge)
    out.push_back(Interval{rank, IntervalKind::compute, "compute", "merge", j, 0, a1, a2});
}

std::int64_t ns_between(const CudaEvent& a, const CudaEvent& b) {
  float ms = 0;
  RB_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return static_cast<std::int64_t>(std::llround(static_cast<double>(ms) * 1e6));
}

L2Flush::L2Flush(int device) : device_(device) {
  use_device(device);
  int l2 = 0;
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  buffer_ = DeviceBuffer<std::byte>(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2);
}

void L2Flush::now() const {
  if (buffer_.get() == nullptr) return;
  use_device(device_);
  RB_CUDA_CHECK(cudaMemset(buffer_.get(), 0, buffer_.bytes()));
  RB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace rb::ring
