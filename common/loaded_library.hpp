// Where a shared library this process has loaded lives, asked of the dynamic loader's own list of
// loaded objects (dl_iterate_phdr). Not dladdr on an imported function: in an executable built
// without PIE, the address of an imported function is the executable's own PLT entry, so dladdr names
// the executable (issue 50; checked with a test built both ways, tests/common/test_loaded_library.cpp).
// NVTX_INJECTION64_PATH then named the test binary, and cuDNN's frontend was never told this
// process's CUDA runtime. Needs no CUDA: the users name libcupti and libcudart.
#pragma once

#include <string>
#include <string_view>

namespace rb {

// The path of the first loaded object whose file name starts with `soname_stem` (a stem that ends in
// ".so", such as "libcupti.so", so that "libcupti.so.13" matches and "libcupti_extra.so" does not),
// as the loader recorded it (a full path where it searched by name); empty when none is loaded (the
// library is absent, or linked statically).
std::string loaded_library_path(std::string_view soname_stem);

// Whether `path`'s file name starts with `soname_stem`: what loaded_library_path keeps, for callers
// that refuse a path from elsewhere.
bool names_library(std::string_view path, std::string_view soname_stem);

}  // namespace rb
