#include "gpupool/json/without.h"

#include <utility>

#include "gpupool/json/parse.h"
#include "member_paths.h"

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

// A SAX handler that builds the DOM as nlohmann's own parser does, except for
// the members on `skipped` paths: from their key to the end of their value,
// events are only counted.
class BuilderWithout {
 public:
  BuilderWithout(Json& root, const std::vector<MemberPath>& skipped)
      : root_(root), skipped_(skipped) {}

  bool null() { return Value(nullptr); }
  bool boolean(bool value) { return Value(value); }
  bool number_integer(Json::number_integer_t value) { return Value(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return Value(value); }
  bool number_float(Json::number_float_t value, const std::string&) { return Value(value); }
  bool string(std::string& value) { return Value(std::move(value)); }
  bool binary(Json::binary_t& value) { return Value(std::move(value)); }

  bool start_object(std::size_t) { return Open(Json::value_t::object); }
  bool start_array(std::size_t) { return Open(Json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& name) {
    if (skip_depth_ > 0) return true;
    if (internal::OnSkippedPath(skipped_, names_, name)) {
      skip_depth_ = 1;  // the member's value is yet to come
      return true;
    }
    // Map nodes stay put: the member's name is kept by pointer.
    auto member = open_.back()->get_ref<Json::object_t&>().try_emplace(std::move(name)).first;
    key_ = &member->first;
    member_ = &member->second;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  template <typename T>
  bool Value(T&& value) {
    if (skip_depth_ > 0) {
      if (skip_depth_ == 1) skip_depth_ = 0;  // a skipped member's scalar value
      return true;
    }
    Place(Json(std::forward<T>(value)));
    return true;
  }

  Json* Place(Json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    if (open_.back()->is_array()) {
      auto& items = open_.back()->get_ref<Json::array_t&>();
      items.push_back(std::move(value));
      return &items.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  bool Open(Json::value_t type) {
    if (skip_depth_ > 0) {
      ++skip_depth_;
      return true;
    }
    // The top-level value has no name; an array's items have none either.
    if (!open_.empty())
      names_.push_back(open_.back()->is_object() ? std::string_view(*key_) : internal::kNoName);
    open_.push_back(Place(Json(type)));
    return true;
  }

  bool Close() {
    if (skip_depth_ > 0) {
      // The skipped member's value ends when its own container closes.
      if (--skip_depth_ == 1) skip_depth_ = 0;
      return true;
    }
    open_.pop_back();
    if (!open_.empty()) names_.pop_back();
    return true;
  }

  Json& root_;
  const std::vector<MemberPath>& skipped_;
  std::vector<Json*> open_;              // the containers being filled, outermost first
  std::vector<std::string_view> names_;  // the names of those below the top-level value
  const std::string* key_ = nullptr;     // the name of the member being read
  Json* member_ = nullptr;               // where the member's value goes
  int skip_depth_ = 0;  // 0: building; 1: a skipped member's value is next; n > 1: inside it
};

void EraseFrom(Json& value, const MemberPath& path, std::size_t step) {
  if (step >= path.size() || !value.is_object()) return;
  const std::string& name = path[step];
  if (step + 1 == path.size()) {
    if (name == "*") {
      value.clear();
    } else {
      value.erase(name);
    }
  } else if (name == "*") {
    for (auto& [key, member] : value.items()) EraseFrom(member, path, step + 1);
  } else if (const auto found = value.find(name); found != value.end()) {
    EraseFrom(*found, path, step + 1);
  }
}

}  // namespace

void EraseMember(Json& value, const MemberPath& path) { EraseFrom(value, path, 0); }

Json ParseWithout(std::string_view text, const std::vector<MemberPath>& skipped) {
  Json root;
  if (ParseFast(text, skipped, root)) return root;
  BuilderWithout builder(root, skipped);
  if (!Json::sax_parse(text.begin(), text.end(), &builder)) return Json(Json::value_t::discarded);
  return root;
}

}  // namespace gpupool::json
