// The unit of a table's FLOP rates (flops_unit.hpp).
#include "common/flops_unit.hpp"

namespace rb {

FlopsUnit flops_unit(std::string_view backend) { return backend == "cpu" ? kGflops : kTflops; }

}  // namespace rb
