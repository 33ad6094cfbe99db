// Unknown options, named before CLI11 parses (issue 32): CLI11 files an option it does not know
// among the extras and goes on, so `run -b 1024` used to say the profile 1024 does not exist. Every
// argument written as an option (a '-' then a letter) must be one of the command's; one that is not
// is bad input naming it, with the nearest option the command has by edit distance ("did you mean
// --repeats?") or, for the spellings of other benchmark tools (nccl-tests' -n, NVBench's
// --min-time), what ringbench calls the same thing.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rb::bench {

// Throws InputError(where, the option, "<unknown> ... did you mean --x?") for the first argument
// of `args` (what follows the command's name) written as an option that `command` does not have;
// `unknown` is the rule's first words ("unknown option"). Stops at "--". An option's value is
// skipped, so `--out -x` is not read as an option.
void check_option_names(const CLI::App& command, const std::vector<std::string>& args, const std::string& where,
                        const std::string& unknown);

// The advice for an option `command` does not have: "did you mean --repeats?", or "" where none is
// near.
std::string option_advice(const CLI::App& command, const std::string& name);

}  // namespace rb::bench
