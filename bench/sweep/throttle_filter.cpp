// Dropping throttled samples (see throttle_filter.hpp).
#include "bench/sweep/throttle_filter.hpp"

#include <fmt/format.h>

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

json ThrottleFilter::to_json() const {
  json mhz = json::array();
  for (const auto& m : mhz_) mhz.push_back(m ? json(*m) : json(nullptr));
  const auto threshold = threshold_mhz();
  return {{"method", method_},
          {"nominal_mhz", nominal_mhz_ ? json(*nominal_mhz_) : json(nullptr)},
          {"threshold_pct", rule_.threshold_pct},
          {"threshold_mhz", threshold ? json(*threshold) : json(nullptr)},
          {"recovery_ms", rule_.recovery_ms},
          {"samples_ms", ms_},
          {"samples_mhz", mhz},
          {"dropped", dropped_},
          {"dropped_count", dropped()},
          {"taken", taken()}};
}

}  // namespace rb::bench
