// The start-up check that every numeric flag goes through the strict reader.
#include "bench/cli/number_flag.hpp"

#include <stdexcept>

namespace rb::bench {

void check_number_flags(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (const CLI::Option* opt : sub->get_options()) {
      // The validators' descriptions follow a colon ("INT:INT in [1 - 16]").
      const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
      if (type == "INT" || type == "UINT" || type == "FLOAT" || type == "NUMBER")
        throw std::logic_error(
            fmt::format("`{} {}` is declared with a bare numeric variable; declare it with "
                        "bench/cli/number_flag.hpp so the strict reader reads it",
                        sub->get_name(), opt->get_name()));
    }
    check_number_flags(*sub);
  }
}

}  // namespace rb::bench
