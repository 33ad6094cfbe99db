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
  const std::vector<std::int64_t> shape{cfg.seq, cfg.heads, cfg.head_dim};
  if (cfg.dtype == DType::float64) {
    reports::write_npy<double>(sub / "o.npy", o, shape);
  } else {
    const std::vector<float> of(o.begin(), o.end());  // exact: the values were float32
    reports::write_npy<float>(sub / "o.npy", of, shape);
  }
}

}  // namespace rb::bench
