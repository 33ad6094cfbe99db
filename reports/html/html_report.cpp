// Assembles report.html: the page, its inline style and script, and the sections (report_*.cpp).
// The style and script are string constants here so the file stays self-contained and nothing is
// fetched; the script only adds conveniences on top of a page that is complete without it.
#include "reports/html/html_report.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/output_file.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

constexpr const char* kStyle = R"CSS(
:root{--fg:#1d2329;--muted:#5b6670;--line:#d5dbe0;--bg:#fff;--ok:#2e7d32;--bad:#c62828;--skip:#8d6e00}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;padding:0 20px 40px;max-width:1280px}
header{border-bottom:1px solid var(--line);padding:16px 0 8px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
nav a{margin-right:14px}.note{color:var(--muted);margin:4px 0 10px}.missing{background:#fff8e1;border-left:4px solid #f9a825;padding:6px 10px}
.counts span{margin-right:14px}.counts .ok{color:var(--ok)}.counts .failed{color:var(--bad)}.counts .skipped{color:var(--skip)}
.scroll{overflow:auto;max-height:640px;border:1px solid var(--line)}
.pin{position:sticky;left:0;z-index:1;background:var(--bg);box-shadow:inset -1px 0 0 var(--line)}thead th.pin{z-index:2;background:#f5f7f8}
.common{margin:4px 0 8px;font-weight:500}.warn{background:#fff3e0;border-left:4px solid #e65100;padding:6px 10px;margin:6px 0;max-width:780px}
.with-warn{max-width:540px}table.strat{margin:0 0 6px}table.strat caption{white-space:normal}table.strat tr.win td{background:#e8f5e9;font-weight:600}td.win-mark{color:var(--ok)}td.disagree{color:#e65100;font-weight:600}table.strat td.reason{max-width:340px;color:var(--muted)}table.strat td.st-failed{color:var(--bad)}table.strat td.st-skipped{color:var(--skip)}table.best{margin:0 0 6px}table.best td.best{font-weight:600;color:var(--ok)}tr.shared td{background:#fff8f0}.warn-mark{color:#e65100;cursor:help}.within{color:var(--muted);font-size:12px}
details.how{margin:0 0 6px}details.how>summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #eceff1;text-align:left;white-space:nowrap}
thead th{position:sticky;top:0;background:#f5f7f8;cursor:default}.js table.sortable thead th{cursor:pointer}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.n{text-align:right;font-variant-numeric:tabular-nums}td.na{color:#9aa5ad}td.id{font-family:ui-monospace,monospace;font-size:12px}
td.reason{white-space:normal;max-width:720px}
tr.failed td.st,td.fail{color:var(--bad);font-weight:600}tr.skipped td.st{color:var(--skip)}tr.ok td.st,td.pass{color:var(--ok)}
table.kv{margin:8px 0}table.kv th{background:none;position:static;color:var(--muted);font-weight:500}table.kv td{white-space:normal}
caption{text-align:left;font-weight:600;padding:6px 0}
.grid{display:flex;flex-wrap:wrap;gap:12px 18px}.chart{margin:0;max-width:100%}.chart svg{max-width:100%;height:auto;display:block}
figcaption{font-weight:600;font-size:13px;margin:4px 0}
.axis text{font-size:11px;fill:var(--muted)}.axis .label{font-size:12px;fill:var(--fg)}
.axis .gl{stroke:#eceff1}.axis .frame,.axis .tick{stroke:#90a4ae}
.ln{fill:none;stroke:var(--k);stroke-width:1.8}.ln.dash{stroke-dasharray:6 3}.mk{fill:var(--k)}.mk.ring{fill:none;stroke:var(--k);stroke-width:2}
.bar{fill:var(--k)}.planned .bar{fill-opacity:.45}.ref{stroke:#37474f;stroke-dasharray:4 3}
.legend{list-style:none;padding:0;margin:4px 0 0 58px;display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;max-width:520px}
.sw{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;background:var(--k)}.sw.ring{background:none;border:2px solid var(--k);border-radius:50%}.sw.dash{height:4px;vertical-align:3px;background:repeating-linear-gradient(90deg,var(--k) 0 5px,transparent 5px 8px)}
.c0{--k:#4e79a7}.c1{--k:#f28e2b}.c2{--k:#e15759}.c3{--k:#76b7b2}.c4{--k:#59a14f}.c5{--k:#edc948}.c6{--k:#b07aa1}.c7{--k:#ff9da7}.c8{--k:#9c755f}.c9{--k:#3b3b3b}
details.tl{border:1px solid var(--line);margin:6px 0;padding:2px 8px}details.tl>summary{cursor:pointer;font-weight:600;padding:4px 0}
.js-only{display:none}.js .js-only{display:block}.picker{margin:6px 0 10px}ul.ids{columns:3;font-family:ui-monospace,monospace;font-size:12px}
@media print{.js-only{display:none}details{display:block}}
)CSS";

constexpr const char* kScript = R"JS(
(function(){
"use strict";
document.documentElement.classList.add("js");
function sortBy(table,th,col){
  var dir=th.getAttribute("aria-sort")==="ascending"?-1:1;
  Array.prototype.forEach.call(th.parentNode.cells,function(h){h.removeAttribute("aria-sort");});
  th.setAttribute("aria-sort",dir===1?"ascending":"descending");
  var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
  var keyed=rows.map(function(r,i){var c=r.cells[col],num=c.hasAttribute("data-v");
    var v=num?c.getAttribute("data-v"):c.textContent;return {r:r,i:i,num:num,e:v==="",v:num&&v!==""?parseFloat(v):v};});
  keyed.sort(function(a,b){
    if(a.e!==b.e)return a.e?1:-1;
    var d=(a.num&&b.num)?a.v-b.v:String(a.v).localeCompare(String(b.v));
    return d!==0?dir*d:a.i-b.i;});
  var frag=document.createDocumentFragment();keyed.forEach(function(k){frag.appendChild(k.r);});body.appendChild(frag);
}
Array.prototype.forEach.call(document.querySelectorAll("table.sortable"),function(t){
  Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){
    th.tabIndex=0;th.title="sort by this column";
    th.addEventListener("click",function(){sortBy(t,th,i);});
    th.addEventListener("keydown",function(e){if(e.key==="Enter"){sortBy(t,th,i);}});});});
var pick=document.getElementById("timeline-pick");
function show(id){
  Array.prototype.forEach.call(document.querySelectorAll("details.tl"),function(d){
    d.hidden=id!==""&&d.id!==id;if(d.id===id){d.open=true;}});}
if(pick){pick.addEventListener("change",function(){show(pick.value);});}
document.addEventListener("click",function(e){
  var a=e.target.closest?e.target.closest("a[href^='#tl-']"):null;
  if(a&&pick){pick.value=a.getAttribute("href").slice(1);show(pick.value);}});
})();
)JS";

std::string scalar(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : std::string();
}

}  // namespace

std::string render_report(const ResultsFile& results, const ReportOptions& opt) {
  const json& doc = results.doc;
  const json& host = doc.contains("host") ? doc["host"] : json();
  const std::optional<int> cpu_threads = host.is_object() && host.contains("cpu_threads") &&
                                                 host["cpu_threads"].is_number_integer()
                                             ? std::optional<int>(host["cpu_threads"].get<int>())
                                             : std::nullopt;
  const auto runs = view_runs(results.runs(), cpu_threads);
  const json profile = doc.contains("profile") ? doc["profile"] : json();
  const json tool = doc.contains("tool") ? doc["tool"] : json();
  const std::string profile_name = scalar(profile, "name");
  const std::string title = !opt.title.empty()
                                ? opt.title
                                : "ringbench: " +
                                      (profile_name.empty() ? results.path.filename().string() : profile_name);
  std::size_t ok = 0, failed = 0, skipped = 0;
  for (const auto& r : runs) (r.status == "ok" ? ok : r.status == "failed" ? failed : skipped) += 1;

  std::vector<std::string> anchors;
  const std::string timelines = section_timelines(runs, opt, anchors);

  std::string html;
  html.reserve(1 << 20);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  html += "<meta name=\"generator\" content=\"ringbench report\">";
  html += fmt::format("<meta name=\"ringbench-results-schema\" content=\"{}\">",
                      html_escape(scalar(doc, "schema_version")));
  html += "<title>" + html_escape(title) + "</title><style>" + kStyle + "</style></head><body>";
  html += "<header><h1 id=\"title\">" + html_escape(title) + "</h1>";
  if (const std::string d = scalar(profile, "description"); !d.empty()) html += "<p>" + html_escape(d) + "</p>";
  if (emulated_timings(results))
    html +=
        "<p class=\"failed\" id=\"emulated\">Emulated device (ringbench-emu): correctness was checked against the "
        "float64 reference; every time here is the host's running the kernels' CPU twins, not a GPU's "
        "(docs/emulated-device.md).</p>";
  html += fmt::format(
      "<p class=\"counts\" id=\"counts\"><span>{} configurations</span><span class=\"ok\">{} ok</span>"
      "<span class=\"failed\">{} failed</span><span class=\"skipped\">{} skipped</span><span>{} {}, "
      "git {}</span></p>",
      runs.size(), ok, failed, skipped, html_escape(scalar(tool, "name")), html_escape(scalar(tool, "version")),
      html_escape(scalar(tool, "git_sha")));
  html +=
      "<nav><a href=\"#strategies\">strategies</a><a href=\"#summary\">summary</a><a href=\"#best\">fastest at c</a><a "
      "href=\"#failures\">failures</a><a "
      "href=\"#time-vs-seq\">time vs "
      "S</a><a href=\"#rank-bars\">work per rank</a><a href=\"#overlap\">overlap</a><a "
      "href=\"#timelines\">timelines</a><a href=\"#samples\">samples</a><a href=\"#model\">model</a><a "
      "href=\"#environment\">environment</a></nav>"
      "</header><main>";
  // First: which strategy and design won here, before the per-configuration detail.
  html += section_strategies(runs);
  html += section_summary(runs, anchors);
  html += section_best_at_c(runs);
  html += section_failures(runs);
  html += section_time_vs_seq(runs, opt);
  html += section_rank_bars(runs, opt);
  html += section_overlap(runs);
  html += section_backward(runs);
  html += section_cupti(runs);
  html += timelines;
  html += section_samples(runs, opt);
  html += section_model(runs);
  if (!opt.trend_html.empty())
    html += "<div id=\"trend\"><h2>Trend over the nightly history</h2>" + opt.trend_html + "</div>";
  html += section_environment(doc, results.path.string());
  html += "</main><script>";
  html += kScript;
  html += "</script></body></html>\n";
  return html;
}

void write_report(const ResultsFile& results, const std::filesystem::path& out, const ReportOptions& opt) {
  write_output_file("--out", out, render_report(results, opt));
}

std::filesystem::path write_report_next_to(const std::filesystem::path& results_json, const ReportOptions& opt) {
  const ResultsFile results = read_results(results_json);
  const std::filesystem::path out = results_json.parent_path() / "report.html";
  write_report(results, out, opt);
  return out;
}

}  // namespace rb::reports
