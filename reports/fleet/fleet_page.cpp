// The fleet page (`ringbench fleet --html`): what was judged and the verdict, the outliers and why,
// one strip chart per metric (fleet_page_charts.cpp), the nodes from farthest to nearest the fleet,
// drift and notes. Self-contained: the style is inline and there is no script, so the page reads
// anywhere a CI job leaves it.
#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "reports/fleet/fleet.hpp"
#include "reports/fleet/fleet_page_charts.hpp"
#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

using fleet_page::signed_percent;

constexpr const char* kStyle = R"CSS(
:root{--fg:#1d2329;--muted:#5b6670;--line:#d5dbe0;--ok:#2e7d32;--bad:#c62828;--na:#8d6e00;--node:#4e79a7;--gpu:#86a9c9}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:#fff;margin:0 auto;padding:0 20px 40px;max-width:1280px}
header{border-bottom:1px solid var(--line);padding:16px 0 8px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
nav a{margin-right:14px}.note{color:var(--muted);margin:4px 0 10px;font-size:13px}
.verdict{font-size:18px;font-weight:650;margin:6px 0 8px}.verdict.bad{color:var(--bad)}.verdict.ok{color:var(--ok)}.verdict.na{color:var(--na)}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #eceff1;text-align:left;white-space:nowrap;vertical-align:top}
thead th{background:#f5f7f8}td.n{text-align:right;font-variant-numeric:tabular-nums}td.id{font-family:ui-monospace,monospace;font-size:12px}
td.file{white-space:normal;overflow-wrap:anywhere;font-family:ui-monospace,monospace;font-size:12px;min-width:200px}
table.kv th{background:none;color:var(--muted);font-weight:500}table.kv td{white-space:normal}
tr.outlier td{color:var(--bad)}tr.outlier td.host{font-weight:700}td.host{font-weight:600}
ul.outliers{list-style:none;padding:0;margin:0}ul.outliers>li{border-left:4px solid var(--bad);background:#fdf3f3;padding:6px 12px;margin:8px 0}
ul.outliers .host{font-size:16px;font-weight:700;color:var(--bad);margin-right:10px}ul.outliers ul{margin:3px 0 0;padding-left:20px}
.na-box{background:#fff8e1;border-left:4px solid #f9a825;padding:6px 10px}
figure.strip{margin:0 0 22px;max-width:100%}figure.strip svg{display:block;max-width:100%;height:auto}
figcaption{font-weight:600;font-size:14px;margin:4px 0}
.axis text{font-size:11px;fill:var(--muted)}.axis .label{font-size:12px;fill:var(--fg)}.axis .gl{stroke:#eceff1}
.axis .frame{stroke:#90a4ae}.axis .sep{stroke:#d5dbe0;stroke-dasharray:2 3}.axis .lane-label{font-size:12px;font-weight:600;fill:var(--fg)}
.axis .dir{font-size:12px;font-weight:700}.axis .dir.worse{fill:var(--bad)}.axis .dir.better{fill:var(--ok)}
.band{fill:#e4eef8}.median{stroke:#37474f;stroke-width:1.3}.limit{stroke:var(--bad);stroke-width:1.2;stroke-dasharray:5 3}
.pt.node{fill:var(--node);fill-opacity:.9;stroke:#fff;stroke-width:.8}.pt.gpu{fill:var(--gpu);stroke:#fff;stroke-width:.5}
.pt.out{fill:var(--bad);fill-opacity:1;stroke:#5f0d0d;stroke-width:1}
.olabel{font-size:11.5px;font-weight:700;fill:var(--bad);paint-order:stroke;stroke:#fff;stroke-width:3px}.leader{stroke:var(--bad);stroke-width:.8}
)CSS";

std::string or_dash(const std::string& s) { return s.empty() ? "\u2014" : s; }

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// A metric named by the registry ("pass_time") or by its title, as the page writes it ("pass time").
std::string metric_title(const FleetReport& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.metric.name == name || m.metric.title == name) return m.metric.title;
  return name;
}

// A GPU's UUID inside a metric's name ("comm bandwidth (GPU-91a4c26a-…)") shortened, so a table
// column is not as wide as a UUID; the findings keep it whole.
std::string short_uuids(const std::string& text) {
  static const std::regex uuid("(GPU-[0-9a-fA-F]{8})-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  return std::regex_replace(text, uuid, "$1\u2026");
}

// The folder every node's file lies under ("/fleet/nodes/"), so the table shows each file's own
// part; empty when the files share none or there is one node.
std::string common_folder(const FleetReport& r) {
  if (r.nodes.size() < 2) return {};
  std::string prefix = r.nodes.front().file;
  for (const auto& n : r.nodes) {
    std::size_t k = 0;
    while (k < prefix.size() && k < n.file.size() && prefix[k] == n.file[k]) ++k;
    prefix.resize(k);
  }
  const auto slash = prefix.rfind('/');
  return slash == std::string::npos ? std::string() : prefix.substr(0, slash + 1);
}

std::string verdict(const FleetReport& r) {
  // Counted here rather than by FleetReport::outlier_count so the page needs only the report.
  const auto out = std::count_if(r.nodes.begin(), r.nodes.end(), [](const FleetNode& n) { return n.outlier; });
  if (!r.judged && out == 0)
    return fmt::format("<p class=\"verdict na\" id=\"verdict\">N/A: {}</p>",
                       html_escape(r.na_reason.empty() ? "the fleet was not judged" : r.na_reason));
  if (out == 0)
    return fmt::format("<p class=\"verdict ok\" id=\"verdict\">No outlier among {}</p>",
                       plural(r.nodes.size(), "node", "nodes"));
  return fmt::format("<p class=\"verdict bad\" id=\"verdict\">{} among {}</p>",
                     plural(static_cast<std::size_t>(out), "outlier", "outliers"),
                     plural(r.nodes.size(), "node", "nodes"));
}

std::string header(const FleetReport& r) {
  const FleetOptions& o = r.options;
  std::string h = fmt::format("<header><h1 id=\"title\">Fleet: {}</h1>", html_escape(or_dash(r.profile)));
  h += verdict(r);
  h += "<table class=\"kv\" id=\"fleet-facts\">";
  h += fmt::format("<tr><th>profile</th><td>{}</td></tr>", html_escape(or_dash(r.profile)));
  h += fmt::format("<tr><th>GPU model</th><td>{}</td></tr>", html_escape(or_dash(r.gpu_model)));
  h += fmt::format("<tr><th>nodes</th><td>{}</td></tr>", r.nodes.size());
  if (!r.tool_major.empty()) h += fmt::format("<tr><th>ringbench</th><td>{}.x</td></tr>", html_escape(r.tool_major));
  h += fmt::format(
      "<tr><th>thresholds</th><td id=\"thresholds\">an outlier is worse than the fleet median by more than {}, or "
      "by more than {} robust spreads and at least {}; judged with {} nodes or more</td></tr>",
      format_percent(o.max_shortfall), format_number(o.spreads, 3), format_percent(o.min_shortfall), o.min_nodes);
  h += "</table><nav><a href=\"#outliers\">outliers</a><a href=\"#charts\">charts</a><a href=\"#nodes\">nodes</a>";
  if (!r.drift.empty()) h += "<a href=\"#drift\">drift</a>";
  if (!r.notes.empty()) h += "<a href=\"#notes\">notes</a>";
  return h + "</nav></header>";
}

std::string outliers(const FleetReport& r) {
  std::string s = "<section id=\"outliers\"><h2>Outliers</h2>";
  const bool named = std::any_of(r.nodes.begin(), r.nodes.end(), [](const FleetNode& n) { return n.outlier; });
  if (!r.judged && !named)
    return s + fmt::format(
                   "<p class=\"na-box\">Not judged: {}. The charts show where each node stands; none is named an "
                   "outlier.</p></section>",
                   html_escape(or_dash(r.na_reason)));
  if (!r.judged)
    s += fmt::format(
        "<p class=\"na-box\">Not judged: {}. The nodes below are named by what they failed to "
        "measure.</p>",
        html_escape(or_dash(r.na_reason)));
  std::string items;
  for (const FleetNode& n : r.nodes) {
    if (!n.outlier) continue;
    items += fmt::format(
        "<li data-node=\"{}\"><span class=\"host\">{}</span><span class=\"note\">worst: {}, {} worse than the "
        "fleet</span><ul>",
        html_escape(n.identity.hostname), html_escape(n.identity.label()),
        html_escape(or_dash(short_uuids(metric_title(r, n.worst_metric)))), format_percent(n.worst_shortfall));
    for (const auto& f : n.findings) items += "<li>" + html_escape(f) + "</li>";
    items += "</ul></li>";
  }
  if (items.empty())
    return s + fmt::format("<p>Every node and every GPU stands within the fleet's band ({}).</p></section>",
                           plural(r.nodes.size(), "node", "nodes"));
  return s + "<ul class=\"outliers\">" + items + "</ul></section>";
}

std::string charts(const FleetReport& r) {
  std::string s =
      "<section id=\"charts\"><h2>Each metric against the fleet</h2><p class=\"note\">One chart per metric. A point "
      "is a node (upper lane), placed by how far its figure sits from the fleet median, or one of its GPUs (lower "
      "lane), placed against the median of its own node's GPUs so a GPU stands out from its siblings whatever its "
      "node does. Points at the same standing are spread vertically; hover a point for its figures.</p>";
  if (r.metrics.empty()) s += "<p>No metric the nodes share.</p>";
  for (const auto& m : r.metrics) s += fleet_page::strip_chart(m);
  return s + "</section>";
}

// Distinct GPUs the node has figures for, or the GPUs its file lists where that is more.
std::size_t gpu_count(const FleetReport& r, const FleetNode& n) {
  std::set<std::string> gpus;
  for (const auto& m : r.metrics)
    for (const auto& g : m.gpus)
      if (g.node == n.identity.hostname) gpus.insert(g.gpu);
  return std::max(gpus.size(), n.identity.gpus.size());
}

std::string nodes_table(const FleetReport& r) {
  const std::string folder = common_folder(r);
  std::string s = fmt::format(
      "<section id=\"nodes\"><h2>Nodes</h2><p class=\"note\">Farthest from the fleet first: outliers, then by "
      "the worst shortfall over metrics and GPUs (negative: better than the median).{}</p>"
      "<table id=\"nodes-table\"><thead><tr><th>#</th><th>node</th><th>standing</th><th>worst metric</th>"
      "<th>worst shortfall</th><th>GPUs</th><th>started (UTC)</th><th>git sha</th><th>file</th></tr></thead><tbody>",
      folder.empty() ? std::string() : fmt::format(" Files under <code>{}</code>.", html_escape(folder)));
  int i = 0;
  for (const FleetNode& n : r.nodes) {
    const std::string standing = n.outlier ? "outlier" : !r.judged ? "not judged" : "within";
    const std::string worst = metric_title(r, n.worst_metric);
    s += fmt::format(
        "<tr class=\"{}\" data-node=\"{}\"><td class=\"n\">{}</td><td class=\"host\">{}</td><td>{}</td>"
        "<td title=\"{}\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>"
        "<td class=\"id\" title=\"{}\">{}</td><td class=\"file\" title=\"{}\">{}</td></tr>",
        n.outlier ? "outlier" : "", html_escape(n.identity.hostname), ++i, html_escape(n.identity.label()), standing,
        html_escape(worst), html_escape(or_dash(short_uuids(worst))), signed_percent(n.worst_shortfall),
        gpu_count(r, n), html_escape(or_dash(n.identity.started_utc)), html_escape(n.identity.git_sha),
        html_escape(or_dash(n.identity.git_sha.substr(0, 12))), html_escape(n.file),
        html_escape(n.file.substr(folder.size())));
  }
  return s + "</tbody></table></section>";
}

std::string drift_table(const FleetReport& r) {
  if (r.drift.empty()) return {};
  std::string s =
      "<section id=\"drift\"><h2>Drift</h2><p class=\"note\">Nodes that sent files from different days, each "
      "compared with itself: the newest file's median value over the earliest's.</p><table id=\"drift-table\">"
      "<thead><tr><th>node</th><th>metric</th><th>from</th><th>to</th><th>change</th><th></th></tr></thead><tbody>";
  for (const FleetDrift& d : r.drift)
    s += fmt::format(
        "<tr class=\"{}\"><td class=\"host\">{}</td><td>{}</td><td title=\"{}\">{}</td><td title=\"{}\">{}</td>"
        "<td class=\"n\">{}</td><td>{}</td></tr>",
        d.beyond ? "outlier" : "", html_escape(d.node), html_escape(metric_title(r, d.metric)),
        html_escape(d.from_file), html_escape(or_dash(d.from_utc.substr(0, 10))), html_escape(d.to_file),
        html_escape(or_dash(d.to_utc.substr(0, 10))), signed_percent(d.change),
        d.beyond ? fmt::format("worse by more than {}", format_percent(r.options.max_shortfall)) : "");
  return s + "</tbody></table></section>";
}

std::string notes(const FleetReport& r) {
  if (r.notes.empty()) return {};
  std::string s = "<section id=\"notes\"><h2>Notes</h2><ul>";
  for (const auto& n : r.notes) s += "<li>" + html_escape(n) + "</li>";
  return s + "</ul></section>";
}

}  // namespace

std::string fleet_html(const FleetReport& report) {
  const std::string title = "ringbench fleet: " + or_dash(report.profile);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"generator\" content=\"ringbench fleet\">";
  html += "<title>" + html_escape(title) + "</title><style>" + kStyle + "</style></head><body>";
  html += header(report) + "<main>" + outliers(report) + charts(report) + nodes_table(report) + drift_table(report) +
          notes(report);
  return html + "</main></body></html>\n";
}

}  // namespace rb::reports
