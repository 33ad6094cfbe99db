// The fleet page from a FleetReport built by hand: eight nodes and two metrics, one node an outlier
// on pass time, one GPU of another node an outlier on bandwidth, one hostname hostile markup. The page
// draws a strip chart per metric with a point per node and marks for the GPUs, the band, the outliers
// named, the nodes' table in the report's order, every file string escaped, and says N/A when the
// fleet was not judged. The same page in a browser, from the real CLI: test_fleet_chromium.py.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "reports/fleet/fleet.hpp"
#include "reports/fleet/fleet_page_charts.hpp"
#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

const std::string kHostile = "<script>alert(1)</script>";

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// The text of one element (by its opening tag's id) up to the next closing tag of its kind.
std::string element(const std::string& page, const std::string& open, const std::string& close) {
  const auto b = page.find(open);
  if (b == std::string::npos) return {};
  const auto e = page.find(close, b);
  return page.substr(b, e == std::string::npos ? std::string::npos : e + close.size() - b);
}

FleetPoint point(const std::string& node, double relative, bool higher_is_better, const std::string& gpu = "",
                 bool outlier = false) {
  FleetPoint p;
  p.node = node;
  p.gpu = gpu;
  p.relative = relative;
  p.shortfall = higher_is_better ? 1 - relative : relative - 1;
  p.spreads = p.shortfall / 0.01;
  p.configurations = 4;
  p.outlier = outlier;
  if (outlier) p.why = fmt::format("{:.1f}% worse than the fleet median (limit 5%)", 100 * p.shortfall);
  return p;
}

// node-0 .. node-7; node-3 is "<script>…"; node-5 is 8% slower; node-2's second GPU has half the
// bandwidth. Nodes in the report's order: the two outliers first.
FleetReport make_report() {
  FleetReport r;
  r.profile = "h200-acceptance";
  r.gpu_model = "NVIDIA H200";
  r.tool_major = "2";
  r.judged = true;
  r.options.max_shortfall = 0.05;  // set, not defaulted, so the header's sentence is known
  r.options.spreads = 4;
  r.options.min_shortfall = 0.02;
  r.options.min_nodes = 5;
  std::vector<std::string> hosts;
  for (int i = 0; i < 8; ++i) hosts.push_back(i == 3 ? kHostile : fmt::format("node-{}", i));
  const std::vector<std::string> order = {"node-5", "node-2", kHostile, "node-0",
                                          "node-1", "node-4", "node-6", "node-7"};
  auto gpu_of = [](const std::string& host, int g) {
    return fmt::format("GPU-{:08x}-aaaa-bbbb-cccc-{:012x}", std::hash<std::string>{}(host)&0xffffffffu, g);
  };

  FleetMetricResult time;
  time.metric = {"pass_time", "pass time", "ms", false, true};
  time.node_limit = 1.05;
  time.gpu_limit = 1.05;
  FleetMetricResult bw;
  bw.metric = {"comm_bandwidth", "comm bandwidth", "GB/s", true, true};
  bw.node_limit = 0.95;
  bw.gpu_limit = 0.95;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::string& h = order[k];
    const double wiggle = 0.002 * static_cast<double>(k % 3) - 0.002;
    time.nodes.push_back(point(h, h == "node-5" ? 1.08 : 1 + wiggle, false, "", h == "node-5"));
    bw.nodes.push_back(point(h, h == "node-2" ? 0.87 : 1 - wiggle, true, "", h == "node-2"));
    for (int g = 0; g < 2; ++g) {
      // A GPU stands against its node's GPUs, so node-5's are where their siblings are.
      time.gpus.push_back(point(h, 1 + wiggle * (g ? 1 : -1), false, gpu_of(h, g)));
      bw.gpus.push_back(point(h, h == "node-2" && g == 1 ? 0.5 : 1 - wiggle, true, gpu_of(h, g),
                              h == "node-2" && g == 1));
      time.gpus.back().ranks = {g};
      bw.gpus.back().ranks = {g};
    }
    FleetNode n;
    n.identity.hostname = h;
    n.identity.started_utc = fmt::format("2026-12-02T10:{:02}:00Z", k);
    n.identity.git_sha = "0123456789abcdef0123";
    n.file = "/fleet/" + h + "/results.json";
    n.outlier = h == "node-5" || h == "node-2";
    // As judge_fleet names a GPU's figure: the metric's title and the GPU.
    n.worst_metric = h == "node-2" ? "comm bandwidth (" + gpu_of(h, 1) + ")" : "pass_time";
    n.worst_shortfall = h == "node-5" ? 0.08 : h == "node-2" ? 0.5 : 0.01 - 0.001 * static_cast<double>(k);
    if (h == "node-5") n.findings = {"pass time: 8.0% slower than the fleet median (limit 5%)"};
    if (h == "node-2") n.findings = {"comm bandwidth: GPU " + gpu_of(h, 1) + " (rank 1) 50.0% below the median"};
    r.nodes.push_back(n);
  }
  r.metrics = {time, bw};
  FleetDrift d;
  d.node = "node-7";
  d.metric = "pass_time";
  d.from_utc = "2026-11-01T08:00:00Z";
  d.to_utc = "2026-12-02T10:07:00Z";
  d.change = 0.03;
  r.drift = {d};
  r.notes = {"node-4: converted from results 2.3.0 on read", "a note with <b>markup</b>"};
  return r;
}

class FleetPage : public ::testing::Test {
 protected:
  void SetUp() override {
    report_ = make_report();
    page_ = fleet_html(report_);
    // Lets the browser test be developed against this page: RINGBENCH_FLEET_PAGE=/tmp/fleet.html.
    if (const char* out = std::getenv("RINGBENCH_FLEET_PAGE")) std::ofstream(out) << page_;
  }
  FleetReport report_;
  std::string page_;
};

TEST_F(FleetPage, OneStripChartPerMetricWithAPointPerNodeAndMarksForGpus) {
  EXPECT_EQ(count(page_, "<figure class=\"strip\""), report_.metrics.size());
  EXPECT_EQ(count(page_, "<svg"), report_.metrics.size());
  for (const auto& m : report_.metrics) {
    const std::string chart = element(page_, "id=\"strip-" + m.metric.name + "\"", "</figure>");
    ASSERT_FALSE(chart.empty()) << m.metric.name;
    EXPECT_EQ(count(chart, "<circle class=\"pt node"), m.nodes.size()) << m.metric.name;
    EXPECT_EQ(count(chart, "<circle class=\"pt gpu"), m.gpus.size()) << m.metric.name;
    // A tooltip on every point: hostname, relative, shortfall, spreads.
    EXPECT_EQ(count(chart, "<title>node-0\n"), 1u) << "the node's own point";
    EXPECT_EQ(count(chart, "<title>node-0 · GPU GPU-"), 2u);
    EXPECT_EQ(count(chart, "robust spreads"), m.nodes.size() + m.gpus.size());
    EXPECT_EQ(count(chart, "(relative "), m.nodes.size() + m.gpus.size());
  }
}

TEST_F(FleetPage, BandAndLimitDrawnPerLaneOnTheWorseSide) {
  const std::string time = element(page_, "id=\"strip-pass_time\"", "</figure>");
  const std::string bw = element(page_, "id=\"strip-comm_bandwidth\"", "</figure>");
  for (const std::string* c : {&time, &bw}) {
    EXPECT_EQ(count(*c, "<rect class=\"band\""), 2u);  // nodes and GPUs
    EXPECT_EQ(count(*c, "<line class=\"limit\""), 2u);
    EXPECT_EQ(count(*c, "<line class=\"median\""), 2u);
  }
  // Pass time: lower is better, so worse lies to the right; bandwidth: to the left.
  EXPECT_NE(time.find("text-anchor=\"end\">worse →</text>"), std::string::npos);
  EXPECT_NE(bw.find(">← worse</text>"), std::string::npos);
  EXPECT_NE(bw.find(">better →</text>"), std::string::npos);
  // The band of a lower-is-better metric starts at the median and runs right to the limit: its x is
  // the median's.
  std::smatch band, median;
  ASSERT_TRUE(std::regex_search(time, band, std::regex("<rect class=\"band\" x=\"([0-9.]+)\"")));
  ASSERT_TRUE(std::regex_search(time, median, std::regex("<line class=\"median\" x1=\"([0-9.]+)\"")));
  EXPECT_EQ(band[1], median[1]);
  std::smatch limit;
  ASSERT_TRUE(std::regex_search(bw, limit, std::regex("<line class=\"limit\" x1=\"([0-9.]+)\"")));
  ASSERT_TRUE(std::regex_search(bw, band, std::regex("<rect class=\"band\" x=\"([0-9.]+)\"")));
  EXPECT_EQ(band[1], limit[1]) << "bandwidth's band runs left from the median to the limit";
}

TEST_F(FleetPage, OutliersAreRedAndNamedInTheirCharts) {
  const std::string time = element(page_, "id=\"strip-pass_time\"", "</figure>");
  const std::string bw = element(page_, "id=\"strip-comm_bandwidth\"", "</figure>");
  EXPECT_EQ(count(time, "<circle class=\"pt node out\" data-node=\"node-5\""), 1u);
  EXPECT_EQ(count(time, "<circle class=\"pt gpu out\""), 0u);
  EXPECT_EQ(count(time, "class=\"pt node out\""), 1u);
  EXPECT_NE(time.find(">node-5</text>"), std::string::npos);
  EXPECT_EQ(time.find("node-2</text>"), std::string::npos) << "node-2 is no outlier on pass time";
  // The weak GPU: named by host and shortened UUID, its node's own point not an outlier.
  const std::string gpu = report_.metrics[1].gpus[3].gpu;
  ASSERT_EQ(report_.metrics[1].gpus[3].node, "node-2");
  EXPECT_EQ(count(bw, "class=\"pt gpu out\""), 1u);
  EXPECT_EQ(count(bw, "class=\"pt node out\""), 1u);
  EXPECT_NE(bw.find(">node-2 · " + gpu.substr(0, 12) + "…</text>"), std::string::npos);
  EXPECT_EQ(bw.find(gpu + "</text>"), std::string::npos) << "the label carries the UUID shortened";
  // Each name sits beside its point on the side away from the fleet where there is room: right of
  // the slow node, left of node-2 on bandwidth; the weak GPU's long name, with no room to its left
  // before the lanes' names, to its right.
  const auto beside = [](const std::string& chart, const std::string& point_class, const std::string& label_start) {
    std::smatch pt, label;
    EXPECT_TRUE(std::regex_search(chart, pt, std::regex("class=\"pt " + point_class + " out\"[^>]* cx=\"([0-9.]+)\"")));
    EXPECT_TRUE(std::regex_search(chart, label,
                                  std::regex("<text class=\"olabel\" data-node=\"[^\"]*\" x=\"([0-9.]+)\""
                                             "[^>]*>" +
                                             label_start)));
    if (pt.empty() || label.empty()) return 0.0;
    return std::stod(label[1]) - std::stod(pt[1]);
  };
  EXPECT_NEAR(beside(time, "node", "node-5<"), 9.5, 0.11);  // radius 5.5, a 4 px gap
  EXPECT_NEAR(beside(bw, "node", "node-2<"), -9.5, 0.11);
  EXPECT_NEAR(beside(bw, "gpu", "node-2 · "), 8, 0.11);
  EXPECT_NE(bw.find("text-anchor=\"end\">node-2</text>"), std::string::npos);
  // The outliers list: each outlier host with its findings, no other host.
  const std::string list = element(page_, "<section id=\"outliers\"", "</section>");
  EXPECT_NE(list.find("<span class=\"host\">node-5</span>"), std::string::npos);
  EXPECT_NE(list.find("<span class=\"host\">node-2</span>"), std::string::npos);
  EXPECT_NE(list.find("pass time: 8.0% slower than the fleet median (limit 5%)"), std::string::npos);
  EXPECT_EQ(count(list, "<span class=\"host\">"), 2u);
}

TEST_F(FleetPage, HeaderSaysVerdictProfileAndThresholds) {
  EXPECT_NE(page_.find("<p class=\"verdict bad\" id=\"verdict\">2 outliers among 8 nodes</p>"), std::string::npos);
  EXPECT_NE(page_.find("<td>h200-acceptance</td>"), std::string::npos);
  EXPECT_NE(page_.find("<td>NVIDIA H200</td>"), std::string::npos);
  const std::string t = element(page_, "id=\"thresholds\"", "</td>");
  EXPECT_NE(t.find("more than 5.0%"), std::string::npos) << t;
  EXPECT_NE(t.find("4 robust spreads and at least 2.0%"), std::string::npos) << t;
  EXPECT_NE(t.find("5 nodes or more"), std::string::npos) << t;
}

TEST_F(FleetPage, NodesTableKeepsTheReportsOrder) {
  const std::string table = element(page_, "<table id=\"nodes-table\"", "</table>");
  std::vector<std::string> rows;
  const std::regex row("<tr class=\"(outlier)?\" data-node=\"([^\"]*)\">");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it)
    rows.push_back((*it)[2]);
  ASSERT_EQ(rows.size(), report_.nodes.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_EQ(rows[i], html_escape(report_.nodes[i].identity.hostname)) << "row " << i;
  EXPECT_EQ(count(table, "<tr class=\"outlier\""), 2u);
  EXPECT_NE(table.find("<td class=\"n\">+8.0%</td>"), std::string::npos);
  EXPECT_NE(table.find("<td class=\"id\" title=\"0123456789abcdef0123\">0123456789ab</td>"), std::string::npos);
  // Files shown below the folder they share, whole in the tooltip; a GPU's UUID shortened.
  EXPECT_NE(page_.find("Files under <code>/fleet/</code>."), std::string::npos);
  EXPECT_NE(table.find("title=\"/fleet/node-5/results.json\">node-5/results.json</td>"), std::string::npos);
  const std::string uuid = report_.metrics[1].gpus[3].gpu;
  EXPECT_NE(table.find(">comm bandwidth (" + uuid.substr(0, 12) + "…)</td>"), std::string::npos);
  EXPECT_NE(table.find("<td title=\"comm bandwidth (" + uuid + ")\">"), std::string::npos);
  EXPECT_NE(table.find("<td class=\"n\">2</td>"), std::string::npos) << "two GPUs each";
  // Drift and notes follow.
  const std::string drift = element(page_, "<table id=\"drift-table\"", "</table>");
  EXPECT_NE(drift.find("2026-11-01"), std::string::npos);
  EXPECT_NE(drift.find("2026-12-02"), std::string::npos);
  EXPECT_NE(drift.find("+3.0%"), std::string::npos);
  EXPECT_NE(page_.find("<li>a note with &lt;b&gt;markup&lt;/b&gt;</li>"), std::string::npos);
}

TEST_F(FleetPage, HostileHostnameIsEscapedEverywhere) {
  EXPECT_EQ(page_.find(kHostile), std::string::npos);
  EXPECT_EQ(count(page_, "<script"), 0u) << "the page has no script of its own";
  EXPECT_GT(count(page_, "&lt;script&gt;alert(1)&lt;/script&gt;"), 3u);  // points, table, tooltips
}

TEST_F(FleetPage, NotJudgedSaysNAAndNamesNoOutlier) {
  FleetReport r = make_report();
  r.judged = false;
  r.na_reason = "4 nodes: too few to judge outliers (5 or more)";
  for (auto& n : r.nodes) n.outlier = false, n.findings.clear();
  for (auto& m : r.metrics) {
    for (auto& p : m.nodes) p.outlier = false;
    for (auto& p : m.gpus) p.outlier = false;
  }
  const std::string page = fleet_html(r);
  EXPECT_NE(page.find("<p class=\"verdict na\" id=\"verdict\">N/A: 4 nodes: too few to judge outliers (5 or "
                      "more)</p>"),
            std::string::npos);
  EXPECT_EQ(count(page, "class=\"olabel\""), 0u);
  EXPECT_EQ(count(page, "<tr class=\"outlier\""), 0u);
  EXPECT_EQ(count(page, "<td>not judged</td>"), r.nodes.size());
  EXPECT_NE(page.find("Not judged: 4 nodes"), std::string::npos);
  EXPECT_EQ(count(page, "<figure class=\"strip\""), 2u) << "the charts still show where each node stands";
}

TEST_F(FleetPage, NoOutlierSaysSo) {
  FleetReport r = make_report();
  for (auto& n : r.nodes) n.outlier = false;
  const std::string page = fleet_html(r);
  EXPECT_NE(page.find("<p class=\"verdict ok\" id=\"verdict\">No outlier among 8 nodes</p>"), std::string::npos);
}

TEST(FleetPageHelpers, SignedPercentAndShortGpu) {
  EXPECT_EQ(fleet_page::signed_percent(0.081), "+8.1%");
  EXPECT_EQ(fleet_page::signed_percent(-0.5), "\u221250.0%");
  EXPECT_EQ(fleet_page::signed_percent(-0.0001), "0.0%");
  EXPECT_EQ(fleet_page::short_gpu("GPU-3f2a1b4c-1111-2222-3333-444455556666"), "GPU-3f2a1b4c\u2026");
  EXPECT_EQ(fleet_page::short_gpu("rank 1"), "rank 1");
}

TEST(FleetPageHelpers, WorseSideFollowsTheLimit) {
  FleetMetricResult m;
  m.metric.higher_is_better = true;
  m.median = 1;
  m.node_limit = 0.95;
  EXPECT_TRUE(fleet_page::worse_below(m));
  m.metric.higher_is_better = false;
  m.node_limit = 1.05;
  EXPECT_FALSE(fleet_page::worse_below(m));
}

// Many nodes at one standing still land apart: the swarm spreads them, so no two node points share
// a position.
TEST(FleetPageChart, PointsAtOneStandingDoNotCoincide) {
  FleetMetricResult m;
  m.metric = {"pass_time", "pass time", "ms", false, false};
  m.node_limit = 1.05;
  for (int i = 0; i < 32; ++i) m.nodes.push_back(point(fmt::format("n{}", i), 1.0 + 1e-4 * (i % 4), false));
  const std::string chart = fleet_page::strip_chart(m);
  const std::regex pos("<circle class=\"pt node\" data-node=\"[^\"]*\" cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  std::vector<std::pair<double, double>> pts;
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), pos); it != std::sregex_iterator(); ++it)
    pts.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  ASSERT_EQ(pts.size(), 32u);
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j)
      EXPECT_GE(std::hypot(pts[i].first - pts[j].first, pts[i].second - pts[j].second), 8.0) << i << " " << j;
  EXPECT_EQ(count(chart, "<rect class=\"band\""), 1u) << "no GPU lane without GPUs";
}

}  // namespace
}  // namespace rb::reports
