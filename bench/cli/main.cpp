// The `ringbench` command line: subcommands register themselves (bench/cli/command.hpp); main parses,
// runs the chosen action and maps errors to the documented exit codes. Under an MPI launcher it
// first joins the job, and every rank agrees on whether the command line parsed before any of them
// goes on, so bad input on one rank ends all of them (docs/distributed.md).
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "bench/cli/option_names.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "ring/library_versions.hpp"
#include "ring/transport/process_group.hpp"
#ifdef RINGBENCH_HAVE_CUPTI
#include "bench/measure/cupti_nvtx_tool.hpp"
#endif
#ifdef RINGBENCH_HAVE_MPI
#include "ring/transport/mpi_world.hpp"
#endif
#ifdef RINGBENCH_HAVE_CUDA
#include "kernels/device_kind.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"
#endif

namespace {

// What this build can run: " cpu" always, then each optional part that was found at configure time.
#ifdef RINGBENCH_HAVE_CUDA
#define RB_FEATURE_CUDA " cuda"
#else
#define RB_FEATURE_CUDA ""
#endif
#ifdef RINGBENCH_HAVE_MPI
#define RB_FEATURE_MPI " mpi"
#else
#define RB_FEATURE_MPI ""
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
#define RB_FEATURE_NCCL " nccl"
#else
#define RB_FEATURE_NCCL ""
#endif
#ifdef RINGBENCH_HAVE_CUPTI
#define RB_FEATURE_CUPTI " cupti"
#else
#define RB_FEATURE_CUPTI ""
#endif
#ifdef RINGBENCH_HAVE_NVTX
#define RB_FEATURE_NVTX " nvtx"
#else
#define RB_FEATURE_NVTX ""
#endif
#ifdef RINGBENCH_HAVE_CUDNN
#define RB_FEATURE_CUDNN " cudnn"
#else
#define RB_FEATURE_CUDNN ""
#endif
constexpr const char kBuildFeatures[] =
    " cpu" RB_FEATURE_CUDA RB_FEATURE_MPI RB_FEATURE_NCCL RB_FEATURE_CUPTI RB_FEATURE_NVTX RB_FEATURE_CUDNN;

// Rank 0 prints what every rank agreed on; other ranks print only what is their own.
void print_error(const char* kind, const std::exception& e) {
  const bool agreed = dynamic_cast<const rb::bench::AgreedInputError*>(&e) != nullptr;
  if (rb::bench::is_primary())
    rb::print_quietly(stderr, fmt::format("ringbench: {}: {}\n", kind, e.what()));
  else if (!agreed)
    rb::print_quietly(stderr, fmt::format("ringbench[rank {}]: {}: {}\n", rb::bench::world()->rank(), kind, e.what()));
}

// A first argument that names no command: CLI11 says only "A subcommand is required".
std::optional<rb::InputError> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (!app.get_subcommands().empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  const std::string commands = fmt::format("{}", fmt::join(names, ", "));
  if (argc < 2) return rb::InputError("command", "(none)", fmt::format("give one of the commands: {}", commands));
  if (argv[1][0] == '-') return std::nullopt;
  return rb::InputError("command", argv[1], fmt::format("unknown command; the commands are: {}", commands));
}

// An option the command does not have, before CLI11 files it among the extras and reads the value
// after it as the profile (bench/cli/option_names.hpp). A command that passes its extras on (`ab`)
// has them checked by the command they go to.
void check_option_names(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(argv[1]) && !sub->get_allow_extras())
      rb::bench::check_option_names(*sub, std::vector<std::string>(argv + 2, argv + argc), sub->get_name(),
                                    "unknown option");
}

// NVTX reads its tool once, at the process's first NVTX call: a CUPTI-traced pass sees the
// sweep's NVTX ranges only if libcupti is named before the sweep makes its first range. So a
// command that may trace (run or accept, unless --no-cupti leaves CUPTI to Nsight) names it here
// (not with libcupti 13.0.0, which crashes as NVTX's tool: one stderr line says so).
void attach_cupti_to_nvtx([[maybe_unused]] const CLI::App& app) {
#ifdef RINGBENCH_HAVE_CUPTI
  for (const char* name : {"run", "accept"}) {
    if (!app.got_subcommand(name)) continue;
    const CLI::Option* off = app.get_subcommand(name)->get_option_no_throw("--no-cupti");
    if (off == nullptr || off->count() == 0) (void)rb::bench::name_cupti_as_nvtx_tool(rb::bench::is_primary());
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // A closed stderr pipe or a file-size limit must fail the write, not kill the sweep: progress
  // drops what it cannot write, and the results writer reports EFBIG as it reports a full disk.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  std::unique_ptr<rb::ring::World> world;
  if (rb::ring::launched_by_mpi()) {
#ifdef RINGBENCH_HAVE_MPI
    try {
      world = rb::ring::make_mpi_world(&argc, &argv);
    } catch (const std::exception& e) {
      rb::print_quietly(stderr, fmt::format("ringbench: failed: joining the MPI job: {}\n", e.what()));
      return rb::bench::kExitCheckFailed;
    }
    rb::bench::set_world(world.get());
#else
    rb::print_quietly(stderr,
                      "ringbench: error: launched by an MPI launcher, but this build has no MPI (it was not found when "
                      "ringbench was configured); install libopenmpi-dev and rebuild, or set RINGBENCH_MPI=0\n");
    return rb::bench::kExitBadInput;
#endif
  }

  rb::bench::set_command_line(argc, argv);
  CLI::App app{"ringbench: benchmark and profile ring attention (context parallelism)", "ringbench"};
  app.require_subcommand(1);
  // The second line lists what this build can run, for scripts (scripts/run.sh chooses a transport
  // from it) and for bug reports.
  // The git line names the commit the build was configured at, which `ab` records as the partner's
  // and the nightly A/B mode checks a cached baseline build against (docs/nightly.md). A build with
  // cuDNN adds whether its library opens here (scripts/device-check.sh gates the cudnn acceptance on
  // that), asked only when --version is.
  app.set_version_flag("--version", [] {
    std::string text = std::string("ringbench " RINGBENCH_VERSION "\ngit: ") + rb::bench::tool_git_sha() +
                       "\nbuilt with:" + kBuildFeatures;
    if (const std::string cudnn = rb::ring::cudnn_library_status(); !cudnn.empty()) text += "\ncudnn library: " + cudnn;
#ifdef RINGBENCH_HAVE_CUDA
    if (rb::kernels::device_is_emulated())
      text +=
          "\ndevice: emulated (ringbench-emu): the cuda backend runs on the CPU, its times are the host's "
          "(docs/emulated-device.md)";
#endif
    return text;
  });
  rb::bench::CommandAction action;
  rb::bench::add_run_command(app, action);
  rb::bench::add_analyze_command(app, action);
  rb::bench::add_model_command(app, action);
  rb::bench::add_report_command(app, action);
  rb::bench::add_compare_command(app, action);
  rb::bench::add_accept_command(app, action);
  rb::bench::add_trend_command(app, action);
  rb::bench::add_ab_command(app, action);
  rb::bench::add_fleet_command(app, action);
  try {
    rb::bench::check_number_flags(app);
  } catch (const std::logic_error& e) {
    rb::print_quietly(stderr, fmt::format("ringbench: failed: internal error: {}\n", e.what()));
    return rb::bench::kExitCheckFailed;
  }
  std::optional<rb::InputError> bad;
  std::string bad_text;
  try {
    check_option_names(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return rb::bench::is_primary() ? app.exit(e) : 0;  // --help, --version
    bad = unknown_command(app, argc, argv);
    if (bad) {
      bad_text = bad->what();
    } else {
      // One short line, like every other input error, naming the flag or argument and the rule
      // (CLI11's own exit() adds a second line, and its words, `At Most 1 required but received 2`,
      // name no rule).
      bad = rb::bench::parse_error_line(app, e);
      bad_text = bad->what();
    }
  } catch (const rb::InputError& e) {
    bad = e;
    bad_text = e.what();
  }
  try {
    rb::bench::agree_on_input(bad, "");
  } catch (const rb::InputError& e) {
    print_error("error", e);
    return rb::bench::kExitBadInput;
  }
  if (bad) {
    rb::print_quietly(stderr, fmt::format("ringbench: error: {}\n", bad_text));
    return rb::bench::kExitBadInput;
  }
  attach_cupti_to_nvtx(app);
  // The process's cuDNN graphs and handles (the cudnn kernel keeps them for every round) go when the
  // command returns, however it returns: every executor is gone by then, each device is drained
  // first, and CUDA has not torn down yet, as it would have by a static destructor's turn.
  struct ReleaseCudnnGraphs {
    ~ReleaseCudnnGraphs() {
#ifdef RINGBENCH_HAVE_CUDA
      (void)rb::ring::release_cudnn_graphs();
#endif
    }
  } release_cudnn_graphs_on_return;
  // Only `run` is distributed; any other command runs once, on rank 0.
  if (!rb::bench::is_primary() && !app.got_subcommand("run")) return rb::bench::kExitOk;
  try {
#ifdef RINGBENCH_HAVE_CUDA
    rb::kernels::check_device_environment();  // ringbench-emu's settings, before anything runs
#endif
    return action ? action() : rb::bench::kExitBadInput;
  } catch (const rb::InputError& e) {
    print_error("error", e);
    return rb::bench::kExitBadInput;
  } catch (const std::exception& e) {
    print_error("failed", e);
    return rb::bench::kExitCheckFailed;
  }
}
