// The real device's answer to device_kind() (kernels/device_kind.hpp).
#include "kernels/device_kind.hpp"

namespace rb::kernels {

std::string_view device_kind() { return "gpu"; }

void check_device_environment() {}

}  // namespace rb::kernels
