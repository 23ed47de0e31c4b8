// `gpupool completion bash|zsh`: a shell completion script. It completes the
// command names, each command's flags (read from its --help, so they never
// drift from the binary) and, for the commands that name one job, the
// TrainingJobs of the namespace (from `gpupool list -o name`).
#include <iostream>

#include "gpupool/common/command.h"

namespace gpupool::cli {
namespace {

constexpr char kCompletionUsage[] =
    "Usage: gpupool completion bash|zsh\n\n"
    "Prints a completion script for the shell. Load it in the running shell with\n"
    "  source <(gpupool completion bash)\n"
    "or for every new one add that line to ~/.bashrc (~/.zshrc for zsh).\n";

std::string CommandNames() {
  std::string names;
  for (const auto& command : AllCommands()) {
    if (!names.empty()) names += ' ';
    names.append(command.name);
  }
  return names;
}

std::string BashScript() {
  return "_gpupool() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} command=${COMP_WORDS[1]}\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"" +
         CommandNames() +
         "\" -- \"$cur\"))\n"
         "  elif [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" \"$command\" --help 2>/dev/null"
         " | grep -o -- '--[a-z][a-z-]*' | sort -u)\" -- \"$cur\"))\n"
         "  else\n"
         "    case $command in\n"
         "      describe|delete|logs|suspend|resume)\n"
         "        COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" list -o name 2>/dev/null"
         " | sed 's|.*/||')\" -- \"$cur\")) ;;\n"
         "      completion) COMPREPLY=($(compgen -W \"bash zsh\" -- \"$cur\")) ;;\n"
         "      *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
         "    esac\n"
         "  fi\n"
         "}\n"
         "complete -F _gpupool gpupool kubectl-gpupool\n";
}

}  // namespace

int RunCompletion(Args args) {
  if (WantsHelp(args)) {
    std::cout << kCompletionUsage;
    return 0;
  }
  if (args.size() != 1 || (args[0] != "bash" && args[0] != "zsh")) {
    std::cerr << "gpupool completion: which shell? bash or zsh\n\n" << kCompletionUsage;
    return 2;
  }
  if (args[0] == "zsh") std::cout << "autoload -U +X bashcompinit && bashcompinit\n";
  std::cout << BashScript();
  return 0;
}

}  // namespace gpupool::cli
