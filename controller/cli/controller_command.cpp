// `gpupool controller`: the operator against any Kubernetes API server.
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "controller_telemetry.h"
#include "controller_webhook.h"
#include "gpupool/common/command.h"
#include "gpupool/common/flag_arg.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/leader_election.h"
#include "gpupool/operator/controller.h"
#include "gpupool/utilization/scraper.h"
#include "listener_flags.h"
#include "log_format.h"
#include "numeric_flag.h"
#include "stop_signal.h"

namespace gpupool::cli {
namespace {

constexpr char kControllerUsage[] =
    "Usage: gpupool controller [flags]\n\n"
    "Runs the gpupool operator: admits, places and preempts TrainingJobs on the\n"
    "cluster the kubeconfig names (in-cluster config when none is found).\n"
    "Every flag may be written --flag VALUE or --flag=VALUE; a switch --flag,\n"
    "--flag=true or --flag=false.\n\n"
    "  --kubeconfig PATH          kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
    "                             then the in-cluster service account)\n"
    "  --context NAME             kubeconfig context (default: current)\n"
    "  --leader-elect             run for leadership on a Lease; only the leader writes\n"
    "  --leader-elect-namespace N namespace of the Lease (default: the config's namespace)\n"
    "  --leader-elect-name NAME   name of the Lease (default gpupool-controller)\n"
    "  --lease-duration-seconds S lease duration (default 15)\n"
    "  --identity ID              this replica's name in the Lease, its Events and its\n"
    "                             User-Agent gpupool-controller@ID (default: hostname)\n"
    "  --qps Q --burst B          client-side request rate limit; Q 0: none, the\n"
    "                             server's priority and fairness (default 0, 400)\n"
    "  --concurrent-writes N      requests in flight at once while writing a cycle's\n"
    "                             decisions (default 8)\n"
    "  --status-writes-per-cycle N  at most N job statuses that neither admit nor\n"
    "                             free anything per cycle, plus one per job it\n"
    "                             admits and an eighth of the others; the rest in\n"
    "                             the next (default 64; 0: no limit)\n"
    "  --gated-pods-per-cycle N   at most N gated pods of waiting jobs created per\n"
    "                             cycle; the rest in the next (default 256; 0: no\n"
    "                             limit)\n"
    "  --waiting-pods MODE        gated: a waiting job has its pods, gated, and\n"
    "                             admission releases them; none: its pods are created\n"
    "                             at admission, one write less a pod (default gated)\n"
    "  --reservation-namespace N  namespace of the pods that hold shared GPUs for\n"
    "                             fractions (default: the config's namespace)\n"
    "  --reservation-image IMAGE  image of those pods; it runs `gpupool reserve-device`\n"
    "                             (default gpupool)\n"
    "  --skip-priority-classes    the installation created the PriorityClasses the pods\n"
    "                             name: never create them (default: create the missing)\n"
    "  --start-timeout-seconds S  admitted pods not all running after S: requeue (default 300)\n"
    "  --resync-seconds S         a cycle at least every S seconds (default 30)\n"
    "  --pause-per-plan R         after a cycle, wait R times its planning time\n"
    "                             before the next (default 0: no pause)\n"
    "  --full-cycle-seconds S     every waiting job looked at again at least every S\n"
    "                             seconds; between, only what changes could start\n"
    "                             (default 30; 0: every cycle looks at every job)\n"
    "  --gpu-metrics-url URL      the NVIDIA DCGM exporter's /metrics (or a Prometheus\n"
    "                             /federate URL): GPU utilization for job status, metrics\n"
    "                             and the queues' idle policies (default: none)\n"
    "  --gpu-metrics-interval-seconds S  scrape every S seconds (default 15)\n"
    "  --gpu-metrics-timeout-seconds S   give one scrape at most S seconds (default 5)\n"
    "  --gpu-metrics-ca-file PATH PEM CA bundle for an https --gpu-metrics-url\n"
    "                             (default: the system's)\n"
    "  --log-level L              trace, debug, info, warn, error (default info)\n"
    "  --log-format F             text or json (default text)\n"
    "  --metrics-bind-address A   HOST:PORT of /metrics (default 127.0.0.1:8080; :8080 for\n"
    "                             every interface; port 0: any free port; 0: not served)\n"
    "  --metrics-secure           serve /metrics over HTTPS, only to bearer tokens whose\n"
    "                             user may get the path /metrics (TokenReview and\n"
    "                             SubjectAccessReview; the ServiceAccount needs create on\n"
    "                             both) (default: plain HTTP, no authentication)\n"
    "  --metrics-cert-dir DIR     with --metrics-secure: DIR/tls.crt and DIR/tls.key, read\n"
    "                             again when they change (default: a certificate\n"
    "                             generated at start)\n"
    "  --health-probe-bind-address A  HOST:PORT of /healthz and /readyz, a listener of\n"
    "                             their own (default :8081; port 0: any free port; 0: not\n"
    "                             served)\n";

struct Flags {
  std::string kubeconfig, context, lease_namespace, identity, reservation_namespace;
  std::string reservation_image = "gpupool";
  std::string lease_name = "gpupool-controller";
  bool leader_elect = false;
  bool skip_priority_classes = false;
  double qps = 0;
  double pause_per_plan = 0;
  int burst = 400;
  int lease_seconds = 15;
  int start_timeout = 300;
  int resync = 30;
  int full_cycle = 30;
  int concurrent_writes = 8;
  int status_writes_per_cycle = 64;
  int gated_pods_per_cycle = 256;
  bool gated_waiting_pods = true;
  std::string gpu_metrics_url, gpu_metrics_ca_file;
  int gpu_metrics_interval = 15;
  int gpu_metrics_timeout = 5;
  std::string log_level = "info", log_format = "text";
  bool metrics_secure = false;
  std::string metrics_cert_dir;
  // Loopback unless asked: plain /metrics has no authentication (the chart names its port).
  std::optional<metrics::BindAddress> metrics_address = metrics::BindAddress{"127.0.0.1", 8080};
  std::optional<metrics::BindAddress> probe_address = metrics::BindAddress{"0.0.0.0", 8081};
  WebhookFlags webhook;
};

std::string UrlFlag(const std::string& flag, const std::string& value) {
  if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
    throw UsageError(flag + ": must be an http:// or https:// URL, got \"" + value + "\"");
  return value;
}

bool WaitingPodsFlag(const std::string& flag, const std::string& value) {
  if (value != "gated" && value != "none")
    throw UsageError(flag + ": must be gated or none, got \"" + value + "\"");
  return value == "gated";
}

std::string ReadableFileFlag(const std::string& flag, const std::string& value) {
  if (!std::ifstream(value).good()) throw UsageError(flag + ": cannot read \"" + value + "\"");
  return value;
}

std::unique_ptr<utilization::Scraper> MakeScraper(const Flags& flags) {
  if (flags.gpu_metrics_url.empty()) return nullptr;
  utilization::ScrapeOptions options;
  options.url = flags.gpu_metrics_url;
  options.interval = std::chrono::seconds(flags.gpu_metrics_interval);
  options.timeout = std::chrono::seconds(flags.gpu_metrics_timeout);
  options.ca_file = flags.gpu_metrics_ca_file;
  return std::make_unique<utilization::Scraper>(std::move(options));
}

void RequireDistinctAddresses(const Flags& flags) {
  const auto& metrics = flags.metrics_address;
  const auto& probes = flags.probe_address;
  if (metrics && probes && metrics->port != 0 && metrics->port == probes->port &&
      metrics->host == probes->host)
    throw UsageError("--metrics-bind-address and --health-probe-bind-address: both are " +
                     metrics->ToString() + "; the probes need a listener of their own");
}

Flags ParseFlags(Args args) {
  Flags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const FlagArg arg = SplitFlagArg(args[i]);
    const std::string& flag = arg.name;
    auto value = [&]() -> std::string {
      if (arg.value) return *arg.value;
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      return args[++i];
    };
    auto on = [&]() {
      const auto setting = SwitchSetting(arg);
      if (!setting) throw UsageError(flag + ": expected true or false, got \"" + *arg.value + "\"");
      return *setting;
    };
    if (flag == "--kubeconfig")
      flags.kubeconfig = value();
    else if (flag == "--context")
      flags.context = value();
    else if (flag == "--leader-elect")
      flags.leader_elect = on();
    else if (flag == "--skip-priority-classes")
      flags.skip_priority_classes = on();
    else if (flag == "--leader-elect-namespace")
      flags.lease_namespace = value();
    else if (flag == "--leader-elect-name")
      flags.lease_name = value();
    else if (flag == "--reservation-namespace")
      flags.reservation_namespace = NameFlag(flag, value());
    else if (flag == "--reservation-image")
      flags.reservation_image = NonEmptyFlag(flag, value());
    else if (flag == "--identity")
      flags.identity = value();
    else if (flag == "--lease-duration-seconds")
      flags.lease_seconds = IntFlag(flag, value(), 3, 3600);
    else if (flag == "--qps")
      flags.qps = DoubleFlag(flag, value(), 0, 100000);
    else if (flag == "--burst")
      flags.burst = IntFlag(flag, value(), 1, 100000);
    else if (flag == "--start-timeout-seconds")
      flags.start_timeout = IntFlag(flag, value(), 1, 86400);
    else if (flag == "--resync-seconds")
      flags.resync = IntFlag(flag, value(), 1, 86400);
    else if (flag == "--pause-per-plan")
      flags.pause_per_plan = DoubleFlag(flag, value(), 0, 1000);
    else if (flag == "--full-cycle-seconds")
      flags.full_cycle = IntFlag(flag, value(), 0, 86400);
    else if (flag == "--concurrent-writes")
      flags.concurrent_writes = IntFlag(flag, value(), 1, 256);
    else if (flag == "--status-writes-per-cycle")
      flags.status_writes_per_cycle = IntFlag(flag, value(), 0, 1000000);
    else if (flag == "--gated-pods-per-cycle")
      flags.gated_pods_per_cycle = IntFlag(flag, value(), 0, 1000000);
    else if (flag == "--waiting-pods")
      flags.gated_waiting_pods = WaitingPodsFlag(flag, value());
    else if (flag == "--gpu-metrics-url")
      flags.gpu_metrics_url = UrlFlag(flag, value());
    else if (flag == "--gpu-metrics-interval-seconds")
      flags.gpu_metrics_interval = IntFlag(flag, value(), 1, 3600);
    else if (flag == "--gpu-metrics-timeout-seconds")
      flags.gpu_metrics_timeout = IntFlag(flag, value(), 1, 600);
    else if (flag == "--gpu-metrics-ca-file")
      flags.gpu_metrics_ca_file = ReadableFileFlag(flag, value());
    else if (flag == "--log-level")
      flags.log_level = value();
    else if (flag == "--log-format")
      flags.log_format = value();
    else if (flag == "--metrics-bind-address")
      flags.metrics_address = BindAddressFlag(flag, value());
    else if (flag == "--health-probe-bind-address")
      flags.probe_address = BindAddressFlag(flag, value());
    else if (flag == "--metrics-secure")
      flags.metrics_secure = on();
    else if (flag == "--metrics-cert-dir")
      flags.metrics_cert_dir = CertDirFlag(flag, value());
    else if (!ParseWebhookFlag(flag, value, flags.webhook))
      throw UsageError("unknown flag " + flag);
  }
  CheckWebhookFlags(flags.webhook);
  if (!flags.metrics_cert_dir.empty() && !flags.metrics_secure)
    throw UsageError("--metrics-cert-dir: needs --metrics-secure (plain /metrics has no TLS)");
  RequireDistinctAddresses(flags);
  ConfigureLogging(flags.log_level, flags.log_format);
  return flags;
}

std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

struct CancelOnExit {
  kube::Transport& transport;
  ~CancelOnExit() { transport.Cancel(); }
};

// The scraper wakes the controller: it stops first.
struct StopScraperOnExit {
  utilization::Scraper* scraper;
  ~StopScraperOnExit() {
    if (scraper) scraper->Stop();
  }
};

// The API server names a client's writes (metadata.managedFields) after its
// User-Agent up to the first "/": each replica's writes carry its identity.
std::string UserAgentOf(const std::string& identity) { return "gpupool-controller@" + identity; }

int RunWith(const Flags& flags) {
  std::unique_ptr<ControllerTelemetry> telemetry;
  if (flags.metrics_address || flags.probe_address)
    telemetry = std::make_unique<ControllerTelemetry>(flags.metrics_address, flags.probe_address);
  const std::string identity = flags.identity.empty() ? Hostname() : flags.identity;
  kube::TransportOptions transport;
  transport.user_agent = UserAgentOf(identity);
  transport.qps = flags.qps;
  transport.burst = flags.burst;
  if (telemetry) transport.observer = telemetry->client_observer();
  const kube::RestConfig config = kube::LoadDefaultConfig(flags.kubeconfig, flags.context);
  kube::Client client(config, transport);
  kube::EventRecorderOptions event_options;
  event_options.reporting_instance = identity;
  kube::EventRecorder events(client, event_options);
  std::unique_ptr<kube::LeaderElector> elector;
  op::ControllerOptions options;
  options.plan.start_timeout_seconds = flags.start_timeout;
  options.plan.reservation_namespace = flags.reservation_namespace.empty()
                                           ? client.default_namespace()
                                           : flags.reservation_namespace;
  options.plan.reservation_image = flags.reservation_image;
  options.create_priority_classes = !flags.skip_priority_classes;
  options.concurrent_writes = flags.concurrent_writes;
  options.status_writes_per_cycle = static_cast<std::size_t>(flags.status_writes_per_cycle);
  options.gated_pods_per_cycle = static_cast<std::size_t>(flags.gated_pods_per_cycle);
  options.plan.gated_waiting_pods = flags.gated_waiting_pods;
  options.resync = std::chrono::seconds(flags.resync);
  options.pause_per_plan = flags.pause_per_plan;
  options.plan.engine.full_cycle_interval_seconds = flags.full_cycle;
  if (flags.leader_elect) {
    kube::LeaderElectionConfig config;
    config.lease_namespace =
        flags.lease_namespace.empty() ? client.default_namespace() : flags.lease_namespace;
    config.lease_name = flags.lease_name;
    config.identity = identity;
    config.lease_duration = std::chrono::seconds(flags.lease_seconds);
    config.renew_deadline = config.lease_duration * 2 / 3;
    config.retry_period = config.lease_duration / 5;
    elector = std::make_unique<kube::LeaderElector>(client, config);
    options.is_leader = [raw = elector.get()] { return raw->IsLeader(); };
  }
  // Scrapes on its own thread; each cycle takes the last reading it holds.
  const auto scraper = MakeScraper(flags);
  if (scraper) options.gpu_readings = [raw = scraper.get()] { return raw->Latest(); };
  if (telemetry) telemetry->Observe(options);
  op::Controller controller(client, &events, options);
  const StopScraperOnExit stop_scraper{scraper.get()};
  // Leaving (stopped, or the caches never synced) cancels what is still in flight, so
  // the informers stop at once instead of finishing their retries.
  const CancelOnExit cancel_requests{client.transport()};
  // Serves from before the caches sync (/readyz says so) until the controller stops.
  ControllerTelemetry::Listeners listeners;
  if (telemetry)
    listeners =
        telemetry->Serve(controller, elector.get(), scraper.get(), identity,
                         flags.metrics_secure && flags.metrics_address
                             ? SecureMetrics(flags.metrics_cert_dir, config, transport.user_agent)
                             : metrics::ServerSecurity{});
  const WebhookListener webhook = ServeWebhook(flags.webhook, config, transport);
  if (!controller.Start(std::chrono::seconds(60), &StopRequested())) {
    if (StopRequested()) {
      spdlog::info("stopped before the caches synced");
      return 0;
    }
    spdlog::error("caches did not sync within 60 s");
    return 1;
  }
  spdlog::info("caches synced; gpupool controller {} running", identity);
  if (elector) elector->Start();
  if (scraper) scraper->Start([&controller] { controller.Notify(); });
  controller.Run(StopRequested());
  if (elector) elector->Stop();
  events.Flush(std::chrono::milliseconds(2000));
  spdlog::info("gpupool controller stopped");
  return 0;
}

}  // namespace

int RunController(Args args) {
  if (WantsHelp(args)) {
    std::cout << kControllerUsage << kWebhookUsage;
    return 0;
  }
  Flags flags;
  try {
    flags = ParseFlags(args);
  } catch (const UsageError& error) {
    std::cerr << "gpupool controller: " << error.what() << "\n\n"
              << kControllerUsage << kWebhookUsage;
    return 2;
  }
  StopOnSignals();
  try {
    return RunWith(flags);
  } catch (const std::exception& error) {
    std::cerr << "gpupool controller: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace gpupool::cli
