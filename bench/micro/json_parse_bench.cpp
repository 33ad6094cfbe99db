// Google Benchmark of the readers of outside JSON at trace scale (issue 28): a Kineto-like trace of
// 1e5 and 1e6 kernel events through the streaming trace reader, and an array of objects through the
// document parser (the shape that was quadratic under nlohmann's callback parser). Linear scaling
// shows as a flat bytes_per_second from 1e5 to 1e6; the figures go in docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "bench/measure/trace_reader.hpp"
#include "common/json_input.hpp"

namespace {

// About 57 bytes an event, like the 57 MB trace of 1e6 events in issue 28; four streams, so lanes
// and the stream lookup do their real work.
std::string kineto_like_trace(std::size_t events) {
  std::string text = R"({"schemaVersion": 1, "distributedInfo": {"rank": 0}, "traceEvents": [)";
  text.reserve(events * 64 + 128);
  for (std::size_t i = 0; i < events; ++i) {
    text += fmt::format(R"({}{{"ph":"X","cat":"kernel","name":"k{}","pid":0,"tid":{},"ts":{},"dur":3}})", i ? "," : "",
                        i % 7, 7 + i % 4, i * 4);
  }
  return text + "]}";
}

std::string array_of_objects(std::size_t n) {
  std::string text = "[";
  for (std::size_t i = 0; i < n; ++i) text += i ? ",{}" : "{}";
  return text + "]";
}

void BM_TraceRead(benchmark::State& state) {
  const auto events = static_cast<std::size_t>(state.range(0));
  const std::string text = kineto_like_trace(events);
  rb::bench::TraceReadOptions opt;
  for (auto _ : state) {
    const auto trace = rb::bench::parse_trace_text(text, "bench.json", opt);
    if (trace.timeline.intervals.size() != events) state.SkipWithError("lost events");
    benchmark::DoNotOptimize(trace.timeline.intervals.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.counters["input_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_TraceRead)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ArrayOfObjects(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string text = array_of_objects(n);
  for (auto _ : state) {
    const auto doc = rb::parse_json_input(text, "bench.json", "a document");
    if (doc.size() != n) state.SkipWithError("lost elements");
    benchmark::DoNotOptimize(doc.size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_ArrayOfObjects)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
