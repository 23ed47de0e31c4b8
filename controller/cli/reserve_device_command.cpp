// `gpupool reserve-device`: what a reservation pod runs (docs/operator.md,
// "Fractions next to the device plugin"). The device plugin gave the pod one
// GPU and named it in NVIDIA_VISIBLE_DEVICES; the command writes that name into
// the pod's own `gpupool.dev/visible-devices` annotation, where the controller
// reads it, and then holds the device until the pod is stopped.
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "gpupool/cli/command.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/operator/pod_view.h"

namespace gpupool::cli {
namespace {

constexpr char kUsage[] =
    "Usage: gpupool reserve-device [--kubeconfig PATH]\n\n"
    "Run by gpupool's reservation pods: reports the GPU the device plugin gave\n"
    "this pod (NVIDIA_VISIBLE_DEVICES) in the pod's annotation\n"
    "gpupool.dev/visible-devices, then waits until the pod is stopped.\n"
    "Reads POD_NAME and POD_NAMESPACE (the downward API) from the environment.\n\n"
    "  --kubeconfig PATH   kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
    "                      then the in-cluster service account)\n";

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// NVIDIA_VISIBLE_DEVICES values that name no device.
bool NamesADevice(const std::string& devices) {
  return !devices.empty() && devices != "void" && devices != "none" && devices != "all";
}

// Patches the annotation, retrying while the API server cannot be reached.
bool Report(kube::Client& client, const std::string& ns, const std::string& name,
            const std::string& devices) {
  const kube::Json patch = {
      {"metadata", {{"annotations", {{op::kVisibleDevicesAnnotation, devices}}}}}};
  for (int attempt = 1; !g_stop; ++attempt) {
    try {
      client.Patch(kube::resources::kPods, ns, name, kube::PatchType::kMerge, patch);
      return true;
    } catch (const kube::ApiError& error) {
      if (kube::IsNotFound(error) || error.reason() == kube::Reason::kForbidden || attempt >= 30) {
        std::cerr << "gpupool reserve-device: pod " << ns << "/" << name << ": " << error.what()
                  << "\n";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::seconds(std::min(attempt, 5)));
    }
  }
  return false;
}

}  // namespace

int RunReserveDevice(Args args) {
  if (WantsHelp(args)) {
    std::cout << kUsage;
    return 0;
  }
  std::string kubeconfig;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--kubeconfig" && i + 1 < args.size()) {
      kubeconfig = args[++i];
    } else {
      std::cerr << "gpupool reserve-device: unknown flag " << args[i] << "\n\n" << kUsage;
      return 2;
    }
  }
  const std::string name = Env("POD_NAME"), ns = Env("POD_NAMESPACE");
  const std::string devices = Env("NVIDIA_VISIBLE_DEVICES");
  for (const auto& [variable, value] :
       {std::pair{"POD_NAME", name}, std::pair{"POD_NAMESPACE", ns}}) {
    if (value.empty()) {
      std::cerr << "gpupool reserve-device: " << variable << " is not set\n";
      return 2;
    }
  }
  if (!NamesADevice(devices)) {
    std::cerr << "gpupool reserve-device: NVIDIA_VISIBLE_DEVICES names no device (\"" << devices
              << "\"): the pod must request nvidia.com/gpu\n";
    return 2;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  try {
    kube::Client client(kube::LoadDefaultConfig(kubeconfig));
    if (!Report(client, ns, name, devices)) return g_stop ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "gpupool reserve-device: " << error.what() << "\n";
    return 1;
  }
  std::cout << "holding " << devices << " for " << ns << "/" << name << std::endl;
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return 0;
}

}  // namespace gpupool::cli
