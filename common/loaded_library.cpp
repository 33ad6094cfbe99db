// The loader's list of loaded objects (see loaded_library.hpp).
#include "common/loaded_library.hpp"

#include <link.h>

namespace rb {

bool names_library(std::string_view path, std::string_view soname_stem) {
  const auto slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (soname_stem.empty() || file.substr(0, soname_stem.size()) != soname_stem) return false;
  // "libcupti.so" names libcupti.so and libcupti.so.13, not libcupti.so_backup.
  const std::string_view rest = file.substr(soname_stem.size());
  return rest.empty() || rest.front() == '.';
}

std::string loaded_library_path(std::string_view soname_stem) {
  struct Search {
    std::string_view stem;
    std::string found;
  } search{soname_stem, {}};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t /*size*/, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the executable itself
        if (!names_library(info->dlpi_name, s->stem)) return 0;
        s->found = info->dlpi_name;
        return 1;  // stops the walk
      },
      &search);
  return search.found;
}

}  // namespace rb
