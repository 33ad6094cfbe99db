// What every MPI rank of one command must have been given alike, derived from the command's own
// options rather than listed by hand, so that an option added to the command is agreed on without
// anyone remembering to add it: every option counts with the value the command will use, unless
// it is marked, where it is registered, as agreed on by its presence only or not at all. The
// agreement itself (comparing every rank's text) is bench/sweep/distributed.hpp's agree_on_input.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace rb::bench {

enum class Agreement {
  value,     // the default: the value the command will use, given or not
  presence,  // whether it was given: each rank may name its own path, but what it asks for is collective
  none,      // rank-local, or agreed through something else (a sweep axis is, as part of the sweep)
};

// Marks opt (Agreement::value needs no mark). Returns opt, to chain like CLI11's own setters.
CLI::Option* agree_on(CLI::Option* opt, Agreement a);

// The mark of opt: Agreement::value where it has none.
Agreement agreement_of(CLI::Option* opt);

// {name: value} over every option of `command` but its help flags, after it has parsed: a flag's
// value as a bool, Agreement::presence's as whether it was given, any other's as the text of the
// variable it set (its default where not given, so that `--rounds 3` and no --rounds agree).
// Reads each option's current value through CLI11's default capture, which therefore changes what
// the command's help would print as the defaults.
nlohmann::json agreed_options(CLI::App& command);

}  // namespace rb::bench
