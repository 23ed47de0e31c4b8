// One command-line argument read as a flag the way Kubernetes binaries read
// theirs: `--name value` or `--name=value`, and a switch as `--name`,
// `--name=true` or `--name=false`.
#pragma once

#include <optional>
#include <string>

namespace gpupool::cli {

struct FlagArg {
  std::string name;
  std::optional<std::string> value;  // the text after '=', if the argument had one
};

// "--qps=5" gives {"--qps", "5"}; "--qps" gives {"--qps", no value}.
inline FlagArg SplitFlagArg(const std::string& arg) {
  const auto equals = arg.find('=');
  if (equals == std::string::npos) return {arg, std::nullopt};
  return {arg.substr(0, equals), arg.substr(equals + 1)};
}

// A switch's setting: on for the bare flag and for "true", off for "false";
// no setting for any other value.
inline std::optional<bool> SwitchSetting(const FlagArg& flag) {
  if (!flag.value || *flag.value == "true") return true;
  if (*flag.value == "false") return false;
  return std::nullopt;
}

}  // namespace gpupool::cli
