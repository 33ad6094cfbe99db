// Chrome/Kineto trace reader (see trace_reader.hpp).
#include "bench/measure/trace_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include "bench/measure/kernel_classify.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/json_input.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// Memory per event kept is a few hundred bytes, so one kept event per 512 bytes of the byte cap keeps
// a trace's memory near --max-trace-mb whatever the file holds.
constexpr std::size_t kTraceBytesPerKept = 512;
// A Kineto event holds about 30 values; far more in one event is not a trace.
constexpr std::size_t kMaxTraceEventValues = 4096;

// Kineto's device-side categories (older Kineto wrote "Kernel", "Memcpy", "Memset").
bool is_gpu_category(std::string cat) {
  std::transform(cat.begin(), cat.end(), cat.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" || cat == "memset";
}

// CPU-side Kineto categories: ops, annotations (ProfilerStep#N), runtime and driver calls.
bool is_cpu_category(const std::string& cat) {
  return cat == "cpu_op" || cat == "user_annotation" || (cat.size() > 8 && cat.ends_with("_runtime")) ||
         cat.ends_with("_driver");
}

bool is_profiler_step(const std::string& name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// A string member, or "" when it is missing or not a string: json::value() would throw type_error
// on a member of the wrong type, and these lookups only ask "is it this name?".
std::string string_member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

// What the reader keeps of one complete ("X") event that may become an interval: the members it
// reads, moved out of the event, so a trace of millions of events never exists as one document.
// Which events become intervals depends on whether the file is ringbench's (otherData), which the
// file may state after its events, so the choice waits for the whole file.
struct KeptEvent {
  std::size_t index = 0;
  json name, ts, dur, pid, tid;
  std::string cat;
  std::optional<json> kind, correlation, stream, step, bytes, graph_node_id, ringbench_name;
};

std::optional<json> take_member(json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  return std::move(*it);
}

json take_or_null(json& obj, const char* key) { return take_member(obj, key).value_or(json()); }

class Reader {
 public:
  Reader(const std::string& source, const TraceReadOptions& opt)
      : source_(source), opt_(opt), max_kept_(std::max<std::size_t>(opt.max_bytes / kTraceBytesPerKept, 1)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& value, const std::string& rule) const {
    throw InputError(source_ + "#" + pointer, value, rule);
  }

  // µs (integer or fractional) to ns. Integer µs convert exactly; fractional ones keep the ns the
  // double can still hold by converting whole and fractional parts apart.
  std::int64_t micros_to_ns(const json& v, const std::string& pointer, bool non_negative) const {
    constexpr double kMaxUs = 9.0e15;  // keeps ns inside int64
    if (v.is_number_integer()) {
      const auto us = v.get<std::int64_t>();
      if (std::abs(static_cast<double>(us)) > kMaxUs || (non_negative && us < 0)) {
        fail(pointer, shown(v),
             non_negative ? "must be a non-negative time in µs below 9e15" : "must be a time in µs below 9e15");
      }
      return us * 1000;
    }
    if (!v.is_number()) fail(pointer, v.is_null() ? "missing" : shown(v), "must be a number (µs)");
    const double us = v.get<double>();
    if (!std::isfinite(us) || std::abs(us) > kMaxUs || (non_negative && us < 0)) {
      fail(pointer, shown(v),
           non_negative ? "must be a finite, non-negative time in µs below 9e15"
                        : "must be a finite time in µs below 9e15");
    }
    const double whole = std::floor(us);
    return static_cast<std::int64_t>(whole) * 1000 + std::llround((us - whole) * 1000.0);
  }

  // Sums ns that a hostile file may push past int64 (an origin near INT64_MAX, a huge dur).
  std::int64_t add_ns(std::int64_t a, std::int64_t b, const std::string& pointer, const json& v,
                      const char* rule) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) fail(pointer, shown(v), rule);
    return sum;
  }

  // One element of traceEvents, as the parser finishes it: checked, its annotations and launches
  // noted, and what an interval needs kept.
  void consume(json&& ev, const std::string& array_pointer, std::size_t i) {
    const auto at = [&] { return fmt::format("{}/{}", array_pointer, i); };
    events_pointer_ = array_pointer;
    if (!ev.is_object()) fail(at(), shown(ev), "every trace event must be a JSON object");
    auto ph = ev.find("ph");
    if (ph == ev.end() || !ph->is_string())
      fail(at() + "/ph", ph == ev.end() ? "missing" : shown(*ph), "every trace event needs a string 'ph'");
    if (*ph == "M" && string_member(ev, "name") == "thread_name") {
      const auto args = ev.find("args");
      if (args != ev.end() && args->is_object()) {
        const auto name = args->find("name");
        if (name != args->end() && name->is_string()) {
          note_kept(at());
          thread_names_[{ev.value("pid", json()).dump(), ev.value("tid", json()).dump()}] =
              trim(name->get<std::string>());
        }
      }
    }
    if (*ph != "X") {
      ++skipped_;
      return;
    }
    json no_args = json::object();
    json* args = &no_args;
    if (auto a = ev.find("args"); a != ev.end()) {
      if (!a->is_object()) fail(at() + "/args", shown(*a), "args must be a JSON object");
      args = &*a;
    }
    const std::string cat = string_member(ev, "cat");
    const bool gpu = is_gpu_category(cat);
    if (opt_.exclude_last_profiler_step && !gpu) note_launch(ev, *args, at());
    if (!gpu && !args->contains("kind")) {
      // Not an interval of any trace; in a ringbench trace, only a CPU event may lack its kind.
      if (!is_cpu_category(cat) && !first_kindless_) first_kindless_ = at();
      ++skipped_;
      return;
    }
    note_kept(at());
    KeptEvent k;
    k.index = i;
    k.name = take_or_null(ev, "name");
    k.ts = take_or_null(ev, "ts");
    k.dur = take_or_null(ev, "dur");
    k.pid = take_or_null(ev, "pid");
    k.tid = take_or_null(ev, "tid");
    k.cat = cat;
    k.kind = take_member(*args, "kind");
    k.correlation = take_member(*args, "correlation");
    k.stream = take_member(*args, "stream");
    k.step = take_member(*args, "step");
    k.bytes = take_member(*args, "bytes");
    k.graph_node_id = take_member(*args, "graph_node_id");
    k.ringbench_name = take_member(*args, "ringbench_name");
    kept_.push_back(std::move(k));
  }

  TraceFile finish(const json& doc) {
    TraceFile out;
    out.source = source_;
    const json* other = nullptr;
    if (doc.is_object()) {
      auto it = doc.find("traceEvents");
      if (it == doc.end()) fail("/traceEvents", "missing", "a trace object must hold a traceEvents array");
      if (!it->is_array()) fail("/traceEvents", shown(*it), "traceEvents must be an array");
      if (auto o = doc.find("otherData"); o != doc.end() && o->is_object()) other = &*o;
    } else if (!doc.is_array()) {
      fail("", shown(doc), "a trace must be a JSON object with traceEvents, or an array of events");
    }

    const bool ours = other && string_member(*other, "producer") == "ringbench";
    out.format = ours ? "ringbench" : "kineto";
    std::int64_t origin = 0;
    int file_rank = opt_.default_rank;
    bool file_has_rank = false;
    std::map<std::int64_t, int> rank_of_pid;  // ringbench trace version 2's otherData.ranks
    if (ours) {
      out.trace_version = 1;
      if (auto v = other->find("ringbench_trace_version"); v != other->end()) {
        if (!v->is_number_integer() || v->get<std::int64_t>() < 1 ||
            v->get<std::int64_t>() > std::numeric_limits<int>::max())
          fail("/otherData/ringbench_trace_version", shown(*v), "must be a positive integer");
        out.trace_version = v->get<int>();
      }
      if (auto o = other->find("origin_ns"); o != other->end()) {
        if (!o->is_number_integer()) fail("/otherData/origin_ns", shown(*o), "must be an integer (ns)");
        origin = o->get<std::int64_t>();
      }
      if (auto m = other->find("ranks"); m != other->end()) {
        if (!m->is_array()) fail("/otherData/ranks", shown(*m), "must be a list of {pid, rank}");
        for (std::size_t i = 0; i < m->size(); ++i) {
          const json& e = (*m)[i];
          const json pid = e.is_object() ? e.value("pid", json()) : json(),
                     rank = e.is_object() ? e.value("rank", json()) : json();
          if (!pid.is_number_integer() || !rank.is_number_integer() || rank.get<std::int64_t>() < 0 ||
              rank.get<std::int64_t>() > std::numeric_limits<int>::max())
            fail(fmt::format("/otherData/ranks/{}", i), shown(e),
                 "must be {\"pid\": integer, \"rank\": non-negative integer}");
          rank_of_pid[pid.get<std::int64_t>()] = rank.get<int>();
        }
      }
      if (first_kindless_)
        fail(*first_kindless_ + "/args/kind", "missing", "every interval of a ringbench trace carries its kind");
    }
    if (doc.is_object()) {
      if (auto d = doc.find("distributedInfo"); d != doc.end() && d->is_object()) {
        if (auto r = d->find("rank"); r != d->end()) {
          if (!r->is_number_integer() || r->get<std::int64_t>() < 0 ||
              r->get<std::int64_t>() > std::numeric_limits<int>::max()) {
            fail("/distributedInfo/rank", shown(*r), "must be a non-negative integer");
          }
          file_rank = r->get<int>();
          file_has_rank = true;
        }
      }
    }
    // Version 1 of ringbench's traces had pid = rank; version 2 states the rank in metadata.
    const bool rank_from_pid = ours && out.trace_version < 2 && !file_has_rank;
    if (ours && out.trace_version >= 2 && !file_has_rank && rank_of_pid.empty())
      fail("/otherData/ranks", "missing",
           "a ringbench trace of version 2 names its ranks (otherData.ranks or distributedInfo.rank)");

    out.profiler_steps = step_starts_.size();
    out.skipped_events = skipped_;
    const bool filter_steps = opt_.exclude_last_profiler_step && step_starts_.size() >= 2;
    const std::int64_t last_step_start = step_starts_.empty()
                                             ? 0
                                             : *std::max_element(step_starts_.begin(), step_starts_.end());

    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    out.timeline.intervals.reserve(kept_.size());
    out.by_name.intervals.reserve(kept_.size());
    for (const KeptEvent& ev : kept_) {
      const std::string at = fmt::format("{}/{}", events_pointer_, ev.index);
      // Only ringbench's own traces state a kind; on a PyTorch trace args.kind is not ours to read,
      // and only device events count.
      const bool has_role_kind = ours && ev.kind.has_value();
      if (!has_role_kind && !is_gpu_category(ev.cat)) {
        ++out.skipped_events;  // an args.kind on another producer's CPU event
        continue;
      }
      if (filter_steps) {
        const auto launch = ev.correlation && ev.correlation->is_number_integer()
                                ? launch_ts_.find(ev.correlation->get<std::int64_t>())
                                : launch_ts_.end();
        if (launch == launch_ts_.end() || launch->second >= last_step_start) {
          ++out.excluded_last_step;
          continue;
        }
      }

      Interval iv;
      if (!ev.name.is_string())
        fail(at + "/name", ev.name.is_null() ? "missing" : shown(ev.name), "an interval needs a string name");
      iv.name = ev.name.get<std::string>();
      // A ringbench per-rank file names comm for HTA (ncclKernel_ringbench_...): HTA's rule reads that
      // name, the timeline keeps ringbench's own.
      const IntervalKind by_name = classify_kernel_name(iv.name);
      if (ours && ev.ringbench_name && ev.ringbench_name->is_string()) iv.name = ev.ringbench_name->get<std::string>();
      iv.begin_ns = add_ns(origin, micros_to_ns(ev.ts, at + "/ts", false), at + "/ts", ev.ts,
                           "ts plus otherData.origin_ns must stay within int64 ns");
      iv.end_ns = add_ns(iv.begin_ns, micros_to_ns(ev.dur, at + "/dur", true), at + "/dur", ev.dur,
                         "ts + dur must stay within int64 ns");

      if (rank_from_pid) {
        if (!ev.pid.is_number_integer() || ev.pid.get<std::int64_t>() < 0 ||
            ev.pid.get<std::int64_t>() > std::numeric_limits<int>::max())
          fail(at + "/pid", ev.pid.is_null() ? "missing" : shown(ev.pid),
               "pid is the rank (trace version 1): a non-negative integer");
        iv.rank = ev.pid.get<int>();
      } else if (ours && !file_has_rank) {
        const auto r = ev.pid.is_number_integer() ? rank_of_pid.find(ev.pid.get<std::int64_t>()) : rank_of_pid.end();
        if (r == rank_of_pid.end())
          fail(at + "/pid", ev.pid.is_null() ? "missing" : shown(ev.pid), "must be a pid that otherData.ranks names");
        iv.rank = r->second;
      } else {
        iv.rank = file_rank;
      }
      if (!has_role_kind && ev.stream && ev.stream->is_number_integer()) {
        iv.lane = fmt::format("stream {}", ev.stream->get<std::int64_t>());
      } else if (auto n = thread_names_.find({ev.pid.dump(), ev.tid.dump()}); n != thread_names_.end()) {
        iv.lane = n->second;
      } else {
        iv.lane = ev.tid.is_string() ? ev.tid.get<std::string>() : fmt::format("tid {}", ev.tid.dump());
      }
      if (ev.step) {
        if (!ev.step->is_number_integer() || ev.step->get<std::int64_t>() < std::numeric_limits<int>::min() ||
            ev.step->get<std::int64_t>() > std::numeric_limits<int>::max())
          fail(at + "/args/step", shown(*ev.step), "step must be an integer (-1: none)");
        iv.step = ev.step->get<int>();
      }
      if (ev.bytes) {
        if (!ev.bytes->is_number_integer() || ev.bytes->get<std::int64_t>() < 0)
          fail(at + "/args/bytes", shown(*ev.bytes), "bytes must be a non-negative integer");
        iv.bytes = ev.bytes->get<std::int64_t>();
      }
      if (ev.graph_node_id && ev.graph_node_id->is_number_unsigned())
        iv.graph_node_id = ev.graph_node_id->get<std::uint64_t>();

      std::optional<IntervalKind> role;
      if (has_role_kind) {
        if (!ev.kind->is_string() || !parse_interval_kind(ev.kind->get<std::string>())) {
          fail(at + "/args/kind", shown(*ev.kind), "kind must be one of compute, comm, memory, comm_in_flight, other");
        }
        role = parse_interval_kind(ev.kind->get<std::string>());
      } else if (auto r = opt_.stream_roles.find(iv.lane); r != opt_.stream_roles.end()) {
        role = r->second;
      }
      iv.kind = role.value_or(by_name);
      if (role) {
        ++out.role_classified;
        if (*role != by_name) ++out.differing;
      }
      lo = std::min(lo, iv.begin_ns);
      hi = std::max(hi, iv.end_ns);
      out.timeline.intervals.push_back(iv);
      iv.kind = by_name;
      out.by_name.intervals.push_back(std::move(iv));
    }

    if (ours && other->contains("window_begin_ns") && other->contains("window_end_ns")) {
      const json& b = (*other)["window_begin_ns"];
      const json& e = (*other)["window_end_ns"];
      if (!b.is_number_integer() || !e.is_number_integer() || e.get<std::int64_t>() < b.get<std::int64_t>()) {
        fail("/otherData/window_end_ns", shown(e), "the window must be integer ns with end >= begin");
      }
      lo = b.get<std::int64_t>();
      hi = e.get<std::int64_t>();
    } else if (hi < lo) {
      lo = hi = 0;
    }
    out.timeline.window_begin_ns = out.by_name.window_begin_ns = lo;
    out.timeline.window_end_ns = out.by_name.window_end_ns = hi;
    return out;
  }

 private:
  // Every event the reader keeps past its parse counts here, so memory follows --max-trace-mb.
  void note_kept(const std::string& at) {
    if (++kept_count_ > max_kept_)
      fail(at, fmt::format("more than {} kept events", max_kept_),
           fmt::format("a trace of at most {} MiB keeps at most {} device events, thread names and launches; raise "
                       "--max-trace-mb to read more",
                       opt_.max_bytes >> 20, max_kept_));
  }

  // A CPU event: a ProfilerStep#N annotation, or the launch (args.correlation) of a device event.
  void note_launch(const json& ev, const json& args, const std::string& at) {
    if (is_profiler_step(string_member(ev, "name"))) {
      note_kept(at);
      step_starts_.push_back(micros_to_ns(ev.value("ts", json()), at + "/ts", false));
      return;
    }
    const auto c = args.find("correlation");
    if (c == args.end() || !c->is_number_integer()) return;
    const std::int64_t ts = micros_to_ns(ev.value("ts", json()), at + "/ts", false);
    const auto [it, fresh] = launch_ts_.emplace(c->get<std::int64_t>(), ts);
    if (fresh) note_kept(at);
    if (!fresh) it->second = std::min(it->second, ts);
  }

  const std::string& source_;
  const TraceReadOptions& opt_;
  std::size_t max_kept_;
  std::size_t kept_count_ = 0, skipped_ = 0;
  std::string events_pointer_;
  std::vector<KeptEvent> kept_;
  std::optional<std::string> first_kindless_;  // a non-CPU event without args.kind, wrong in a ringbench trace
  // Lane names from thread_name metadata, keyed by (pid, tid) as dumped JSON; the ProfilerStep
  // annotations and the launching CPU event of each correlation id, for the last-step filter.
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
  std::vector<std::int64_t> step_starts_;
  std::map<std::int64_t, std::int64_t> launch_ts_;  // args.correlation -> earliest CPU event ts (ns)
};

// A gzip or plain file as a chunked reader (gzread passes plain files through).
class GzipFile {
 public:
  explicit GzipFile(const std::filesystem::path& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
      throw InputError(path.string(), "'" + path.string() + "'",
                       S_ISDIR(st.st_mode) ? "give trace files or folders of them"
                                           : "a trace must be a regular file or a pipe, not a device");
    f_ = gzopen(path.c_str(), "rb");
    if (!f_) throw InputError(path.string(), "'" + path.string() + "'", "the trace file must exist and be readable");
  }
  ~GzipFile() { gzclose(f_); }
  GzipFile(const GzipFile&) = delete;
  GzipFile& operator=(const GzipFile&) = delete;

  std::size_t read(char* buf, std::size_t capacity) {
    const int n = gzread(f_, buf, static_cast<unsigned>(std::min<std::size_t>(capacity, 1u << 30)));
    int err = Z_OK;
    const char* msg = gzerror(f_, &err);
    if (n < 0 || (err != Z_OK && err != Z_STREAM_END))
      throw InputError(path_.string(), "gzip stream: " + std::string(msg ? msg : "read error"),
                       "a .gz trace must be a complete gzip file");
    return static_cast<std::size_t>(n);
  }

 private:
  std::filesystem::path path_;
  gzFile f_ = nullptr;
};

constexpr const char* kTraceWhat = "a trace (Chrome trace JSON, plain or gzip-compressed)";

// Parses from a chunked reader: traceEvents streams through the Reader one event at a time.
TraceFile parse_trace_stream(const BoundedInput::ReadChunk& read, const std::string& source,
                             const TraceReadOptions& options, const BoundedInput::TooLarge& too_large) {
  BoundedInput input(read, options.max_bytes, too_large, source, kTraceWhat);
  std::istream in(&input);
  Reader reader(source, options);
  JsonArrayStream events{"traceEvents", [&](json&& ev, const std::string& pointer, std::size_t i) {
                           reader.consume(std::move(ev), pointer, i);
                         }};
  const json doc = parse_json_stream(in, source, kTraceWhat, &events, {kMaxJsonValues, kMaxTraceEventValues});
  return reader.finish(doc);
}

}  // namespace

TraceFile parse_trace_text(std::string_view text, const std::string& source, const TraceReadOptions& options) {
  std::size_t at = 0;
  const auto read = [&](char* buf, std::size_t capacity) {
    const std::size_t n = std::min(capacity, text.size() - at);
    std::memcpy(buf, text.data() + at, n);
    at += n;
    return n;
  };
  return parse_trace_stream(read, source, options, [&] {
    throw InputError(source, fmt::format("more than {} MiB", options.max_bytes >> 20),
                     "raise --max-trace-mb to read a trace this large");
  });
}

TraceFile read_trace_file(const std::filesystem::path& path, const TraceReadOptions& options) {
  GzipFile file(path);
  return parse_trace_stream(
      [&](char* buf, std::size_t capacity) { return file.read(buf, capacity); }, path.string(), options,
      [&] {
        throw InputError(path.string(), fmt::format("more than {} MiB once decompressed", options.max_bytes >> 20),
                         "raise --max-trace-mb to read a trace this large");
      });
}

}  // namespace rb::bench
