// Chrome/Kineto trace reader (see trace_reader.hpp).
#include "bench/measure/trace_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include "bench/measure/kernel_classify.hpp"
#include "common/error.hpp"
#include "common/json_input.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

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

class Reader {
 public:
  Reader(const std::string& source, const TraceReadOptions& opt) : source_(source), opt_(opt) {}

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

  TraceFile parse(const json& doc) {
    TraceFile out;
    out.source = source_;
    const json* events = nullptr;
    const json* other = nullptr;
    std::string events_ptr = "";
    if (doc.is_array()) {
      events = &doc;  // Chrome's "JSON Array Format"
    } else if (doc.is_object()) {
      auto it = doc.find("traceEvents");
      if (it == doc.end()) fail("/traceEvents", "missing", "a trace object must hold a traceEvents array");
      if (!it->is_array()) fail("/traceEvents", shown(*it), "traceEvents must be an array");
      events = &*it;
      events_ptr = "/traceEvents";
      if (auto o = doc.find("otherData"); o != doc.end() && o->is_object()) other = &*o;
    } else {
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
        if (!v->is_number_integer() || v->get<std::int64_t>() < 1)
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

    // Lane names from thread_name metadata, keyed by (pid, tid) as dumped JSON; the ProfilerStep
    // annotations and the launching CPU event of each correlation id, for the last-step filter.
    std::map<std::pair<std::string, std::string>, std::string> thread_names;
    std::vector<std::int64_t> step_starts;
    std::map<std::int64_t, std::int64_t> launch_ts;  // args.correlation -> earliest CPU event ts (ns)
    for (std::size_t i = 0; i < events->size(); ++i) {
      const json& ev = (*events)[i];
      const std::string at = fmt::format("{}/{}", events_ptr, i);
      if (!ev.is_object()) fail(at, shown(ev), "every trace event must be a JSON object");
      auto ph = ev.find("ph");
      if (ph == ev.end() || !ph->is_string())
        fail(at + "/ph", ph == ev.end() ? "missing" : shown(*ph), "every trace event needs a string 'ph'");
      if (*ph == "M" && string_member(ev, "name") == "thread_name") {
        const json* args = ev.contains("args") ? &ev["args"] : nullptr;
        if (args && args->is_object() && args->contains("name") && (*args)["name"].is_string()) {
          thread_names[{ev.value("pid", json()).dump(), ev.value("tid", json()).dump()}] =
              trim((*args)["name"].get<std::string>());
        }
      }
      if (*ph != "X" || !opt_.exclude_last_profiler_step) continue;
      const std::string cat = string_member(ev, "cat");
      if (is_gpu_category(cat)) continue;
      if (is_profiler_step(string_member(ev, "name"))) {
        step_starts.push_back(micros_to_ns(ev.value("ts", json()), at + "/ts", false));
        continue;
      }
      const auto a = ev.find("args");
      if (a == ev.end() || !a->is_object()) continue;
      const auto c = a->find("correlation");
      if (c == a->end() || !c->is_number_integer()) continue;
      const std::int64_t ts = micros_to_ns(ev.value("ts", json()), at + "/ts", false);
      const auto [it, fresh] = launch_ts.emplace(c->get<std::int64_t>(), ts);
      if (!fresh) it->second = std::min(it->second, ts);
    }
    out.profiler_steps = step_starts.size();
    const bool filter_steps = opt_.exclude_last_profiler_step && step_starts.size() >= 2;
    const std::int64_t last_step_start = step_starts.empty()
                                             ? 0
                                             : *std::max_element(step_starts.begin(), step_starts.end());

    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < events->size(); ++i) {
      const json& ev = (*events)[i];
      const std::string at = fmt::format("{}/{}", events_ptr, i);
      if (ev["ph"] != "X") {
        ++out.skipped_events;
        continue;
      }
      const json empty_args = json::object();
      const json* args = &empty_args;
      if (auto a = ev.find("args"); a != ev.end()) {
        if (!a->is_object()) fail(at + "/args", shown(*a), "args must be a JSON object");
        args = &*a;
      }
      // Only ringbench's own traces state a kind; on a PyTorch trace args.kind is not ours to read,
      // and only device events count.
      auto kind_it = ours ? args->find("kind") : args->end();
      const bool has_role_kind = kind_it != args->end();
      const std::string cat = ev.contains("cat") && ev["cat"].is_string() ? ev["cat"].get<std::string>() : "";
      if (!has_role_kind && !is_gpu_category(cat)) {
        if (ours && !is_cpu_category(cat))
          fail(at + "/args/kind", "missing", "every interval of a ringbench trace carries its kind");
        ++out.skipped_events;  // CPU op, runtime call, annotation: not GPU work
        continue;
      }
      if (filter_steps) {
        const auto c = args->find("correlation");
        const auto launch = c != args->end() && c->is_number_integer() ? launch_ts.find(c->get<std::int64_t>())
                                                                       : launch_ts.end();
        if (launch == launch_ts.end() || launch->second >= last_step_start) {
          ++out.excluded_last_step;
          continue;
        }
      }

      Interval iv;
      auto name = ev.find("name");
      if (name == ev.end() || !name->is_string())
        fail(at + "/name", name == ev.end() ? "missing" : shown(*name), "an interval needs a string name");
      iv.name = name->get<std::string>();
      // A ringbench per-rank file names comm for HTA (ncclKernel_ringbench_...): HTA's rule reads that
      // name, the timeline keeps ringbench's own.
      const IntervalKind by_name = classify_kernel_name(iv.name);
      if (auto rn = args->find("ringbench_name"); ours && rn != args->end() && rn->is_string())
        iv.name = rn->get<std::string>();
      iv.begin_ns = origin + micros_to_ns(ev.value("ts", json()), at + "/ts", false);
      iv.end_ns = iv.begin_ns + micros_to_ns(ev.value("dur", json()), at + "/dur", true);

      const json pid = ev.value("pid", json()), tid = ev.value("tid", json());
      if (rank_from_pid) {
        if (!pid.is_number_integer() || pid.get<std::int64_t>() < 0 ||
            pid.get<std::int64_t>() > std::numeric_limits<int>::max())
          fail(at + "/pid", pid.is_null() ? "missing" : shown(pid),
               "pid is the rank (trace version 1): a non-negative integer");
        iv.rank = pid.get<int>();
      } else if (ours && !file_has_rank) {
        const auto r = pid.is_number_integer() ? rank_of_pid.find(pid.get<std::int64_t>()) : rank_of_pid.end();
        if (r == rank_of_pid.end())
          fail(at + "/pid", pid.is_null() ? "missing" : shown(pid), "must be a pid that otherData.ranks names");
        iv.rank = r->second;
      } else {
        iv.rank = file_rank;
      }
      if (auto s = args->find("stream"); !has_role_kind && s != args->end() && s->is_number_integer()) {
        iv.lane = fmt::format("stream {}", s->get<std::int64_t>());
      } else if (auto n = thread_names.find({pid.dump(), tid.dump()}); n != thread_names.end()) {
        iv.lane = n->second;
      } else {
        iv.lane = tid.is_string() ? tid.get<std::string>() : fmt::format("tid {}", tid.dump());
      }
      if (auto s = args->find("step"); s != args->end()) {
        if (!s->is_number_integer()) fail(at + "/args/step", shown(*s), "step must be an integer (-1: none)");
        iv.step = s->get<int>();
      }
      if (auto b = args->find("bytes"); b != args->end()) {
        if (!b->is_number_integer() || b->get<std::int64_t>() < 0)
          fail(at + "/args/bytes", shown(*b), "bytes must be a non-negative integer");
        iv.bytes = b->get<std::int64_t>();
      }
      if (auto g = args->find("graph_node_id"); g != args->end() && g->is_number_unsigned())
        iv.graph_node_id = g->get<std::uint64_t>();

      std::optional<IntervalKind> role;
      if (has_role_kind) {
        if (!kind_it->is_string() || !parse_interval_kind(kind_it->get<std::string>())) {
          fail(at + "/args/kind", shown(*kind_it), "kind must be one of compute, comm, memory, comm_in_flight, other");
        }
        role = parse_interval_kind(kind_it->get<std::string>());
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
  const std::string& source_;
  const TraceReadOptions& opt_;
};

}  // namespace

std::string read_maybe_gzip(const std::filesystem::path& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw InputError(path.string(), "'" + path.string() + "'",
                     S_ISDIR(st.st_mode) ? "give trace files or folders of them"
                                         : "a trace must be a regular file or a pipe, not a device");
  // gzopen reads plain files transparently, so one path serves .json and .json.gz.
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string(), "'" + path.string() + "'", "the trace file must exist and be readable");
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n > 0) text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      gzclose(f);
      throw InputError(path.string(), fmt::format("more than {} MiB once decompressed", max_bytes >> 20),
                       "raise --max-trace-mb to read a trace this large");
    }
    if (n < static_cast<int>(sizeof buf)) {
      int err = Z_OK;
      const char* msg = gzerror(f, &err);
      if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
        std::string m = msg ? msg : "read error";
        gzclose(f);
        throw InputError(path.string(), "gzip stream: " + m, "a .gz trace must be a complete gzip file");
      }
      break;
    }
  }
  gzclose(f);
  return text;
}

TraceFile parse_trace_text(std::string_view text, const std::string& source, const TraceReadOptions& options) {
  const json doc = parse_json_input(text, source, "a trace (Chrome trace JSON, plain or gzip-compressed)");
  return Reader(source, options).parse(doc);
}

TraceFile read_trace_file(const std::filesystem::path& path, const TraceReadOptions& options) {
  return parse_trace_text(read_maybe_gzip(path, options.max_bytes), path.string(), options);
}

}  // namespace rb::bench
