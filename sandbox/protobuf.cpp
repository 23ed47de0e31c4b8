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

bool IsZero(const Json& value) {
  return (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         (value.is_number() && value == 0) || (value.is_boolean() && !value.get<bool>());
}

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
                           {10, "deletionGracePeriodSeconds", Kind::kInt, false, nullptr, true},
                           {11, "labels", Kind::kStringMap},
                           {12, "annotations", Kind::kStringMap},
                           {13, "ownerReferences", Kind::kMessage, true, &kOwnerReference},
                           {14, "finalizers", Kind::kString, true}},
                          nullptr,
                          kOmitsZero};
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

// Workloads and policies of `kubectl create deployment|service|priorityclass|poddisruptionbudget`.
const Message kLabelSelectorRequirement{{{1, "key", Kind::kString},
                                         {2, "operator", Kind::kString},
                                         {3, "values", Kind::kString, true}}};
const Message kLabelSelector{
    {{1, "matchLabels", Kind::kStringMap},
     {2, "matchExpressions", Kind::kMessage, true, &kLabelSelectorRequirement}}};
const Message kPriorityClass{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                              {2, "value", Kind::kInt, false, nullptr, true},
                              {3, "globalDefault", Kind::kBool},
                              {4, "description", Kind::kString},
                              {5, "preemptionPolicy", Kind::kString, false, nullptr, true}},
                             nullptr,
                             kOmitsZero};
const Message kPodDisruptionBudgetSpec{
    {{1, "minAvailable", Kind::kIntOrString, false, nullptr, true},
     {2, "selector", Kind::kMessage, false, &kLabelSelector},
     {3, "maxUnavailable", Kind::kIntOrString, false, nullptr, true},
     {4, "unhealthyPodEvictionPolicy", Kind::kString, false, nullptr, true}}};
const Message kPodDisruptionBudget{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                                    {2, "spec", Kind::kMessage, false, &kPodDisruptionBudgetSpec}}};
const Message kServicePort{{{1, "name", Kind::kString},
                            {2, "protocol", Kind::kString},
                            {3, "port", Kind::kInt, false, nullptr, true},
                            {4, "targetPort", Kind::kIntOrString},
                            {5, "nodePort", Kind::kInt},
                            {6, "appProtocol", Kind::kString, false, nullptr, true}},
                           nullptr,
                           kOmitsZero};
const Message kServiceSpec{{{1, "ports", Kind::kMessage, true, &kServicePort},
                            {2, "selector", Kind::kStringMap},
                            {3, "clusterIP", Kind::kString},
                            {4, "type", Kind::kString},
                            {5, "externalIPs", Kind::kString, true},
                            {7, "sessionAffinity", Kind::kString},
                            {8, "loadBalancerIP", Kind::kString},
                            {9, "loadBalancerSourceRanges", Kind::kString, true},
                            {10, "externalName", Kind::kString},
                            {11, "externalTrafficPolicy", Kind::kString},
                            {12, "healthCheckNodePort", Kind::kInt},
                            {13, "publishNotReadyAddresses", Kind::kBool},
                            {17, "ipFamilyPolicy", Kind::kString, false, nullptr, true},
                            {18, "clusterIPs", Kind::kString, true},
                            {19, "ipFamilies", Kind::kString, true}},
                           "ServiceSpec",
                           kOmitsZero};
const Message kService{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                        {2, "spec", Kind::kMessage, false, &kServiceSpec}}};
const Message kContainerPort{{{1, "name", Kind::kString},
                              {2, "hostPort", Kind::kInt},
                              {3, "containerPort", Kind::kInt, false, nullptr, true},
                              {4, "protocol", Kind::kString},
                              {5, "hostIP", Kind::kString}},
                             nullptr,
                             kOmitsZero};
const Message kEnvVar{
    {{1, "name", Kind::kString, false, nullptr, true}, {2, "value", Kind::kString}},
    "EnvVar",
    kOmitsZero};
const Message kResourceRequirements{
    {{1, "limits", Kind::kQuantityMap}, {2, "requests", Kind::kQuantityMap}},
    "ResourceRequirements"};
const Message kContainer{{{1, "name", Kind::kString},
                          {2, "image", Kind::kString},
                          {3, "command", Kind::kString, true},
                          {4, "args", Kind::kString, true},
                          {5, "workingDir", Kind::kString},
                          {6, "ports", Kind::kMessage, true, &kContainerPort},
                          {7, "env", Kind::kMessage, true, &kEnvVar},
                          {8, "resources", Kind::kMessage, false, &kResourceRequirements},
                          {13, "terminationMessagePath", Kind::kString},
                          {14, "imagePullPolicy", Kind::kString},
                          {16, "stdin", Kind::kBool},
                          {17, "stdinOnce", Kind::kBool},
                          {18, "tty", Kind::kBool},
                          {20, "terminationMessagePolicy", Kind::kString}},
                         "Container",
                         kOmitsZero};
// Every plain field of a PodSpec is listed (protobuf carries them all); of the
// optional ones, those `kubectl create deployment` can set.
const Message kPodSpec{{{2, "containers", Kind::kMessage, true, &kContainer},
                        {3, "restartPolicy", Kind::kString},
                        {4, "terminationGracePeriodSeconds", Kind::kInt, false, nullptr, true},
                        {6, "dnsPolicy", Kind::kString},
                        {7, "nodeSelector", Kind::kStringMap},
                        {8, "serviceAccountName", Kind::kString},
                        {9, "serviceAccount", Kind::kString},
                        {10, "nodeName", Kind::kString},
                        {11, "hostNetwork", Kind::kBool},
                        {12, "hostPID", Kind::kBool},
                        {13, "hostIPC", Kind::kBool},
                        {16, "hostname", Kind::kString},
                        {17, "subdomain", Kind::kString},
                        {19, "schedulerName", Kind::kString},
                        {20, "initContainers", Kind::kMessage, true, &kContainer},
                        {24, "priorityClassName", Kind::kString}},
                       "PodSpec",
                       kOmitsZero};
const Message kPodTemplateSpec{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                                {2, "spec", Kind::kMessage, false, &kPodSpec}}};
const Message kRollingUpdateDeployment{
    {{1, "maxUnavailable", Kind::kIntOrString, false, nullptr, true},
     {2, "maxSurge", Kind::kIntOrString, false, nullptr, true}}};
const Message kDeploymentStrategy{
    {{1, "type", Kind::kString},
     {2, "rollingUpdate", Kind::kMessage, false, &kRollingUpdateDeployment}},
    nullptr,
    kOmitsZero};
const Message kDeploymentSpec{{{1, "replicas", Kind::kInt, false, nullptr, true},
                               {2, "selector", Kind::kMessage, false, &kLabelSelector},
                               {3, "template", Kind::kMessage, false, &kPodTemplateSpec},
                               {4, "strategy", Kind::kMessage, false, &kDeploymentStrategy},
                               {5, "minReadySeconds", Kind::kInt},
                               {6, "revisionHistoryLimit", Kind::kInt, false, nullptr, true},
                               {7, "paused", Kind::kBool},
                               {9, "progressDeadlineSeconds", Kind::kInt, false, nullptr, true}},
                              nullptr,
                              kOmitsZero};
const Message kDeployment{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                           {2, "spec", Kind::kMessage, false, &kDeploymentSpec}}};

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
      {"SelfSubjectRulesReview", &kSelfSubjectRulesReview},
      {"PriorityClass", &kPriorityClass},
      {"PodDisruptionBudget", &kPodDisruptionBudget},
      {"Service", &kService},
      {"Deployment", &kDeployment}};
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
  // The zero time is what Go encodes for an unset one: absent, as JSON has it.
  if (seconds == 0) return "";
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

// intstr.IntOrString: type (0 int, 1 string), intVal, strVal.
Json DecodeIntOrString(std::string_view data) {
  Reader reader(data);
  int64_t type = 0, int_value = 0;
  std::string string_value;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    const int number = static_cast<int>(key >> 3), wire_type = static_cast<int>(key & 7);
    if (number == 1 && wire_type == 0) {
      type = static_cast<int64_t>(reader.Varint());
    } else if (number == 2 && wire_type == 0) {
      int_value = static_cast<int32_t>(reader.Varint());
    } else if (number == 3 && wire_type == 2) {
      string_value = std::string(reader.Bytes());
    } else {
      reader.Skip(wire_type);
    }
  }
  return type == 1 ? Json(string_value) : Json(int_value);
}

// resource.Quantity: its string form.
std::string DecodeQuantity(std::string_view data) {
  Reader reader(data);
  std::string text;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 2) {
      text = std::string(reader.Bytes());
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  return text;
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
    case Kind::kIntOrString:
      return DecodeIntOrString(bytes);
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
    if (!field && message.partial_of) {
      throw ApiError(415, "UnsupportedMediaType",
                     "protobuf field " + std::to_string(number) + " of " + message.partial_of +
                         " is not decoded by the sandbox; send JSON instead");
    } else if (!field) {
      reader.Skip(wire_type);
    } else if (field->kind == Kind::kStringMap || field->kind == Kind::kBytesMap ||
               field->kind == Kind::kQuantityMap) {
      if (wire_type != 2) Malformed(std::string("map ") + field->name + " is not length-delimited");
      auto [map_key, value] = DecodeMapEntry(reader.Bytes());
      Json& entry = object[field->name][map_key];
      if (field->kind == Kind::kBytesMap) {
        entry = Base64Encode(value);
      } else if (field->kind == Kind::kQuantityMap) {
        entry = DecodeQuantity(value);
      } else {
        entry = value;
      }
    } else if (field->repeated) {
      object[field->name].push_back(DecodeValue(reader, wire_type, *field));
    } else {
      Json value = DecodeValue(reader, wire_type, *field);
      if (message.omits_zero && !field->zero_kept && IsZero(value)) {
        object.erase(field->name);
      } else {
        object[field->name] = std::move(value);
      }
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
