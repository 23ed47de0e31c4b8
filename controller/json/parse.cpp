#include "gpupool/json/parse.h"

#include <simdjson.h>

#include <memory>
#include <string>

#include "member_paths.h"

namespace gpupool::json {
namespace {

using Json = nlohmann::json;
namespace dom = simdjson::dom;

// A thread's parser keeps its buffers for the next document (simdjson's come
// to about 14 bytes per byte of text); one larger than this (a list page, say)
// gets a parser of its own, freed with it, so a big document does not leave
// its buffers behind in every thread that ever read one.
constexpr std::size_t kKeptParserBytes = 64 << 10;

dom::parser& ThreadParser() {
  thread_local dom::parser parser;
  return parser;
}

// Builds nlohmann values from simdjson elements, skipping the members on
// `skipped` paths.
class Builder {
 public:
  explicit Builder(const std::vector<MemberPath>& skipped) : skipped_(skipped) {}

  void Build(dom::element element, Json& out) {
    switch (element.type()) {
      case dom::element_type::OBJECT:
        return BuildObject(element.get_object().value_unsafe(), out);
      case dom::element_type::ARRAY:
        return BuildArray(element.get_array().value_unsafe(), out);
      case dom::element_type::STRING:
        out = std::string(element.get_string().value_unsafe());
        return;
      case dom::element_type::INT64: {
        const std::int64_t value = element.get_int64().value_unsafe();
        // nlohmann's parser keeps non-negative integers unsigned.
        if (value >= 0) {
          out = static_cast<std::uint64_t>(value);
        } else {
          out = value;
        }
        return;
      }
      case dom::element_type::UINT64:
        out = element.get_uint64().value_unsafe();
        return;
      case dom::element_type::DOUBLE:
        out = element.get_double().value_unsafe();
        return;
      case dom::element_type::BOOL:
        out = element.get_bool().value_unsafe();
        return;
      case dom::element_type::NULL_VALUE:
        out = nullptr;
        return;
    }
  }

 private:
  void BuildObject(dom::object object, Json& out) {
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    for (const dom::key_value_pair field : object) {
      if (!skipped_.empty() && internal::OnSkippedPath(skipped_, names_, field.key)) continue;
      Json& slot = members[std::string(field.key)];
      names_.push_back(field.key);
      Build(field.value, slot);
      names_.pop_back();
    }
  }

  void BuildArray(dom::array array, Json& out) {
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    items.reserve(array.size());
    names_.push_back(internal::kNoName);
    for (const dom::element item : array) Build(item, items.emplace_back());
    names_.pop_back();
  }

  const std::vector<MemberPath>& skipped_;
  std::vector<std::string_view> names_;  // of the members above the one being built
};

}  // namespace

bool ParseFast(std::string_view text, const std::vector<MemberPath>& skipped, Json& out) {
  std::unique_ptr<dom::parser> own;
  dom::parser* parser = &ThreadParser();
  if (text.size() > kKeptParserBytes) {
    own = std::make_unique<dom::parser>();
    parser = own.get();
  }
  dom::element root;
  if (parser->parse(text.data(), text.size()).get(root) != simdjson::SUCCESS) return false;
  Builder(skipped).Build(root, out);
  return true;
}

Json ParseJson(std::string_view text) {
  Json value;
  if (ParseFast(text, {}, value)) return value;
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace gpupool::json
