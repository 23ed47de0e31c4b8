// A `gpupool` subcommand: one entry of the table the binary dispatches on. A base
// type (every module that contributes a subcommand, the sandbox too, defines its
// Run function with it); the table itself is the cli's.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::cli {

using Args = std::span<const std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(Args args);  // returns the process exit code
};

// Every subcommand the binary knows, in the order `--help` lists them.
const std::vector<Command>& AllCommands();

// Returns true when args ask for help (`-h` or `--help`).
inline bool WantsHelp(Args args) {
  for (const auto& arg : args) {
    if (arg == "-h" || arg == "--help") return true;
  }
  return false;
}

}  // namespace gpupool::cli
