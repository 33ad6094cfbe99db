// A record's model estimate by field path, and the memory it predicts.
#include "reports/results/record_model.hpp"

namespace rb::reports {

std::map<std::string, double> RecordModel::numbers() const {
  std::map<std::string, double> out = other_numbers;
  const std::pair<const char*, const std::optional<double>*> typed[] = {{"pass_ms", &pass_ms},
                                                                        {"measured_pass_ms", &measured_pass_ms},
                                                                        {"measured_over_model", &measured_over_model},
                                                                        {"compute_critical_path_ms",
                                                                         &compute_critical_path_ms},
                                                                        {"exposed_comm_ms_mean", &exposed_comm_ms_mean},
                                                                        {"exposed_comm_ms_max", &exposed_comm_ms_max},
                                                                        {"overlap_fraction", &overlap_fraction},
                                                                        {"idle_ms_max", &idle_ms_max}};
  for (const auto& [name, value] : typed)
    if (*value) out[name] = **value;
  return out;
}

std::optional<double> RecordModel::memory_gb_per_device() const {
  if (const auto it = other_numbers.find("memory.gb_per_device"); it != other_numbers.end()) return it->second;
  if (const auto it = other_numbers.find("memory.bytes_per_device"); it != other_numbers.end()) return it->second / 1e9;
  if (const auto it = other_numbers.find("memory_gb_per_device"); it != other_numbers.end()) return it->second;
  return std::nullopt;
}

}  // namespace rb::reports
