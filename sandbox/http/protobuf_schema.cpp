#include "sandbox/http/protobuf_schema.h"

namespace gpupool::sandbox::protobuf {
namespace {

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
// authorization.k8s.io/v1 and authentication.k8s.io/v1 reviews of oneself and of others.
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
// Of others: the spec's extra (a map of ExtraValue messages) is refused, not dropped.
const Message kSubjectAccessReviewSpec{
    {{1, "resourceAttributes", Kind::kMessage, false, &kResourceAttributes},
     {2, "nonResourceAttributes", Kind::kMessage, false, &kNonResourceAttributes},
     {3, "user", Kind::kString},
     {4, "groups", Kind::kString, true},
     {6, "uid", Kind::kString}},
    "SubjectAccessReviewSpec",
    kOmitsZero};
const Message kSubjectAccessReview{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                                    {2, "spec", Kind::kMessage, false, &kSubjectAccessReviewSpec}}};
const Message kTokenReviewSpec{
    {{1, "token", Kind::kString}, {2, "audiences", Kind::kString, true}}, nullptr, kOmitsZero};
const Message kTokenReview{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                            {2, "spec", Kind::kMessage, false, &kTokenReviewSpec}}};
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

}  // namespace

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
      {"SubjectAccessReview", &kSubjectAccessReview},
      {"TokenReview", &kTokenReview},
      {"PriorityClass", &kPriorityClass},
      {"PodDisruptionBudget", &kPodDisruptionBudget},
      {"Service", &kService},
      {"Deployment", &kDeployment}};
  return kinds;
}

}  // namespace gpupool::sandbox::protobuf
