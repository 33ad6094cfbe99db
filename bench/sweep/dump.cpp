// Writing a configuration's tensors as .npy.
#include "bench/sweep/dump.hpp"

#include <numeric>

#include "kernels/fill_inputs_ref.hpp"
#include "reports/exports/npy_writer.hpp"
#include "reports/results/config_json.hpp"

namespace rb::bench {

void dump_configuration(const std::filesystem::path& dir, const ring::Plan& plan, const ring::Executor& exec,
                        bool write_files) {
  const Config& cfg = plan.config;
  std::vector<std::int64_t> all(cfg.seq);
  std::iota(all.begin(), all.end(), 0);
  const auto o = exec.output_rows(all);  // collective on a distributed executor: every process asks
  // With a backward its gradients too, each as the run holds it (collective likewise).
  std::vector<double> dq, dk, dv;
  if (plan.backward) {
    dq = exec.gradient_rows(ring::GradTensor::dq, all);
    dk = exec.gradient_rows(ring::GradTensor::dk, all);
    dv = exec.gradient_rows(ring::GradTensor::dv, all);
  }
  if (!write_files) return;
  const auto sub = dir / reports::config_id(cfg);
  std::filesystem::create_directories(sub);
  const SegmentList whole{Segment{0, 1, cfg.seq}};
  namespace kref = kernels::ref;
  auto tensor = [&](kref::Tensor t, int heads, const char* name) {
    std::vector<double> x(cfg.seq * heads * cfg.head_dim);
    kref::fill_inputs(x.data(), whole, kref::FillParams{cfg.seed, t, heads, cfg.head_dim, DType::float64});
    reports::write_npy<double>(sub / name, x, {cfg.seq, heads, cfg.head_dim});
  };
  tensor(kref::Tensor::q, cfg.heads, "q.npy");
  tensor(kref::Tensor::k, cfg.kv_heads, "k.npy");
  tensor(kref::Tensor::v, cfg.kv_heads, "v.npy");
  // Outputs as run: float64, or float32 (exact: the values were float32).
  auto as_run = [&](const std::vector<double>& x, int heads, const char* name) {
    const std::vector<std::int64_t> shape{cfg.seq, heads, cfg.head_dim};
    if (cfg.dtype == DType::float64) {
      reports::write_npy<double>(sub / name, x, shape);
    } else {
      const std::vector<float> xf(x.begin(), x.end());
      reports::write_npy<float>(sub / name, xf, shape);
    }
  };
  as_run(o, cfg.heads, "o.npy");
  if (plan.backward) {
    tensor(kref::Tensor::d_o, cfg.heads, "do.npy");
    as_run(dq, cfg.heads, "dq.npy");
    as_run(dk, cfg.kv_heads, "dk.npy");
    as_run(dv, cfg.kv_heads, "dv.npy");
  }
}

}  // namespace rb::bench
