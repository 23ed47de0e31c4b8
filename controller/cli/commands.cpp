#include "gpupool/cli/command.h"

namespace gpupool::cli {

int RunVersion(Args args);
int RunValidate(Args args);
int RunReplay(Args args);
int RunController(Args args);
int RunReserveDevice(Args args);
int RunList(Args args);
int RunDescribe(Args args);
int RunSandbox(Args args);        // defined in sandbox/sandbox_command.cpp
int RunSimulateNodes(Args args);  // defined in sandbox/simulate_nodes_command.cpp

const std::vector<Command>& AllCommands() {
  static const std::vector<Command> commands = {
      {"version", "print the gpupool version", RunVersion},
      {"validate", "check Queue, Project, Department and TrainingJob YAML files", RunValidate},
      {"list", "list TrainingJobs: GPUs, phase, standing and why they wait", RunList},
      {"describe", "one TrainingJob in words: why it waits, where it runs", RunDescribe},
      {"controller", "run the operator against a Kubernetes API server", RunController},
      {"reserve-device", "hold a shared GPU for fractions (run by reservation pods)",
       RunReserveDevice},
      {"replay", "replay a real GPU-cluster trace through the scheduling engine", RunReplay},
      {"sandbox", "serve an in-memory Kubernetes API with simulated GPU nodes", RunSandbox},
      {"simulate-nodes", "run simulated GPU nodes (kubelets, device plugin) on any API server",
       RunSimulateNodes},
  };
  return commands;
}

}  // namespace gpupool::cli
