#include "gpupool/json/yaml.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

Json PlainScalar(const std::string& text) {
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (std::regex_match(text, kInt)) {
    errno = 0;
    long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (errno != ERANGE) return value;
  }
  if (std::regex_match(text, kFloat)) return std::strtod(text.c_str(), nullptr);
  return text;
}

// Aliases let a short text stand for a huge document ("billion laughs"):
// conversion stops once it has made more values than the text could spell
// out without them.
struct ValueBudget {
  const std::string& source;
  size_t left;
  void Spend() {
    if (left == 0) throw YamlError(source + ": aliases expand to too many values");
    --left;
  }
};

Json Convert(const YAML::Node& node, ValueBudget& budget) {
  budget.Spend();
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") return node.Scalar();  // quoted: always a string
      return PlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      Json list = Json::array();
      for (const auto& item : node) list.push_back(Convert(item, budget));
      return list;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node)
        object[entry.first.as<std::string>()] = Convert(entry.second, budget);
      return object;
    }
  }
  return nullptr;
}

void Emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      return;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : value) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case Json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (!PlainScalar(text).is_string()) out << YAML::DoubleQuoted;
      out << text;
      return;
    }
    case Json::value_t::null:
      out << YAML::Null;
      return;
    default:
      out << value.dump();  // numbers and booleans as JSON spells them
  }
}

}  // namespace

std::string ToYaml(const Json& value) {
  YAML::Emitter out;
  Emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::vector<Json> YamlToJson(const std::string& text, const std::string& source) {
  std::vector<Json> documents;
  ValueBudget budget{source, text.size() + 1024};
  try {
    for (const auto& node : YAML::LoadAll(text)) {
      Json document = Convert(node, budget);
      if (!document.is_null()) documents.push_back(std::move(document));
    }
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp names this "bad file"; it means its recursion limit (2,000
    // calls, some 500 levels of block nesting) was reached.
    throw YamlError(source + ":" + std::to_string(error.mark.line + 1) +
                    ": nested deeper than the YAML parser reads (about 500 levels)");
  } catch (const YAML::Exception& error) {
    throw YamlError(source + ":" + std::to_string(error.mark.line + 1) + ":" +
                    std::to_string(error.mark.column + 1) + ": " + error.msg);
  }
  return documents;
}

std::vector<Json> LoadYamlFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw YamlError(path + ": cannot read file");
  std::stringstream text;
  text << in.rdbuf();
  return YamlToJson(text.str(), path);
}

}  // namespace gpupool::json
