#include "gpupool/replay/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

namespace gpupool::replay {

const char kReplayUsage[] =
    "Usage: gpupool replay --trace philly|alibaba [flags]\n"
    "\n"
    "Replays a real GPU-cluster trace through the gpupool scheduling engine in a\n"
    "discrete-event simulation and reports what the scheduler would have done.\n"
    "\n"
    "  --trace NAME            philly: Microsoft Philly jobs of 15 virtual clusters (tenants),\n"
    "                          static quotas against guaranteed quotas.\n"
    "                          alibaba: Alibaba GPU 2023 fragmentation experiment, gpupool's\n"
    "                          placement against plain best-fit on the same arrivals.\n"
    "  --trace-dir DIR         folder holding philly-vc/ and alibaba-gpu-2023/\n"
    "                          (default: $GPUPOOL_TRACE_DIR, else ../shared/traces beside\n"
    "                          the checkout)\n"
    "  --json                  print a JSON summary on stdout instead of tables\n"
    "  --svg-dir DIR           also write SVG charts into DIR\n"
    "\n"
    "Philly (quota of a tenant: its share of the cluster in proportion to its average\n"
    "demand, at least 1 GPU; see docs/results.md):\n"
    "  --policy P              static, guaranteed, both (the two), or a comma-separated\n"
    "                          list such as static,guaranteed,pooled (default both);\n"
    "                          pooled is the reference without quotas: one shared pool\n"
    "                          in arrival order, no preemption\n"
    "  --nodes N               nodes in the simulated cluster, 1 to 100000 (default 60)\n"
    "  --gpus-per-node N       GPUs per node, 1 to 64 (default 8); larger jobs are\n"
    "                          gangs of node-sized replicas\n"
    "  --max-jobs N            replay only the first N jobs by arrival (default all)\n"
    "  --cycle-seconds S       scheduling cycles on a grid of S seconds; 0 runs one at\n"
    "                          every event time; at most 86400 (default 60)\n"
    "  --min-runtime-seconds S over-quota jobs younger than S are not reclaimed (default 0)\n"
    "  --full-cycle-interval-seconds S\n"
    "                          cycles in between look only at jobs a change could let\n"
    "                          start (incremental); 0 makes every cycle full (default 0)\n"
    "  --victim-policy P       how guaranteed quotas choose victims: least-work-lost (the\n"
    "                          engine's), fewest-victims (the earlier rule) or both, side\n"
    "                          by side (default least-work-lost)\n"
    "  --checkpoint-interval-seconds S\n"
    "                          every job checkpoints every S seconds and a preempted job\n"
    "                          restarts from its last checkpoint; 0: from zero (default 0)\n"
    "  --reclaim-wait-seconds S\n"
    "                          reclaim may wait up to S seconds for over-quota work about\n"
    "                          to end (jobs declare their trace duration) (default 0)\n"
    "  --reclaim-max-runtime-seconds S\n"
    "                          reclaim stops no over-quota job that has run longer than\n"
    "                          S seconds; it keeps its GPUs until it ends; 0: any\n"
    "                          (default 0)\n"
    "  --immediate-guarantee-percent P\n"
    "                          with --reclaim-max-runtime-seconds: a tenant holding less\n"
    "                          than P % of its quota may still reclaim work of any age\n"
    "                          (default 50)\n"
    "  --order O               which waiting job starts first: arrival (the engine's,\n"
    "                          by priority then arrival) or fewest-gpus, a what-if in\n"
    "                          which every job's priority is minus its GPU count\n"
    "                          (default arrival)\n"
    "  --sweep-nodes FROM:TO:STEP\n"
    "                          capacity sweep: replay every cluster size from FROM to TO\n"
    "                          nodes (TO at most 100000, at most 1000 sizes) and report,\n"
    "                          per policy, the GPUs needed to reach each mean wait of\n"
    "                          --sweep-wait-hours, and the ratio between them\n"
    "  --sweep-wait-hours H,H  mean waits the sweep looks for (default 1,6)\n"
    "\n"
    "Alibaba (tasks never leave; each is placed on arrival or fails):\n"
    "  --pod-list FILE         pod list inside alibaba-gpu-2023/ (default\n"
    "                          openb_pod_list_default.csv)\n"
    "  --seed N                seed of the random arrival order (default 42)\n"
    "  --arrive-percent P      stop when GPU requests reach P % of capacity, 1 to 1000\n"
    "                          (default 130)\n"
    "\n"
    "Exit status: 0 done, 1 the trace could not be read or replayed, 2 bad flags.\n";

namespace {

int64_t ParseInteger(const std::string& flag, const std::string& text, int64_t min) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || value < min) {
    throw UsageError(flag + ": expected an integer >= " + std::to_string(min) + ", got \"" + text +
                     "\"");
  }
  return value;
}

int64_t ParseIntegerIn(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  const int64_t value = ParseInteger(flag, text, min);
  if (value > max) {
    throw UsageError(flag + ": expected an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got \"" + text + "\"");
  }
  return value;
}

// The engine keeps a node's devices in a 64-bit mask: larger nodes cannot be modelled.
constexpr int64_t kMaxGpusPerNode = 64;

int64_t ParseGpusPerNode(const std::string& text) {
  const int64_t gpus = ParseInteger("--gpus-per-node", text, 1);
  if (gpus > kMaxGpusPerNode) {
    throw UsageError("--gpus-per-node: at most " + std::to_string(kMaxGpusPerNode) +
                     " (the engine models a node of at most 64 GPUs), got " + text);
  }
  return gpus;
}

double ParseNumber(const std::string& flag, const std::string& text, double min) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value) || value < min) {
    throw UsageError(flag + ": expected a number >= " + std::to_string(static_cast<int>(min)) +
                     ", got \"" + text + "\"");
  }
  return value;
}

double ParseNumberIn(const std::string& flag, const std::string& text, int min, int max) {
  const double value = ParseNumber(flag, text, min);
  if (value > max) {
    throw UsageError(flag + ": expected a number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got \"" + text + "\"");
  }
  return value;
}

std::vector<engine::VictimPolicy> ParseVictimPolicies(const std::string& text) {
  using engine::VictimPolicy;
  if (text == "least-work-lost") return {VictimPolicy::kLeastWorkLost};
  if (text == "fewest-victims") return {VictimPolicy::kFewestVictims};
  if (text == "both") return {VictimPolicy::kLeastWorkLost, VictimPolicy::kFewestVictims};
  throw UsageError("--victim-policy: expected least-work-lost, fewest-victims or both, got \"" +
                   text + "\"");
}

// The engine holds every node of the simulated cluster in memory: a bound keeps
// a mistyped size from taking the machine's memory (10^8 nodes took 14 GB in 20 s).
constexpr int64_t kMaxNodes = 100000;
// A sweep replays the trace once per size and policy.
constexpr int64_t kMaxSweepSizes = 1000;

// Cycles on a grid coarser than a day would hold jobs for days; far coarser
// grids lose the seconds of the trace's times (10^300 filled 20 GB in a minute).
constexpr int kMaxCycleSeconds = 86400;
// Arrivals go on past a full cluster (each then fails): 1,000 % takes 30 s.
constexpr int kMaxArrivePercent = 1000;

int ParseNodes(const std::string& text) {
  return static_cast<int>(ParseIntegerIn("--nodes", text, 1, kMaxNodes));
}

// FROM:TO:STEP, in nodes: FROM, FROM+STEP, ... up to TO.
std::vector<int> ParseSweepNodes(const std::string& text) {
  const std::string flag = "--sweep-nodes";
  const size_t first = text.find(':'), second = text.find(':', first + 1);
  if (first == std::string::npos || second == std::string::npos) {
    throw UsageError(flag + ": expected FROM:TO:STEP in nodes, got \"" + text + "\"");
  }
  const int64_t from = ParseInteger(flag, text.substr(0, first), 1);
  const int64_t to = ParseInteger(flag, text.substr(first + 1, second - first - 1), from);
  const int64_t step = ParseInteger(flag, text.substr(second + 1), 1);
  if (to > kMaxNodes) {
    throw UsageError(flag + ": TO is at most " + std::to_string(kMaxNodes) + " nodes, got \"" +
                     text + "\"");
  }
  if ((to - from) / step + 1 > kMaxSweepSizes) {
    throw UsageError(flag + ": at most " + std::to_string(kMaxSweepSizes) +
                     " cluster sizes (a larger STEP gives fewer), got \"" + text + "\"");
  }
  std::vector<int> nodes;
  for (int64_t n = from; n <= to; n += step) nodes.push_back(static_cast<int>(n));
  return nodes;
}

// "a,b,,c" gives a, b, an empty item and c; an empty text gives one empty item.
std::vector<std::string> SplitAtCommas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::vector<double> ParseWaitHours(const std::string& text) {
  std::vector<double> hours;
  for (const std::string& item : SplitAtCommas(text)) {
    const double value = ParseNumber("--sweep-wait-hours", item, 0);
    if (value <= 0)
      throw UsageError("--sweep-wait-hours: expected hours > 0, got \"" + text + "\"");
    hours.push_back(value);
  }
  return hours;
}

QuotaPolicy ParsePolicy(const std::string& name, const std::string& text) {
  for (QuotaPolicy policy :
       {QuotaPolicy::kStatic, QuotaPolicy::kGuaranteed, QuotaPolicy::kPooled}) {
    if (name == ToString(policy)) return policy;
  }
  throw UsageError(
      "--policy: expected static, guaranteed, pooled, both or a comma-separated "
      "list of the first three, got \"" +
      text + "\"");
}

// "both" or a comma-separated list such as static,guaranteed,pooled.
std::vector<QuotaPolicy> ParsePolicies(const std::string& text) {
  if (text == "both") return {QuotaPolicy::kStatic, QuotaPolicy::kGuaranteed};
  std::vector<QuotaPolicy> policies;
  for (const std::string& item : SplitAtCommas(text)) {
    const QuotaPolicy policy = ParsePolicy(item, text);
    if (std::find(policies.begin(), policies.end(), policy) != policies.end()) {
      throw UsageError("--policy: \"" + item + "\" is named twice in \"" + text + "\"");
    }
    policies.push_back(policy);
  }
  return policies;
}

using Setter = std::function<void(ReplayOptions&, const std::string&)>;

const std::map<std::string, Setter>& ValueFlags() {
  static const std::map<std::string, Setter> flags = {
      {"--trace",
       [](ReplayOptions& o, const std::string& v) {
         if (v != "philly" && v != "alibaba") {
           throw UsageError("--trace: expected philly or alibaba, got \"" + v + "\"");
         }
         o.trace = v == "philly" ? TraceKind::kPhilly : TraceKind::kAlibaba;
       }},
      {"--trace-dir", [](ReplayOptions& o, const std::string& v) { o.trace_dir = v; }},
      {"--svg-dir", [](ReplayOptions& o, const std::string& v) { o.svg_dir = v; }},
      {"--policy", [](ReplayOptions& o, const std::string& v) { o.policies = ParsePolicies(v); }},
      {"--nodes", [](ReplayOptions& o, const std::string& v) { o.shape.nodes = ParseNodes(v); }},
      {"--gpus-per-node",
       [](ReplayOptions& o, const std::string& v) {
         o.shape.gpus_per_node = static_cast<int>(ParseGpusPerNode(v));
       }},
      {"--max-jobs", [](ReplayOptions& o,
                        const std::string& v) { o.max_jobs = ParseInteger("--max-jobs", v, 1); }},
      {"--cycle-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.cycle_seconds = ParseNumberIn("--cycle-seconds", v, 0, kMaxCycleSeconds);
       }},
      {"--min-runtime-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.min_runtime_seconds = ParseInteger("--min-runtime-seconds", v, 0);
       }},
      {"--full-cycle-interval-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.full_cycle_interval_seconds = ParseInteger("--full-cycle-interval-seconds", v, 0);
       }},
      {"--victim-policy",
       [](ReplayOptions& o, const std::string& v) { o.victim_policies = ParseVictimPolicies(v); }},
      {"--checkpoint-interval-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.checkpoint_interval_seconds = ParseInteger("--checkpoint-interval-seconds", v, 0);
       }},
      {"--reclaim-wait-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.reclaim_wait_seconds = ParseInteger("--reclaim-wait-seconds", v, 0);
       }},
      {"--reclaim-max-runtime-seconds",
       [](ReplayOptions& o, const std::string& v) {
         o.reclaim_max_runtime_seconds = ParseInteger("--reclaim-max-runtime-seconds", v, 0);
       }},
      {"--immediate-guarantee-percent",
       [](ReplayOptions& o, const std::string& v) {
         o.immediate_guarantee_percent =
             static_cast<int>(ParseIntegerIn("--immediate-guarantee-percent", v, 0, 100));
       }},
      {"--order",
       [](ReplayOptions& o, const std::string& v) {
         if (v != "arrival" && v != "fewest-gpus") {
           throw UsageError("--order: expected arrival or fewest-gpus, got \"" + v + "\"");
         }
         o.order = v == "arrival" ? JobOrder::kArrival : JobOrder::kFewestGpus;
       }},
      {"--sweep-nodes",
       [](ReplayOptions& o, const std::string& v) { o.sweep_nodes = ParseSweepNodes(v); }},
      {"--sweep-wait-hours",
       [](ReplayOptions& o, const std::string& v) { o.sweep_wait_hours = ParseWaitHours(v); }},
      {"--pod-list", [](ReplayOptions& o, const std::string& v) { o.pod_list = v; }},
      {"--seed",
       [](ReplayOptions& o, const std::string& v) {
         o.seed = static_cast<uint64_t>(ParseInteger("--seed", v, 0));
       }},
      {"--arrive-percent",
       [](ReplayOptions& o, const std::string& v) {
         o.arrive_percent = ParseNumberIn("--arrive-percent", v, 1, kMaxArrivePercent);
       }},
  };
  return flags;
}

}  // namespace

ReplayOptions ParseReplayArgs(std::span<const std::string> args) {
  ReplayOptions options;
  bool trace_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const bool inline_value = flag.find('=') != std::string::npos;
    if (inline_value) {
      value = flag.substr(flag.find('=') + 1);
      flag = flag.substr(0, flag.find('='));
    }
    if ((flag == "-h" || flag == "--help" || flag == "--json") && !inline_value) {
      (flag == "--json" ? options.json : options.help) = true;
      continue;
    }
    const auto setter = ValueFlags().find(flag);
    if (setter == ValueFlags().end()) throw UsageError(flag + ": unknown flag");
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError(flag + ": missing value");
      value = args[++i];
    }
    setter->second(options, value);
    trace_given = trace_given || flag == "--trace";
  }
  if (!options.help && !trace_given) throw UsageError("--trace: required (philly or alibaba)");
  return options;
}

}  // namespace gpupool::replay
