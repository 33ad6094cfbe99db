// The round layout of a record's samples.
#include "reports/results/record_timing.hpp"

#include "common/round_layout.hpp"

namespace rb::reports {

std::vector<std::vector<double>> RecordTiming::rounds_of_samples() const { return rounds_of(samples_ms); }

std::vector<std::vector<double>> RecordTiming::rounds_of(const std::vector<double>& per_sample) const {
  if (per_sample.size() != samples_ms.size()) return {per_sample};
  const auto kept = static_cast<std::int64_t>(samples_ms.size());
  std::vector<std::int64_t> sizes;  // samples per round, in order; rounds that kept none left out
  std::int64_t total = 0;
  // The reader holds the counts to the samples; summed here so that no crafted count can wrap the
  // total back to the samples' count and split past them.
  bool fits = true;
  for (const std::int64_t n : round_counts) {
    if (n < 0 || n > kept - total) {
      fits = false;
      break;
    }
    if (n > 0) {
      sizes.push_back(n);
      total += n;
    }
  }
  if (!fits || total != kept) {  // written before 1.2.0, or not this run's layout: the even split
    sizes.clear();
    const std::int64_t r = rounds.value_or(1);
    if (r >= 2 && r <= kept)
      for (const int n : round_sizes(static_cast<int>(kept), static_cast<int>(r))) sizes.push_back(n);
  }
  if (sizes.size() < 2) return {per_sample};
  std::vector<std::vector<double>> out;
  std::int64_t at = 0;
  for (const std::int64_t n : sizes) {
    out.emplace_back(per_sample.begin() + at, per_sample.begin() + at + n);
    at += n;
  }
  return out;
}

}  // namespace rb::reports
