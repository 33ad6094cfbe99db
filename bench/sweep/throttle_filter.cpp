// Dropping throttled samples (see throttle_filter.hpp).
#include "bench/sweep/throttle_filter.hpp"

#include <fmt/format.h>

#include "reports/results/run_record_writer.hpp"

namespace rb::bench {

using nlohmann::json;

ThrottleFilter::ThrottleFilter(ThrottleRule rule, std::optional<double> nominal_mhz, std::string method)
    : rule_(rule),
      nominal_mhz_(nominal_mhz && *nominal_mhz > 0 ? nominal_mhz : std::nullopt),
      method_(std::move(method)) {}

std::optional<double> ThrottleFilter::threshold_mhz() const {
  if (!nominal_mhz_ || rule_.threshold_pct <= 0) return std::nullopt;
  return *nominal_mhz_ * rule_.threshold_pct / 100.0;
}

bool ThrottleFilter::add(double ms, std::optional<double> mhz) {
  const auto threshold = threshold_mhz();
  const bool keep = !mhz || !threshold || *mhz >= *threshold;
  if (!keep) dropped_.push_back(static_cast<int>(ms_.size()));
  ms_.push_back(ms);
  mhz_.push_back(mhz);
  return keep;
}

std::string ThrottleFilter::failure() const {
  if (2 * dropped() <= taken()) return "";
  return fmt::format("throttled: {} of {} samples ran under {:.0f} MHz, {:g}% of the nominal {:.0f} MHz", dropped(),
                     taken(), threshold_mhz().value_or(0), rule_.threshold_pct, nominal_mhz_.value_or(0));
}

reports::RecordSmClock ThrottleFilter::record() const {
  reports::RecordSmClock out;
  out.method = method_;
  out.nominal_mhz = nominal_mhz_;
  out.threshold_pct = rule_.threshold_pct;
  out.threshold_mhz = threshold_mhz();
  out.recovery_ms = rule_.recovery_ms;
  out.samples_ms = ms_;
  out.samples_mhz = mhz_;
  out.dropped.assign(dropped_.begin(), dropped_.end());
  out.dropped_count = dropped();
  out.taken = taken();
  return out;
}

json ThrottleFilter::to_json() const { return reports::to_json(record()); }

}  // namespace rb::bench
