// Unknown options, named before CLI11 parses (issue 32): CLI11 files an option it does not know
// among the extras and goes on, so `run -b 1024` used to say the profile 1024 does not exist. Every
// argument written as an option (a '-' then a letter) must be one of the command's; one that is not
// is bad input naming it, with the nearest option the command has by edit distance ("did you mean
// --repeats?") or, for the spellings of other benchmark tools (nccl-tests' -n, NVBench's
// --min-time), what ringbench calls the same thing. And CLI11's own refusals, rewritten into the
// one-line form of every input error (a flag, its value, the rule).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/error.hpp"

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

// CLI11's refusal of a command line (`--out: At Most 1 required but received 2`, `The following
// arguments were not expected: a b`) as ringbench's one line: where (the flag, or the command for
// an argument too many), the value and the rule. `app` is the parsed top-level app, which knows the
// command that was being read.
InputError parse_error_line(const CLI::App& app, const CLI::ParseError& e);

}  // namespace rb::bench
