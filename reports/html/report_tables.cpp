// The report's tables: failures and skips with their reasons, and the environment the sweep ran in.
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>(), 6);
  if (v.is_null()) return "null";
  return v.dump();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Values of keys whose name contains `needle` (e.g. "driver"), anywhere in tool, host and the GPUs:
// the CUDA backend's field names are not fixed yet, and a report should show them whatever they are.
std::vector<std::string> find_keys(const json& doc, const std::string& needle, const std::string& unless = "") {
  std::vector<std::string> out;
  std::function<void(const json&, const std::string&, int)> walk = [&](const json& j, const std::string& where,
                                                                       int depth) {
    if (depth > 3) return;
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        const std::string lk = lower(k);
        if (lk.find(needle) != std::string::npos && (unless.empty() || lk.find(unless) == std::string::npos) &&
            !v.is_object() && !v.is_array())
          out.push_back(fmt::format("{} ({})", scalar_text(v), where.empty() ? k : where + "." + k));
        walk(v, where.empty() ? k : where + "." + k, depth + 1);
      }
    } else if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], fmt::format("{}[{}]", where, i), depth + 1);
    }
  };
  for (const char* part : {"tool", "host", "environment"})
    if (doc.contains(part)) walk(doc[part], part, 0);
  return out;
}

std::string fact(const std::string& name, const std::vector<std::string>& values, const std::string& absent) {
  std::string v;
  for (const auto& x : values) v += (v.empty() ? "" : "; ") + html_escape(x);
  return fmt::format("<tr><th>{}</th><td{}>{}</td></tr>", name, v.empty() ? " class=\"na\"" : "",
                     v.empty() ? html_escape(absent) : v);
}

std::string object_table(const json& obj, const std::string& caption) {
  if (!obj.is_object() || obj.empty()) return {};
  std::string s = fmt::format("<table class=\"kv\"><caption>{}</caption>", html_escape(caption));
  for (const auto& [k, v] : obj.items())
    s += fmt::format("<tr><th>{}</th><td>{}</td></tr>", html_escape(k), html_escape(scalar_text(v)));
  return s + "</table>";
}

}  // namespace

std::string not_measured(const std::string& what) {
  return "<p class=\"missing\"><strong>Not measured.</strong> " + html_escape(what) + "</p>";
}

std::string num_cell(const std::optional<double>& v, const std::string& text) {
  return v ? fmt::format("<td class=\"n\" data-v=\"{}\">{}</td>", format_number(*v, 8), text)
           : "<td class=\"n na\" data-v=\"\">\u2014</td>";
}

std::string shared_cpus_warning(const std::vector<const RunView*>& runs, const std::string& consequence) {
  std::set<std::pair<int, int>> shared;  // (c, CPUs)
  for (const RunView* r : runs)
    if (r->shared_cpus()) shared.emplace(r->cp, r->cpus);
  if (shared.empty()) return {};
  std::string s = "<p class=\"warn cpu-shared\" role=\"note\">\u26a0 ranks shared CPUs: ";
  bool first = true;
  for (const auto& [c, cpus] : shared) {
    s += fmt::format("{}c = {} ranks on {} CPU{}", first ? "" : ", ", c, cpus, cpus == 1 ? "" : "s");
    first = false;
  }
  s += "; per-rank times include waiting for a core.";
  if (!consequence.empty()) s += fmt::format(" {}", html_escape(consequence));
  return s + "</p>";
}

// CUPTI's figures beside the cost of getting them: the traced pass runs slower than the timed ones
// (22-275% at S = 8192 on the first H200 run, under 1-33% at S = 32768), so its intervals describe
// a slower pass. Shown only for runs that carry a CUPTI record.
std::string section_cupti(const std::vector<RunView>& runs) {
  std::string rows;
  double worst = 0;
  for (const auto& r : runs) {
    if (!r.cupti_traced_ms && r.cupti_error.empty()) continue;
    rows += fmt::format("<tr><td class=\"id\">{}</td>", html_escape(r.id));
    if (!r.cupti_error.empty()) {
      rows += fmt::format("<td colspan=\"6\" class=\"reason\">tracing failed: {}</td></tr>",
                          html_escape(r.cupti_error));
      continue;
    }
    if (r.cupti_overhead_pct) worst = std::max(worst, *r.cupti_overhead_pct);
    const bool costly = r.cupti_overhead_pct && *r.cupti_overhead_pct > 10;
    rows += num_cell(r.cupti_clean_ms, r.cupti_clean_ms ? format_number(*r.cupti_clean_ms, 4) : "");
    rows += num_cell(r.cupti_traced_ms, r.cupti_traced_ms ? format_number(*r.cupti_traced_ms, 4) : "");
    rows += fmt::format("<td class=\"n{}\" data-v=\"{}\">{}</td>", costly ? " fail" : "",
                        r.cupti_overhead_pct ? format_number(*r.cupti_overhead_pct, 6) : "",
                        r.cupti_overhead_pct ? format_number(*r.cupti_overhead_pct, 3) + "%" : "");
    rows += num_cell(r.cupti_comm_ms, r.cupti_comm_ms ? format_number(*r.cupti_comm_ms, 3) : "");
    rows += num_cell(r.cupti_overlap, r.cupti_overlap ? format_percent(*r.cupti_overlap) : "");
    rows += num_cell(r.cupti_exposed_ms, r.cupti_exposed_ms ? format_number(*r.cupti_exposed_ms, 3) : "");
    rows += "</tr>";
  }
  if (rows.empty()) return {};
  std::string s =
      "<section id=\"cupti\"><h2>The CUPTI-traced pass</h2><p class=\"note\">One extra pass per configuration, after "
      "the timed ones, traced with CUPTI activity (docs/metrics.md). <strong>Tracing costs time:</strong> the traced "
      "pass ran up to " +
      format_number(worst, 3) +
      "% slower than the timed median here (the first H200 run saw 22\u2013275% at S = 8192 and under 1\u201333% at "
      "S = 32768), so its comm, overlap and exposed comm describe that slower pass. The headline figures come from "
      "the timed passes; overheads above 10% are marked.</p><div class=\"scroll\"><table "
      "class=\"sortable\"><thead><tr>";
  for (const char* h :
       {"configuration", "timed median ms", "traced pass ms", "overhead", "comm ms", "overlap", "exposed comm ms"})
    s += fmt::format("<th>{}</th>", h);
  return s + "</tr></thead><tbody>" + rows + "</tbody></table></div></section>";
}

std::string section_failures(const std::vector<RunView>& runs) {
  std::string rows;
  std::size_t failed = 0, skipped = 0;
  for (const auto& r : runs) {
    if (r.status == "ok") continue;
    (r.status == "failed" ? failed : skipped) += 1;
    rows += fmt::format(
        "<tr class=\"{0}\"><td class=\"n\">{1}</td><td class=\"id\">{2}</td><td class=\"st\">{0}</td>"
        "<td class=\"reason\">{3}</td></tr>",
        html_escape(r.status), r.index, html_escape(r.id),
        html_escape(r.reason.empty() ? "(no reason recorded)" : r.reason));
  }
  std::string s = fmt::format("<section id=\"failures\"><h2>Failures and skips</h2><p>{} failed, {} skipped.</p>",
                              failed, skipped);
  if (!rows.empty())
    s += "<div class=\"scroll\"><table id=\"failures-table\"><thead><tr><th>#</th><th>configuration</th><th>status</th>"
         "<th>reason</th></tr></thead><tbody>" +
         rows + "</tbody></table></div>";
  else
    s += "<p class=\"note\">Every configuration ran and passed its check.</p>";
  return s + "</section>";
}

std::string section_environment(const json& doc, const std::string& source) {
  const json tool = doc.value("tool", json::object()), host = doc.value("host", json::object());
  std::string s = "<section id=\"environment\"><h2>Environment</h2><table class=\"kv\" id=\"env-facts\">";
  std::vector<std::string> gpus;
  if (host.contains("gpus") && host["gpus"].is_array())
    for (const auto& g : host["gpus"])
      gpus.push_back(g.is_object() ? scalar_text(g.value("name", json(g.dump()))) : scalar_text(g));
  s += fact("GPU", gpus, "none recorded (the CPU backend ran, or the file predates GPU fields)");
  s += fact("driver", find_keys(doc, "driver"), "not recorded");
  s += fact("CUDA", find_keys(doc, "cuda", "cuda_build"), "not recorded");
  s += fact("NCCL", find_keys(doc, "nccl"), "not recorded");
  s += fact("clocks", find_keys(doc, "clock"), "not recorded");
  auto one = [](const json& obj, const char* key) {
    return obj.is_object() && obj.contains(key) ? std::vector<std::string>{scalar_text(obj[key])}
                                                : std::vector<std::string>{};
  };
  s += fact("host", one(host, "hostname"), "not recorded");
  s += fact("OS", one(host, "os"), "not recorded");
  auto cpu = one(host, "cpu_model");
  if (!cpu.empty() && host.contains("cpu_threads"))
    cpu[0] += fmt::format(", {} threads", scalar_text(host["cpu_threads"]));
  s += fact("CPU", cpu, "not recorded");
  s += fact("ringbench", one(tool, "version"), "not recorded");
  s += fact("git sha", one(tool, "git_sha"), "not recorded");
  s += fact("command line", one(tool, "command_line"), "not recorded");
  s += fact("CUDA build", one(tool, "cuda_build"), "not recorded");
  s += fact("results",
            {fmt::format("{} (schema {} {})", source, scalar_text(doc.value("schema", json("?"))),
                         scalar_text(doc.value("schema_version", json("?"))))},
            "");
  s += "</table><details><summary>Everything the file records about the tool, host and profile</summary>";
  s += object_table(tool, "tool") + object_table(host, "host");
  if (host.contains("gpus") && host["gpus"].is_array())
    for (std::size_t i = 0; i < host["gpus"].size(); ++i) s += object_table(host["gpus"][i], fmt::format("GPU {}", i));
  const json profile = doc.value("profile", json::object());
  if (profile.is_object()) {
    json flat = json::object();
    for (const auto& [k, v] : profile.items())
      if (k != "sweep") flat[k] = v;
    s += object_table(flat, "profile");
    if (profile.contains("sweep")) s += object_table(profile["sweep"], "sweep axes");
  }
  return s + "</details></section>";
}

}  // namespace rb::reports
