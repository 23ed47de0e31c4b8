// The README's "What is in the box" table and `gpupool --help` name the same
// commands, and each of them exists: neither promises a command the binary
// does not have.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "run_gpupool.h"

namespace gpupool::cli::testing {
namespace {

std::string ReadmeSection(const std::string& heading) {
  std::ifstream file(std::string(GPUPOOL_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << file.rdbuf();
  const std::string readme = text.str();
  const size_t start = readme.find("\n## " + heading + "\n");
  if (start == std::string::npos) return "";
  const size_t end = readme.find("\n## ", start + 1);
  return readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// Commands of the table's rows: "| `gpupool sandbox` | ...".
std::set<std::string> CommandsInTable(const std::string& section) {
  std::set<std::string> commands;
  std::istringstream lines(section);
  const std::string prefix = "| `gpupool ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t end = line.find('`', prefix.size());
    commands.insert(line.substr(prefix.size(), end - prefix.size()));
  }
  return commands;
}

// Commands `gpupool --help` lists: the indented lines after "Commands:".
std::set<std::string> CommandsInHelp(const std::string& help) {
  std::set<std::string> commands;
  std::istringstream lines(help.substr(help.find("Commands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    commands.insert(name);
  }
  return commands;
}

TEST(Readme, TheBoxListsExactlyTheCommandsOfTheBinary) {
  const auto in_readme = CommandsInTable(ReadmeSection("What is in the box"));
  const Result help = RunGpupool("--help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  const auto in_help = CommandsInHelp(help.output);
  EXPECT_FALSE(in_help.empty()) << help.output;
  EXPECT_EQ(in_readme, in_help) << help.output;
  for (const auto& command : in_help) {
    const Result usage = RunGpupool(command + " --help");
    EXPECT_EQ(usage.exit_code, 0) << command << ": " << usage.output;
  }
}

}  // namespace
}  // namespace gpupool::cli::testing
