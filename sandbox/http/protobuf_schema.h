// The Kubernetes protobuf messages the sandbox decodes (protobuf.h): each
// message's fields by number, from the generated.proto files of k8s.io/api and
// apimachinery, and the kinds a request body may carry.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpupool::sandbox::protobuf {

// kIntOrString: an IntOrString message, decoded to a JSON number or string;
// kQuantityMap: a map of resource names to Quantity messages, decoded to strings.
enum class Kind {
  kString,
  kBytes,
  kInt,
  kBool,
  kTime,
  kMessage,
  kStringMap,
  kBytesMap,
  kIntOrString,
  kQuantityMap
};

struct Message;
struct Field {
  int number;
  const char* name;
  Kind kind;
  bool repeated = false;
  const Message* message = nullptr;
  bool zero_kept = false;  // a pointer, or a field JSON shows even when zero
};
struct Message {
  std::vector<Field> fields;
  // Set where only part of a large Go type is modelled: a field not listed is
  // refused (415) instead of silently dropped.
  const char* partial_of = nullptr;
  // Go's protobuf encoding writes every plain string, number and bool, zero or
  // not; JSON omits the zero ones. Where set, those are left out as JSON does.
  bool omits_zero = false;
};

constexpr bool kOmitsZero = true;

// The message of each kind decoded, by kind.
const std::map<std::string, const Message*>& Kinds();

}  // namespace gpupool::sandbox::protobuf
