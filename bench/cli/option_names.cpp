// Unknown options and the nearest known one (bench/cli/option_names.hpp).
#include "bench/cli/option_names.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::bench {
namespace {

// What another tool's user types, and what ringbench calls it (nccl-tests, NVBench, asv, pytest-
// benchmark habits); edit distance alone would offer --max-time for NVBench's --min-time.
struct Habit {
  std::string_view command, typed, advice;
};
constexpr Habit kHabits[] = {
    {"run", "-n", "did you mean --repeats (timed passes per configuration, nccl-tests' -n)?"},
    {"run", "--iters", "did you mean --repeats (timed passes per configuration)?"},
    {"run", "--iterations", "did you mean --repeats (timed passes per configuration)?"},
    {"run", "--runs", "did you mean --repeats (timed passes per configuration)?"},
    {"run", "-w", "did you mean --warmup (untimed passes, nccl-tests' -w)?"},
    {"run", "--warmup-iters", "did you mean --warmup (untimed passes)?"},
    {"run", "--warmup_iters", "did you mean --warmup (untimed passes)?"},
    {"run", "--min-time",
     "ringbench samples for no minimum time; did you mean --max-noise PCT (sample until the noise is at most PCT; "
     "--min-samples, --max-time bound it)?"},
    {"run", "--profile", "a profile is an argument, not an option: ringbench run PROFILE.json"},
    {"run", "-a", "did you mean --seq? NVBench's -a \"S[pow2]=[10:17]\" is --seq 1k:128k:x2"},
    {"run", "--axis", "did you mean --seq? NVBench's --axis \"S[pow2]=[10:17]\" is --seq 1k:128k:x2"},
    {"run", "-d", "did you mean --dtype (nccl-tests' -d)?"},
    {"run", "--datatype", "did you mean --dtype?"},
    {"run", "-i", "did you mean --seq B:E:+STEP (an arithmetic range; nccl-tests' -i)?"},
    {"run", "--stepbytes", "did you mean --seq B:E:+STEP (an arithmetic range)?"},
    {"run", "--minbytes", "did you mean -b (--seq-begin)?"},
    {"run", "--maxbytes", "did you mean -e (--seq-end)?"},
    {"run", "--stepfactor", "did you mean -f (--seq-factor)?"},
};

// Whether `arg` is written as an option: '-' or "--", then a letter. "-1" and "-" are not (values).
bool written_as_option(std::string_view arg) {
  const std::size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind('-', 0) == 0 ? 1 : 0;
  if (dashes == 0 || arg.size() <= dashes) return false;
  const char c = arg[dashes];
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Levenshtein distance, with a swap of two neighbours counted as one edit (--repaets).
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string_view without_dashes(std::string_view s) {
  while (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s;
}

}  // namespace

std::string option_advice(const CLI::App& command, const std::string& name) {
  for (const Habit& h : kHabits)
    if (h.command == command.get_name() && h.typed == name) return std::string(h.advice);
  const std::string_view typed = without_dashes(name);
  if (typed.size() < 2) return "";
  // Near: within a third of the name's length, at least 1 and at most 3 edits; -repeats (one dash)
  // is --repeats at distance 0.
  const std::size_t near = std::clamp<std::size_t>(typed.size() / 3, 1, 3);
  std::string best;
  std::size_t best_distance = near + 1;
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden: never offered
    for (const std::string& l : opt->get_lnames()) {
      const std::size_t d = distance(typed, l);
      if (d < best_distance) best_distance = d, best = "--" + l;
    }
  }
  return best.empty() ? "" : fmt::format("did you mean {}?", best);
}

void check_option_names(const CLI::App& command, const std::vector<std::string>& args, const std::string& where,
                        const std::string& unknown) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return;
    if (!written_as_option(arg)) continue;
    const bool is_long = arg.rfind("--", 0) == 0;
    // --name=value; a short option's value may follow its letter (-b1024).
    const std::size_t eq = is_long ? arg.find('=') : std::string::npos;
    const std::string name = is_long ? arg.substr(0, eq) : arg.substr(0, 2);
    const bool attached = is_long ? eq != std::string::npos : arg.size() > 2;
    const CLI::Option* opt = command.get_option_no_throw(name);
    if (opt == nullptr) {
      // -repeats is --repeats with one dash, not -r with "epeats" after it.
      const bool word = !is_long && arg.size() > 3 && std::all_of(arg.begin() + 1, arg.end(), [](char c) {
        return c == '-' || std::isalpha(static_cast<unsigned char>(c)) != 0;
      });
      const std::string shown = word ? arg : name;
      const std::string advice = option_advice(command, shown);
      throw InputError(where, shown, advice.empty() ? unknown : fmt::format("{}; {}", unknown, advice));
    }
    // An option of one value takes the next argument, whatever it looks like.
    if (!attached && opt->get_items_expected_max() == 1) ++i;
  }
}

namespace {

// The command being read (the last subcommand parsed), and what it takes as arguments: "BASE NEW".
const CLI::App& command_of(const CLI::App& app) {
  const CLI::App* at = &app;
  for (;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return *at;
    at = subs.back();
  }
}

std::string positionals(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : command.get_options())
    if (opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty()) {
      std::string n = opt->get_name();
      std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::toupper(c); });
      names.push_back(n);
    }
  return names.empty() ? "no argument" : fmt::format("{}", fmt::join(names, " "));
}

// "NAME: REST" split at the first ": ", or {"", text}.
std::pair<std::string, std::string> named(const std::string& text) {
  const std::size_t colon = text.find(": ");
  if (colon == std::string::npos) return {"", text};
  return {text.substr(0, colon), text.substr(colon + 2)};
}

// The numbers of "… N … M …", in order.
std::vector<long> numbers_in(const std::string& text) {
  std::vector<long> out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
    out.push_back(std::stol(text.substr(i, std::min<std::size_t>(end - i, 9))));
    i = end;
  }
  return out;
}

}  // namespace

InputError parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& command = command_of(app);
  const std::string name = &command == &app ? std::string("ringbench") : command.get_name();
  const std::string what = e.what();
  const std::string help = fmt::format("see ringbench {}--help", &command == &app ? "" : name + " ");
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // "The following argument(s) was/were not expected: a b"
    const std::string extra = named(what).second;
    return InputError(name, extra,
                      fmt::format("{} not expected: `{}` takes {} ({})",
                                  extra.find(' ') == std::string::npos ? "an argument" : "arguments", name,
                                  positionals(command), help));
  }
  const auto [flag, rest] = named(what);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::vector<long> n = numbers_in(what);
    if (what.find("At Most") != std::string::npos && n.size() >= 2)
      return InputError(flag, fmt::format("given {} times", n[1]),
                        fmt::format("takes {} value{}; give it once ({})", n[0], n[0] == 1 ? "" : "s", help));
    if (what.find("At least") != std::string::npos && n.size() >= 2)
      return InputError(flag, fmt::format("{} value{}", n[1], n[1] == 1 ? "" : "s"),
                        fmt::format("takes at least {} ({})", n[0], help));
    if (what.rfind("Expected ", 0) == 0 && n.size() >= 2) {
      const std::size_t to = what.find(" arguments to "), comma = what.rfind(", got");
      const std::string option = to != std::string::npos && comma != std::string::npos
                                     ? what.substr(to + 14, comma - to - 14)
                                     : name;
      return InputError(option, fmt::format("{} value{}", n[1], n[1] == 1 ? "" : "s"),
                        fmt::format("takes {} {} ({})",
                                    what.find("exactly") != std::string::npos ? "exactly" : "at least", n[0], help));
    }
    if (what.find(" missing") != std::string::npos)
      return InputError(flag, "(none)", fmt::format("needs a value ({})", help));
    return InputError(flag.empty() ? name : flag, "as given", fmt::format("{} ({})", rest, help));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    // "--out is required", "Exactly 1 option from [a, b]"
    const std::size_t is = what.find(" is required");
    if (is != std::string::npos && what.find(' ') == is) {
      // An argument by the name --help gives it (BASE_BIN), an option as it is written.
      std::string missing = what.substr(0, is);
      if (missing.rfind('-', 0) != 0)
        std::transform(missing.begin(), missing.end(), missing.begin(),
                       [](unsigned char c) { return std::toupper(c); });
      return InputError(missing, "(none)", fmt::format("`{}` needs it ({})", name, help));
    }
    return InputError(name, "the options given", fmt::format("{} ({})", what, help));
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr ||
      dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
    // "--a excludes --b", "--a requires --b"
    const bool excludes = dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr;
    const std::string verb = excludes ? " excludes " : " requires ";
    const std::size_t at = what.find(verb);
    if (at != std::string::npos) {
      const std::string a = what.substr(0, at), b = what.substr(at + verb.size());
      return InputError(a, excludes ? "given with " + b : "given without " + b,
                        excludes ? fmt::format("cannot be given with {}; give one of them", b)
                                 : fmt::format("needs {} too", b));
    }
  }
  if (!flag.empty()) return InputError(flag, "as given", fmt::format("{} ({})", rest, help));
  return InputError(name, "the command line", fmt::format("{} ({})", what, help));
}

}  // namespace rb::bench
