// The flags every command that talks to a cluster takes, as kubectl spells them:
// --kubeconfig, --context, -n/--namespace, -A/--all-namespaces and -o/--output.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "gpupool/common/command.h"
#include "gpupool/kube/client.h"

namespace gpupool::cli {

struct ClusterFlags {
  std::string kubeconfig;
  std::string context;
  std::string ns;  // empty: the kubeconfig context's namespace
  bool all_namespaces = false;
  std::string output;  // "" (a table), or one of the command's formats
};

// True for "--flag" and "--flag=value".
bool IsFlag(const std::string& arg, const std::string& flag);
// The value of args[i], "--flag=value" or "--flag value" (i moves past it);
// UsageError naming the flag when there is none.
std::string FlagValue(Args args, std::size_t& i, const std::string& flag);

// Reads args[i] (and its value) into flags when it is one of the cluster flags;
// returns false for any other argument. Throws UsageError naming the flag for a
// missing value, or an -o format outside `formats`.
bool ReadClusterFlag(Args args, std::size_t& i, ClusterFlags& flags,
                     const std::set<std::string>& formats);

// A client for the cluster the flags name ($KUBECONFIG and ~/.kube/config as
// kubectl reads them).
std::unique_ptr<kube::Client> ClientFor(const ClusterFlags& flags);

// The namespace to look in: -n, else the context's.
std::string NamespaceOf(const ClusterFlags& flags, const kube::Client& client);

}  // namespace gpupool::cli
