#include "gpupool/sandbox/commands.h"

#include "gpupool/common/command.h"

namespace gpupool::cli {

int RunVersion(Args args);
int RunValidate(Args args);
int RunReplay(Args args);
int RunController(Args args);
int RunReserveDevice(Args args);
int RunSubmit(Args args);
int RunList(Args args);
int RunDescribe(Args args);
int RunLogs(Args args);
int RunDelete(Args args);
int RunSuspend(Args args);
int RunResume(Args args);
int RunProjects(Args args);
int RunQueues(Args args);
int RunCompletion(Args args);

const std::vector<Command>& AllCommands() {
  static const std::vector<Command> commands = {
      {"version", "print the gpupool version", RunVersion},
      {"validate", "check Queue, Project, Department and TrainingJob YAML files", RunValidate},
      {"submit", "create a TrainingJob in a project's queue (refused if it could never run)",
       RunSubmit},
      {"list", "list TrainingJobs: GPUs, phase, standing and why they wait", RunList},
      {"describe", "one TrainingJob in words: why it waits, where it runs", RunDescribe},
      {"logs", "the logs of a TrainingJob's pods", RunLogs},
      {"delete", "delete a TrainingJob (its GPUs go back to the queue)", RunDelete},
      {"suspend", "stop a TrainingJob and keep it out of line (spec.suspend)", RunSuspend},
      {"resume", "queue a suspended TrainingJob again", RunResume},
      {"projects", "per project and queue: guaranteed, allocated, over quota, waiting",
       RunProjects},
      {"queues", "per queue: capacity, guaranteed, allocated, over quota, waiting", RunQueues},
      {"controller", "run the operator against a Kubernetes API server", RunController},
      {"reserve-device", "hold a shared GPU for fractions (run by reservation pods)",
       RunReserveDevice},
      {"replay", "replay a real GPU-cluster trace through the scheduling engine", RunReplay},
      {"sandbox", "serve an in-memory Kubernetes API with simulated GPU nodes", RunSandbox},
      {"simulate-nodes", "run simulated GPU nodes (kubelets, device plugin) on any API server",
       RunSimulateNodes},
      {"completion", "print a bash or zsh completion script", RunCompletion},
  };
  return commands;
}

}  // namespace gpupool::cli
