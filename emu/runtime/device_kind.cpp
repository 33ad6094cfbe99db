// The emulated device's answer to device_kind() (kernels/device_kind.hpp): a binary that links it
// labels its timings emulated.
#include "kernels/device_kind.hpp"

#include "emu/runtime/emu_state.hpp"

namespace rb::kernels {

std::string_view device_kind() { return "emulated"; }

void check_device_environment() { (void)emu::detail::read_environment(); }

}  // namespace rb::kernels
