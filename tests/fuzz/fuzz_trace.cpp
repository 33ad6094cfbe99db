// libFuzzer target: the Chrome/Kineto trace reader (with and without HTA's last-step filter) and the
// metrics over what it reads. Any bytes either give a timeline whose metrics compute, or fail with
// rb::InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/measure/metrics.hpp"
#include "bench/measure/trace_reader.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bool hta_steps : {false, true}) {
    try {
      rb::bench::TraceReadOptions opt;
      opt.exclude_last_profiler_step = hta_steps;
      const auto trace = rb::bench::parse_trace_text(text, "fuzz.json", opt);
      (void)rb::bench::compute_metrics(trace.timeline);
    } catch (const rb::InputError&) {
    }
  }
  return 0;
}
