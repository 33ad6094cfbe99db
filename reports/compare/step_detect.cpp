// The penalised L1 piecewise-constant fit behind trend's steps.
#include "reports/compare/step_detect.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace rb::reports {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Sum of |y - median| over a growing window, in O(log n) per point: the lower half in a max-heap,
// the upper half in a min-heap, with their sums.
class RunningL1 {
 public:
  void add(double x) {
    if (lo_.empty() || x <= lo_.top()) {
      lo_.push(x);
      lo_sum_ += x;
    } else {
      hi_.push(x);
      hi_sum_ += x;
    }
    if (lo_.size() > hi_.size() + 1) {
      const double t = lo_.top();
      lo_.pop();
      lo_sum_ -= t;
      hi_.push(t);
      hi_sum_ += t;
    } else if (hi_.size() > lo_.size()) {
      const double t = hi_.top();
      hi_.pop();
      hi_sum_ -= t;
      lo_.push(t);
      lo_sum_ += t;
    }
  }
  double median() const { return lo_.size() > hi_.size() ? lo_.top() : 0.5 * (lo_.top() + hi_.top()); }
  double cost() const {
    const double m = lo_.top();  // any point between the middle two minimises the sum
    return (m * static_cast<double>(lo_.size()) - lo_sum_) + (hi_sum_ - m * static_cast<double>(hi_.size()));
  }

 private:
  std::priority_queue<double> lo_;
  std::priority_queue<double, std::vector<double>, std::greater<>> hi_;
  double lo_sum_ = 0, hi_sum_ = 0;
};

}  // namespace

StepFit detect_relative_steps(std::span<const double> y) {
  if (y.empty() || std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }))
    return detect_steps(y);
  std::vector<double> logs, diffs;
  for (const double v : y) logs.push_back(std::log(v));
  for (std::size_t i = 1; i < logs.size(); ++i) diffs.push_back(std::fabs(logs[i] - logs[i - 1]));
  // The raw fit's floor, 0.1% of the level, is 0.001 in logs whatever the level.
  const double sigma = std::max(diffs.empty() ? 0.0 : 1.4826 * median_of(diffs) / std::sqrt(2.0), 1e-3);
  StepFit fit = detect_steps(logs, kPenaltyScale * sigma * std::log(static_cast<double>(y.size()) + 1.0));
  fit.sigma = sigma;
  fit.levels.clear();
  fit.steps.clear();
  for (std::size_t k = 0; k < fit.starts.size(); ++k) {
    const std::size_t a = fit.starts[k], b = k + 1 < fit.starts.size() ? fit.starts[k + 1] : y.size();
    fit.levels.push_back(median_of(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(a),
                                                       y.begin() + static_cast<std::ptrdiff_t>(b))));
  }
  for (std::size_t k = 1; k < fit.starts.size(); ++k)
    fit.steps.push_back({fit.starts[k], fit.levels[k - 1], fit.levels[k]});
  return fit;
}

double LevelStep::change() const {
  if (before == 0) return after == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (after - before) / std::fabs(before);
}

StepFit detect_steps(std::span<const double> y, double penalty) {
  StepFit fit;
  const std::size_t n = y.size();
  if (n == 0) return fit;
  std::vector<double> diffs;
  for (std::size_t i = 1; i < n; ++i) diffs.push_back(std::fabs(y[i] - y[i - 1]));
  const double level = std::fabs(median_of(std::vector<double>(y.begin(), y.end())));
  fit.sigma = std::max(diffs.empty() ? 0.0 : 1.4826 * median_of(diffs) / std::sqrt(2.0), 1e-3 * level);
  fit.penalty = penalty >= 0 ? penalty : kPenaltyScale * fit.sigma * std::log(static_cast<double>(n) + 1.0);
  if (n < 3 || fit.sigma == 0) {
    fit.starts = {0};
    fit.levels = {median_of(std::vector<double>(y.begin(), y.end()))};
    return fit;
  }
  // cost[i][j]: L1 cost of one piece over y[i..j].
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    RunningL1 w;
    for (std::size_t j = i; j < n; ++j) {
      w.add(y[j]);
      cost[i][j] = w.cost();
    }
  }
  // best[j]: the least penalised cost of y[0..j-1]; from[j]: where its last piece starts.
  std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
  std::vector<std::size_t> from(n + 1, 0);
  best[0] = 0;
  for (std::size_t j = 1; j <= n; ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const double c = best[i] + cost[i][j - 1] + fit.penalty;
      if (c < best[j]) {
        best[j] = c;
        from[j] = i;
      }
    }
  for (std::size_t j = n; j > 0; j = from[j]) fit.starts.push_back(from[j]);
  std::reverse(fit.starts.begin(), fit.starts.end());
  for (std::size_t k = 0; k < fit.starts.size(); ++k) {
    const std::size_t a = fit.starts[k], b = k + 1 < fit.starts.size() ? fit.starts[k + 1] : n;
    fit.levels.push_back(median_of(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(a),
                                                       y.begin() + static_cast<std::ptrdiff_t>(b))));
  }
  for (std::size_t k = 1; k < fit.starts.size(); ++k)
    fit.steps.push_back({fit.starts[k], fit.levels[k - 1], fit.levels[k]});
  return fit;
}

}  // namespace rb::reports
