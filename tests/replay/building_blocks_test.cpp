// The simulation's building blocks: event order, statistics, charts and quotas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpupool/replay/quotas.h"
#include "gpupool/replay/stats.h"
#include "replay/event_queue.h"
#include "replay/svg_chart.h"

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

TEST(EventQueueTest, OrdersByTimeThenKindThenPushOrder) {
  EventQueue queue;
  queue.Push({5, EventKind::kCycle});
  queue.Push({5, EventKind::kArrival, 1});
  queue.Push({5, EventKind::kCompletion, 2});
  queue.Push({5, EventKind::kArrival, 3});
  queue.Push({1, EventKind::kArrival, 4});
  std::vector<int64_t> jobs;
  while (!queue.Empty()) jobs.push_back(queue.Pop().job);
  EXPECT_EQ(jobs, (std::vector<int64_t>{4, 2, 1, 3, -1}));
  EXPECT_EQ(queue.Now(), 5);
}

TEST(EventQueueTest, RejectsEventsInThePast) {
  EventQueue queue;
  queue.Push({10, EventKind::kArrival});
  queue.Pop();
  EXPECT_THROW(queue.Push({9, EventKind::kArrival}), std::logic_error);
}

TEST(StatsTest, MeanAndNearestRankPercentiles) {
  std::vector<double> values;
  for (int i = 1; i <= 100; ++i) values.push_back(i);
  const Summary summary = Summarize(values);
  EXPECT_EQ(summary.count, 100u);
  EXPECT_DOUBLE_EQ(summary.mean, 50.5);
  EXPECT_DOUBLE_EQ(summary.p50, 50);
  EXPECT_DOUBLE_EQ(summary.p95, 95);
  EXPECT_DOUBLE_EQ(summary.max, 100);
  EXPECT_EQ(Summarize({}).count, 0u);
}

TEST(StatsTest, CdfEndsAtOne) {
  const auto cdf = EmpiricalCdf({3, 1, 2, 2}, 2);
  ASSERT_FALSE(cdf.empty());
  EXPECT_EQ(cdf.back(), std::make_pair(3.0, 1.0));
  EXPECT_EQ(cdf.front(), std::make_pair(2.0, 0.5));
}

TEST(StatsTest, StepSeriesAveragesOverTime) {
  StepSeries series;
  series.Set(0, 0);
  series.Set(10, 4);
  series.Set(20, 2);
  series.Set(20, 0);  // the last value at one instant wins
  EXPECT_DOUBLE_EQ(series.Average(0, 20), 2);
  EXPECT_DOUBLE_EQ(series.Average(10, 30), 2);
  const auto buckets = series.Buckets(10, 30);
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_DOUBLE_EQ(buckets[0].second, 0);
  EXPECT_DOUBLE_EQ(buckets[1].second, 4);
  EXPECT_DOUBLE_EQ(buckets[2].second, 0);
  EXPECT_THROW(series.Set(5, 1), std::logic_error);
}

TEST(SvgChartTest, DrawsEverySeriesWithEscapedText) {
  LineChart chart{"GPUs <used> & free", "day", "%"};
  chart.series.push_back({"static", {{0, 10}, {1, 50}, {2, 40}}});
  chart.series.push_back({"guaranteed", {{0, 20}, {1, 80}}, true});
  const std::string svg = RenderSvg(chart);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("GPUs &lt;used&gt; &amp; free"));
  EXPECT_THAT(svg, HasSubstr(">static</text>"));
  EXPECT_THAT(svg, HasSubstr(">guaranteed</text>"));
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

TEST(SvgChartTest, LogAxisAndEmptyChartsRender) {
  LineChart chart{"cdf", "hours", "fraction"};
  chart.log_x = true;
  chart.series.push_back({"a", {{0.001, 0.1}, {0, 0.2}, {100, 1}}});
  EXPECT_THAT(RenderSvg(chart), HasSubstr(">100</text>"));
  EXPECT_THAT(RenderSvg(LineChart{"empty"}), HasSubstr("</svg>"));
  EXPECT_THROW(WriteSvg(chart, "/nonexistent-dir/x.svg"), std::runtime_error);
}

TEST(QuotaTest, ProportionalToDemandSummingToTheCluster) {
  // a: 3 GPU-days over a 1-day span, b: 1, c: nothing beyond its minimum.
  std::vector<PhillyJob> jobs = {
      {1, 0, 86400, 3, "a"}, {2, 86400, 0, 1, "c"}, {3, 0, 86400, 1, "b"}};
  const auto quotas = ProportionalQuotas(jobs, 11);
  ASSERT_EQ(quotas.size(), 3u);
  EXPECT_EQ(quotas[0].tenant, "a");
  EXPECT_DOUBLE_EQ(quotas[0].average_demand, 3);
  EXPECT_EQ(quotas[0].quota, 1 + 6);  // 8 spare GPUs split 3:1:0
  EXPECT_EQ(quotas[1].quota, 1 + 2);
  EXPECT_EQ(quotas[2].tenant, "c");
  EXPECT_EQ(quotas[2].quota, 1);
  EXPECT_THROW(ProportionalQuotas(jobs, 2), std::invalid_argument);
}

TEST(QuotaTest, LargestRemainderKeepsTheSum) {
  std::vector<PhillyJob> jobs = {{1, 0, 100, 1, "a"}, {2, 0, 100, 1, "b"}, {3, 100, 100, 1, "c"}};
  int total = 0;
  for (const auto& quota : ProportionalQuotas(jobs, 10)) total += quota.quota;
  EXPECT_EQ(total, 10);
}

}  // namespace
}  // namespace gpupool::replay
