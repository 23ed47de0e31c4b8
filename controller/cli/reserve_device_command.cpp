// `gpupool reserve-device`: what a reservation pod runs (docs/operator.md,
// "Fractions next to the device plugin"). Its init container `report` asks
// the device plugin for one GPU and writes the name it was given
// (NVIDIA_VISIBLE_DEVICES) to its termination message, which the kubelet
// publishes in the pod's status and the controller reads; its container
// `hold` asks for the same GPU (the kubelet gives an app container the devices
// of the pod's init containers) and holds it until the pod is stopped. Neither
// needs API credentials: a reservation pod mounts no token.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "gpupool/common/command.h"
#include "stop_signal.h"

namespace gpupool::cli {
namespace {

constexpr char kReserveDeviceUsage[] =
    "Usage: gpupool reserve-device report [--termination-log PATH]\n"
    "       gpupool reserve-device hold\n\n"
    "Run by gpupool's reservation pods.\n"
    "  report   writes the GPU the device plugin gave this container\n"
    "           (NVIDIA_VISIBLE_DEVICES) to the termination log, where the kubelet\n"
    "           publishes it in the pod's status, and exits\n"
    "  hold     holds the pod's GPU until the pod is stopped\n\n"
    "  --termination-log PATH  default /dev/termination-log\n";

// NVIDIA_VISIBLE_DEVICES values that name no device.
bool NamesADevice(const std::string& devices) {
  return !devices.empty() && devices != "void" && devices != "none" && devices != "all";
}

int Report(const std::string& termination_log) {
  const char* value = std::getenv("NVIDIA_VISIBLE_DEVICES");
  const std::string devices = value ? value : "";
  if (!NamesADevice(devices)) {
    std::cerr << "gpupool reserve-device: NVIDIA_VISIBLE_DEVICES names no device (\"" << devices
              << "\"): the container must request nvidia.com/gpu\n";
    return 2;
  }
  std::ofstream log(termination_log);
  log << devices;
  log.close();
  if (!log) {
    std::cerr << "gpupool reserve-device: cannot write " << termination_log << "\n";
    return 1;
  }
  std::cout << "reported " << devices << std::endl;
  return 0;
}

int Hold() {
  StopOnSignals();
  std::cout << "holding the pod's GPU" << std::endl;
  while (!StopRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return 0;
}

int Misuse(const std::string& why) {
  std::cerr << "gpupool reserve-device: " << why << "\n\n" << kReserveDeviceUsage;
  return 2;
}

}  // namespace

int RunReserveDevice(Args args) {
  if (WantsHelp(args)) {
    std::cout << kReserveDeviceUsage;
    return 0;
  }
  if (args.empty()) return Misuse("say report or hold");
  const std::string mode = args[0];
  std::string termination_log = "/dev/termination-log";
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (mode == "report" && args[i] == "--termination-log" && i + 1 < args.size())
      termination_log = args[++i];
    else
      return Misuse("unknown flag " + args[i]);
  }
  if (mode == "report") return Report(termination_log);
  if (mode == "hold") return Hold();
  return Misuse("unknown mode " + mode + " (report or hold)");
}

}  // namespace gpupool::cli
