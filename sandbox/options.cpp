// Command-line flags of `gpupool sandbox`.
#include <algorithm>
#include <stdexcept>

#include "gpupool/common/flag_arg.h"
#include "sandbox/sandbox.h"

namespace gpupool::sandbox {
namespace {

[[noreturn]] void BadFlag(const std::string& flag, const std::string& why) {
  throw std::invalid_argument("flag " + flag + ": " + why);
}

std::string Shown(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Every numeric flag has a range, so no value can overflow the integer or
// duration it becomes.
double Number(const std::string& flag, const std::string& text, double min, double max) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value >= min && value <= max) return value;
  } catch (const std::exception&) {
  }
  BadFlag(flag, "\"" + text + "\" is not a number from " + Shown(min) + " to " + Shown(max));
}

// Simulated and real durations: up to a year, in seconds.
constexpr double kLongestSeconds = 365.0 * 24 * 3600;

// "get=0.1,list=0.05" or "0.1" (every verb).
template <typename Value, typename Convert>
std::map<std::string, Value> VerbMap(const std::string& flag, const std::string& text,
                                     Convert convert) {
  std::map<std::string, Value> map;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    const std::string verb = eq == std::string::npos ? "*" : item.substr(0, eq);
    static const char* kVerbs[] = {"*",      "get",   "list",   "watch",           "create",
                                   "update", "patch", "delete", "deletecollection"};
    if (std::find(std::begin(kVerbs), std::end(kVerbs), verb) == std::end(kVerbs)) {
      BadFlag(flag, "unknown verb \"" + verb +
                        "\" (use get, list, watch, create, update, patch, "
                        "delete, deletecollection or *)");
    }
    map[verb] = convert(eq == std::string::npos ? item : item.substr(eq + 1));
    start = comma + 1;
  }
  return map;
}

std::vector<int> Codes(const std::string& flag, const std::string& text) {
  std::vector<int> codes;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item != "500" && item != "503" && item != "429")
      BadFlag(flag, "\"" + item + "\" is not 500, 503 or 429");
    codes.push_back(std::stoi(item));
    start = comma + 1;
  }
  return codes;
}

// The --fault-* flags; throws std::invalid_argument naming the flag.
void ParseFaultFlag(const std::string& flag, const std::string& value, FaultOptions& faults) {
  auto rate = [&](const std::string& text) { return Number(flag, text, 0, 1); };
  // Ten minutes of added latency is already longer than any client waits.
  auto ms = [&](const std::string& text) {
    return static_cast<int>(Number(flag, text, 0, 600000));
  };
  if (flag == "--fault-seed") {
    faults.seed = static_cast<uint64_t>(Number(flag, value, 0, 1e18));
  } else if (flag == "--fault-error-rate") {
    faults.error_rates = VerbMap<double>(flag, value, rate);
    for (const auto& [verb, p] : faults.error_rates) {
      if (p > 1) BadFlag(flag, "rate for " + verb + " must be <= 1");
    }
  } else if (flag == "--fault-error-codes") {
    faults.error_codes = Codes(flag, value);
  } else if (flag == "--fault-retry-after") {
    faults.retry_after_seconds = static_cast<int>(Number(flag, value, 1, 86400));
  } else if (flag == "--fault-latency") {
    faults.latency_ms = VerbMap<int>(flag, value, ms);
  } else if (flag == "--fault-watch-cut") {
    faults.watch_cut_seconds = Number(flag, value, 0.1, kLongestSeconds);
  } else if (flag == "--fault-compact") {
    faults.compact_seconds = Number(flag, value, 0.1, kLongestSeconds);
  } else if (flag == "--fault-drop-rate") {
    faults.drop_rate = Number(flag, value, 0, 1);
  } else {
    BadFlag(flag, "unknown flag (see gpupool sandbox --help)");
  }
}

}  // namespace

std::string UsageText() {
  return "Usage: gpupool sandbox [flags]\n\n"
         "An in-memory Kubernetes API server with simulated GPU nodes, scheduler and kubelet.\n\n"
         "  --port N                 port on 127.0.0.1 (0, the default: a free port)\n"
         "  --port-file PATH         write the chosen port there once serving\n"
         "  --kubeconfig-out PATH    write a kubeconfig for kubectl and clients\n"
         "  --token TOKEN            bearer token clients must send (default: random)\n"
         "  --plain-http             serve HTTP instead of HTTPS\n"
         "  --nodes SPEC|FILE        e.g. \"2x8:pool=train,gpu=A100;6x2:pool=build\" or a file\n"
         "  --time-scale X           simulated seconds per real second (default 1)\n"
         "  --start-seconds S        simulated time from binding to Running (default 2)\n"
         "  --watch-history N        changes kept for watch resume (default 102400)\n"
         "  --bookmark-seconds S     bookmark interval of watches (default 10)\n"
         "  --threads N              HTTP worker threads (default 64)\n"
         "  --authorize-service-accounts\n"
         "                           issue ServiceAccount tokens (kubectl create token) and\n"
         "                           enforce RBAC on them; the --token stays all-powerful\n"
         "Fault injection (seeded, reproducible):\n"
         "  --fault-seed N           random seed (default 1)\n"
         "  --fault-error-rate R     VERB=P[,VERB=P] or P for every verb\n"
         "  --fault-error-codes C    codes to inject among 500,503,429 (default all)\n"
         "  --fault-retry-after S    Retry-After of 429/503 (default 1)\n"
         "  --fault-latency MS       VERB=MS[,VERB=MS] or MS added to every request\n"
         "  --fault-watch-cut S      end every watch stream after S seconds\n"
         "  --fault-compact S        drop the watch history every S seconds (410s)\n"
         "  --fault-drop-rate P      close connections mid-response with probability P\n";
}

Options ParseOptions(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const cli::FlagArg arg = cli::SplitFlagArg(args[i]);
    const std::string& flag = arg.name;
    const bool is_switch = flag == "--plain-http" || flag == "--authorize-service-accounts";
    std::string value = arg.value.value_or("");
    if (!arg.value && !is_switch) {
      if (i + 1 >= args.size()) BadFlag(flag, "needs a value");
      value = args[++i];
    }
    const auto on = [&] {
      const auto setting = cli::SwitchSetting(arg);
      if (!setting) BadFlag(flag, "expected true or false, got \"" + value + "\"");
      return *setting;
    };
    if (flag == "--port") {
      options.port = static_cast<int>(Number(flag, value, 0, 65535));
    } else if (flag == "--port-file") {
      options.port_file = value;
    } else if (flag == "--kubeconfig-out") {
      options.kubeconfig_out = value;
    } else if (flag == "--token") {
      if (value.empty()) BadFlag(flag, "must not be empty");
      options.token = value;
    } else if (flag == "--plain-http") {
      options.plain_http = on();
    } else if (flag == "--authorize-service-accounts") {
      options.authorize_service_accounts = on();
    } else if (flag == "--nodes") {
      options.nodes = value;
    } else if (flag == "--time-scale") {
      options.time_scale = Number(flag, value, 0.001, 1e6);
    } else if (flag == "--start-seconds") {
      options.start_seconds = Number(flag, value, 0, kLongestSeconds);
    } else if (flag == "--watch-history") {
      options.history_window = static_cast<size_t>(Number(flag, value, 1, 1e8));
    } else if (flag == "--bookmark-seconds") {
      options.bookmark_seconds = Number(flag, value, 0.1, kLongestSeconds);
    } else if (flag == "--threads") {
      options.threads = static_cast<int>(Number(flag, value, 4, 4096));
    } else if (flag.rfind("--fault-", 0) == 0) {
      ParseFaultFlag(flag, value, options.faults);
    } else {
      BadFlag(flag, "unknown flag (see gpupool sandbox --help)");
    }
  }
  return options;
}

}  // namespace gpupool::sandbox
