// The options every rank must share, from the command itself (see agreed_options.hpp).
#include "bench/cli/agreed_options.hpp"

#include <string>
#include <vector>

namespace rb::bench {
namespace {

// CLI11 keeps no data of its own on an option; a named validator that accepts every value is how
// the mark travels with the option it was registered with.
constexpr const char* kPresence = "ringbench-agreement:presence";
constexpr const char* kNone = "ringbench-agreement:none";

bool has_validator(CLI::Option* opt, const std::string& name) {
  try {
    return opt->get_validator(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

std::string name_of(const CLI::Option* opt) {
  if (opt->get_positional()) return opt->get_name(true);
  if (!opt->get_lnames().empty()) return "--" + opt->get_lnames().front();
  return "-" + opt->get_snames().front();
}

std::string joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const auto& t : texts) out += (out.empty() ? "" : ",") + t;
  return out;
}

// The text of the variable opt set, or its default. An option made without a variable has no
// default function, and capturing leaves its default string as it was: then what was typed counts.
std::string current_value(CLI::Option* opt) {
  const std::string before = opt->get_default_str();
  const std::string unset = "\x01unset";
  opt->default_str(unset)->capture_default_str();
  const std::string now = opt->get_default_str();
  if (now != unset) return now;
  opt->default_str(before);
  return opt->count() > 0 ? joined(opt->reduced_results()) : before;
}

}  // namespace

CLI::Option* agree_on(CLI::Option* opt, Agreement a) {
  if (a == Agreement::value) return opt;
  return opt->check(CLI::Validator([](std::string&) { return std::string(); }, "",
                                   a == Agreement::presence ? kPresence : kNone));
}

Agreement agreement_of(CLI::Option* opt) {
  if (has_validator(opt, kNone)) return Agreement::none;
  if (has_validator(opt, kPresence)) return Agreement::presence;
  return Agreement::value;
}

nlohmann::json agreed_options(CLI::App& command) {
  nlohmann::json out = nlohmann::json::object();
  for (CLI::Option* opt : command.get_options()) {
    if (opt == command.get_help_ptr() || opt == command.get_help_all_ptr()) continue;
    const Agreement a = agreement_of(opt);
    if (a == Agreement::none) continue;
    const std::string name = name_of(opt);
    if (a == Agreement::presence)
      out[name] = opt->count() > 0;
    else if (opt->get_expected_max() == 0)
      out[name] = opt->count() > 0 && opt->as<bool>();
    else
      out[name] = current_value(opt);
  }
  return out;
}

}  // namespace rb::bench
