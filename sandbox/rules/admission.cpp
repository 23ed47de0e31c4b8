#include "sandbox/rules/admission.h"

#include "sandbox/api_error.h"
#include "sandbox/rules/crd.h"
#include "sandbox/rules/kind_rules.h"
#include "sandbox/rules/known_fields.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {

void Admission::CheckCustomResource(const ResourceType& resource, Json& object,
                                    WriteOptions& options, const Json* old,
                                    const std::string& subresource) {
  const Json given = options.strict_fields && options.json_patch ? object : Json();
  auto check = old && subresource == "status"
                   ? sandbox::CheckCustomResourceStatus(resource, object, *old)
                   : sandbox::CheckCustomResource(resource, object, old);
  if (!check.pruned.empty() && options.strict_fields) {
    ThrowStrictDecodingError(check.pruned, "", given, options);
  }
  WarnOfUnknownFields(check.pruned, options);
  if (!check.errors.empty())
    throw Invalid(QualifiedKind(resource), NameInMetadata(object), check.errors);
}

void Admission::OnCreate(const ResourceType& resource, Json& object, WriteOptions& options) {
  if (resource.IsCustom()) return CheckCustomResource(resource, object, options);
  const KindRules* rules = RulesFor(resource);
  if (!rules) return;
  const AdmissionContext context{resource, options, allocated_ips_};
  if (rules->decode) rules->decode(object, context);
  if (rules->on_create) rules->on_create(object, context);
}

void Admission::OnUpdate(const ResourceType& resource, const Json& old, Json& object,
                         const std::string& subresource, WriteOptions& options) {
  if (resource.IsCustom()) return CheckCustomResource(resource, object, options, &old, subresource);
  const KindRules* rules = RulesFor(resource);
  if (!rules) return;
  const AdmissionContext context{resource, options, allocated_ips_};
  if (rules->decode) rules->decode(object, context);
  if (rules->on_update) rules->on_update(old, object, subresource, context);
}

void Admission::AfterWrite(const ResourceType& resource, const Json& object) {
  const KindRules* rules = RulesFor(resource);
  if (rules && rules->after_write) rules->after_write(object, resources_);
}

void Admission::AfterDelete(const ResourceType& resource, const Json& object, Store& store) {
  const KindRules* rules = RulesFor(resource);
  if (rules && rules->after_delete) rules->after_delete(object, resources_, store);
}

}  // namespace gpupool::sandbox
