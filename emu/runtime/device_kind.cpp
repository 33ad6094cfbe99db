// The emulated device's answer to device_kind() (kernels/device_kind.hpp): a binary that links it
// labels its timings emulated.
#include "kernels/device_kind.hpp"

namespace rb::kernels {

std::string_view device_kind() { return "emulated"; }

}  // namespace rb::kernels
