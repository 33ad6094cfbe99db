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

}  // namespace rb::bench
