#include "sandbox/protobuf.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/encoding.h"
#include "sandbox/object_meta.h"

namespace gpupool::sandbox {
namespace {

enum class Kind { kString, kBytes, kInt, kBool, kTime, kMessage, kStringMap, kBytesMap };

struct Message;
struct Field {
  int number;
  const char* name;
  Kind kind;
  bool repeated = false;
  const Message* message = nullptr;
};
struct Message {
  std::vector<Field> fields;
};

// Field numbers from the generated.proto files of k8s.io/api and apimachinery.
const Message kOwnerReference{{{1, "kind", Kind::kString},
                               {3, "name", Kind::kString},
                               {4, "uid", Kind::kString},
                               {5, "apiVersion", Kind::kString},
                               {6, "controller", Kind::kBool},
                               {7, "blockOwnerDeletion", Kind::kBool}}};
const Message kObjectMeta{{{1, "name", Kind::kString},
                           {2, "generateName", Kind::kString},
                           {3, "namespace", Kind::kString},
                           {5, "uid", Kind::kString},
                           {6, "resourceVersion", Kind::kString},
                           {7, "generation", Kind::kInt},
                           {8, "creationTimestamp", Kind::kTime},
                           {9, "deletionTimestamp", Kind::kTime},
                           {10, "deletionGracePeriodSeconds", Kind::kInt},
                           {11, "labels", Kind::kStringMap},
                           {12, "annotations", Kind::kStringMap},
                           {13, "ownerReferences", Kind::kMessage, true, &kOwnerReference},
                           {14, "finalizers", Kind::kString, true}}};
const Message kNamespaceSpec{{{1, "finalizers", Kind::kString, true}}};
const Message kNamespaceStatus{{{1, "phase", Kind::kString}}};
const Message kNamespace{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                          {2, "spec", Kind::kMessage, false, &kNamespaceSpec},
                          {3, "status", Kind::kMessage, false, &kNamespaceStatus}}};
const Message kConfigMap{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                          {2, "data", Kind::kStringMap},
                          {3, "binaryData", Kind::kBytesMap},
                          {4, "immutable", Kind::kBool}}};
const Message kPreconditions{{{1, "uid", Kind::kString}, {2, "resourceVersion", Kind::kString}}};
const Message kDeleteOptions{{{1, "gracePeriodSeconds", Kind::kInt},
                              {2, "preconditions", Kind::kMessage, false, &kPreconditions},
                              {3, "orphanDependents", Kind::kBool},
                              {4, "propagationPolicy", Kind::kString},
                              {5, "dryRun", Kind::kString, true}}};
const Message kEviction{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                         {2, "deleteOptions", Kind::kMessage, false, &kDeleteOptions}}};
const Message kObjectReference{{{1, "kind", Kind::kString},
                                {2, "namespace", Kind::kString},
                                {3, "name", Kind::kString},
                                {4, "uid", Kind::kString},
                                {5, "apiVersion", Kind::kString}}};
const Message kBinding{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                        {2, "target", Kind::kMessage, false, &kObjectReference}}};
const Message kBoundObjectReference{{{1, "kind", Kind::kString},
                                     {2, "apiVersion", Kind::kString},
                                     {3, "name", Kind::kString},
                                     {4, "uid", Kind::kString}}};
const Message kTokenRequestSpec{
    {{1, "audiences", Kind::kString, true},
     {3, "boundObjectRef", Kind::kMessage, false, &kBoundObjectReference},
     {4, "expirationSeconds", Kind::kInt}}};
const Message kTokenRequest{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                             {2, "spec", Kind::kMessage, false, &kTokenRequestSpec}}};

const Message kLocalObjectReference{{{1, "name", Kind::kString}}};
const Message kServiceAccount{
    {{1, "metadata", Kind::kMessage, false, &kObjectMeta},
     {2, "secrets", Kind::kMessage, true, &kObjectReference},
     {3, "imagePullSecrets", Kind::kMessage, true, &kLocalObjectReference},
     {4, "automountServiceAccountToken", Kind::kBool}}};
// rbac.authorization.k8s.io/v1 (a ClusterRole's aggregationRule is not decoded).
const Message kPolicyRule{{{1, "verbs", Kind::kString, true},
                           {2, "apiGroups", Kind::kString, true},
                           {3, "resources", Kind::kString, true},
                           {4, "resourceNames", Kind::kString, true},
                           {5, "nonResourceURLs", Kind::kString, true}}};
const Message kRole{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                     {2, "rules", Kind::kMessage, true, &kPolicyRule}}};
const Message kSubject{{{1, "kind", Kind::kString},
                        {2, "apiGroup", Kind::kString},
                        {3, "name", Kind::kString},
                        {4, "namespace", Kind::kString}}};
const Message kRoleRef{
    {{1, "apiGroup", Kind::kString}, {2, "kind", Kind::kString}, {3, "name", Kind::kString}}};
const Message kRoleBinding{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                            {2, "subjects", Kind::kMessage, true, &kSubject},
                            {3, "roleRef", Kind::kMessage, false, &kRoleRef}}};
// authorization.k8s.io/v1 and authentication.k8s.io/v1 reviews of oneself.
const Message kResourceAttributes{{{1, "namespace", Kind::kString},
                                   {2, "verb", Kind::kString},
                                   {3, "group", Kind::kString},
                                   {4, "version", Kind::kString},
                                   {5, "resource", Kind::kString},
                                   {6, "subresource", Kind::kString},
                                   {7, "name", Kind::kString}}};
const Message kNonResourceAttributes{{{1, "path", Kind::kString}, {2, "verb", Kind::kString}}};
const Message kSelfSubjectAccessReviewSpec{
    {{1, "resourceAttributes", Kind::kMessage, false, &kResourceAttributes},
     {2, "nonResourceAttributes", Kind::kMessage, false, &kNonResourceAttributes}}};
const Message kSelfSubjectAccessReview{
    {{1, "metadata", Kind::kMessage, false, &kObjectMeta},
     {2, "spec", Kind::kMessage, false, &kSelfSubjectAccessReviewSpec}}};
const Message kSelfSubjectReview{{{1, "metadata", Kind::kMessage, false, &kObjectMeta}}};
const Message kSelfSubjectRulesReviewSpec{{{1, "namespace", Kind::kString}}};
const Message kSelfSubjectRulesReview{
    {{1, "metadata", Kind::kMessage, false, &kObjectMeta},
     {2, "spec", Kind::kMessage, false, &kSelfSubjectRulesReviewSpec}}};

const std::map<std::string, const Message*>& Kinds() {
  static const std::map<std::string, const Message*> kinds = {
      {"Namespace", &kNamespace},
      {"ConfigMap", &kConfigMap},
      {"Eviction", &kEviction},
      {"DeleteOptions", &kDeleteOptions},
      {"Binding", &kBinding},
      {"TokenRequest", &kTokenRequest},
      {"ServiceAccount", &kServiceAccount},
      {"Role", &kRole},
      {"ClusterRole", &kRole},
      {"RoleBinding", &kRoleBinding},
      {"ClusterRoleBinding", &kRoleBinding},
      {"SelfSubjectAccessReview", &kSelfSubjectAccessReview},
      {"SelfSubjectReview", &kSelfSubjectReview},
      {"SelfSubjectRulesReview", &kSelfSubjectRulesReview}};
  return kinds;
}

std::string KindsDecoded() {
  std::string listed;
  for (const auto& [kind, message] : Kinds()) listed += (listed.empty() ? "" : ", ") + kind;
  return listed;
}

[[noreturn]] void Malformed(const std::string& why) {
  throw BadRequest("the protobuf body is malformed: " + why);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Done() const { return at_ >= data_.size(); }
  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (Done()) Malformed("truncated varint");
      const auto byte = static_cast<uint8_t>(data_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return value;
    }
    Malformed("varint too long");
  }
  std::string_view Bytes() {
    const uint64_t size = Varint();
    if (size > data_.size() - at_) Malformed("length beyond the body");
    auto bytes = data_.substr(at_, size);
    at_ += size;
    return bytes;
  }
  void Skip(int wire_type) {
    if (wire_type == 0)
      Varint();
    else if (wire_type == 2)
      Bytes();
    else if (wire_type == 1 || wire_type == 5)
      at_ += wire_type == 1 ? 8 : 4;
    else
      Malformed("unsupported wire type " + std::to_string(wire_type));
  }

 private:
  std::string_view data_;
  size_t at_ = 0;
};

Json DecodeMessage(std::string_view data, const Message& message);

Json DecodeTime(std::string_view data) {
  Reader reader(data);
  int64_t seconds = 0;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 0) {
      seconds = static_cast<int64_t>(reader.Varint());
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  return FormatTime(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)));
}

std::pair<std::string, std::string> DecodeMapEntry(std::string_view data) {
  Reader reader(data);
  std::pair<std::string, std::string> entry;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key & 7) != 2) Malformed("map entries hold length-delimited keys and values");
    (key >> 3 == 1 ? entry.first : entry.second) = std::string(reader.Bytes());
  }
  return entry;
}

Json DecodeValue(Reader& reader, int wire_type, const Field& field) {
  if (field.kind == Kind::kInt || field.kind == Kind::kBool) {
    if (wire_type != 0) Malformed(std::string("field ") + field.name + " is not a varint");
    const uint64_t value = reader.Varint();
    return field.kind == Kind::kBool ? Json(value != 0) : Json(static_cast<int64_t>(value));
  }
  if (wire_type != 2) Malformed(std::string("field ") + field.name + " is not length-delimited");
  const std::string_view bytes = reader.Bytes();
  switch (field.kind) {
    case Kind::kString:
      return std::string(bytes);
    case Kind::kBytes:
      return Base64Encode(std::string(bytes));
    case Kind::kTime:
      return DecodeTime(bytes);
    case Kind::kMessage:
      return DecodeMessage(bytes, *field.message);
    default:
      return nullptr;
  }
}

Json DecodeMessage(std::string_view data, const Message& message) {
  Reader reader(data);
  Json object = Json::object();
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    const int number = static_cast<int>(key >> 3), wire_type = static_cast<int>(key & 7);
    const Field* field = nullptr;
    for (const auto& candidate : message.fields) {
      if (candidate.number == number) field = &candidate;
    }
    if (!field) {
      reader.Skip(wire_type);
    } else if (field->kind == Kind::kStringMap || field->kind == Kind::kBytesMap) {
      if (wire_type != 2) Malformed(std::string("map ") + field->name + " is not length-delimited");
      auto [map_key, value] = DecodeMapEntry(reader.Bytes());
      object[field->name][map_key] = field->kind == Kind::kBytesMap ? Base64Encode(value) : value;
    } else if (field->repeated) {
      object[field->name].push_back(DecodeValue(reader, wire_type, *field));
    } else {
      object[field->name] = DecodeValue(reader, wire_type, *field);
    }
  }
  return object;
}

}  // namespace

Json DecodeProtobuf(const std::string& body) {
  static const std::string kMagic("k8s\0", 4);
  if (body.compare(0, 4, kMagic) != 0) Malformed("missing the k8s protobuf envelope");
  Reader reader(std::string_view(body).substr(4));
  std::string api_version, kind;
  std::string_view raw;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 2) {
      Reader type_meta(reader.Bytes());
      while (!type_meta.Done()) {
        const uint64_t type_key = type_meta.Varint();
        (type_key >> 3 == 1 ? api_version : kind) = std::string(type_meta.Bytes());
      }
    } else if ((key >> 3) == 2 && (key & 7) == 2) {
      raw = reader.Bytes();
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  auto message = Kinds().find(kind);
  if (message == Kinds().end()) {
    throw ApiError(415, "UnsupportedMediaType",
                   "protobuf bodies of kind \"" + kind + "\" are not decoded by the sandbox (" +
                       KindsDecoded() + " are); send JSON instead");
  }
  Json object = DecodeMessage(raw, *message->second);
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  return object;
}

}  // namespace gpupool::sandbox
