#include "cluster_flags.h"

#include "gpupool/kube/config.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

std::string Joined(const std::set<std::string>& formats) {
  std::string joined;
  for (const auto& format : formats) joined += (joined.empty() ? "" : ", ") + format;
  return joined;
}

}  // namespace

bool IsFlag(const std::string& arg, const std::string& flag) {
  return arg == flag || arg.rfind(flag + "=", 0) == 0;
}

std::string FlagValue(Args args, std::size_t& i, const std::string& flag) {
  const std::string& arg = args[i];
  if (arg.size() > flag.size() && arg.compare(0, flag.size() + 1, flag + "=") == 0)
    return arg.substr(flag.size() + 1);
  if (i + 1 >= args.size() || args[i + 1].empty()) throw UsageError(flag + " needs a value");
  return args[++i];
}

bool ReadClusterFlag(Args args, std::size_t& i, ClusterFlags& flags,
                     const std::set<std::string>& formats) {
  const std::string& arg = args[i];
  if (IsFlag(arg, "--kubeconfig")) {
    flags.kubeconfig = FlagValue(args, i, "--kubeconfig");
  } else if (IsFlag(arg, "--context")) {
    flags.context = FlagValue(args, i, "--context");
  } else if (IsFlag(arg, "--namespace") || arg == "-n") {
    flags.ns = FlagValue(args, i, arg == "-n" ? "-n" : "--namespace");
  } else if (arg == "-A" || arg == "--all-namespaces") {
    flags.all_namespaces = true;
  } else if (IsFlag(arg, "--output") || arg == "-o") {
    flags.output = FlagValue(args, i, arg == "-o" ? "-o" : "--output");
    if (formats.empty()) throw UsageError("-o " + flags.output + ": this command prints text only");
    if (!formats.count(flags.output))
      throw UsageError("-o " + flags.output + ": the formats are " + Joined(formats));
  } else {
    return false;
  }
  return true;
}

std::unique_ptr<kube::Client> ClientFor(const ClusterFlags& flags) {
  kube::TransportOptions transport;
  transport.user_agent = "gpupool-cli";
  return std::make_unique<kube::Client>(kube::LoadDefaultConfig(flags.kubeconfig, flags.context),
                                        transport);
}

std::string NamespaceOf(const ClusterFlags& flags, const kube::Client& client) {
  return flags.ns.empty() ? client.default_namespace() : flags.ns;
}

}  // namespace gpupool::cli
