// The kinds an install of gpupool itself applies (its Helm chart, manifests/)
// beyond those the cluster simulation uses: ServiceAccounts, RBAC and
// Deployments; and batch Jobs, whose pods may ask gpupool to schedule them
// (examples/workloads-of-other-owners.yaml). The sandbox stores, lists,
// watches, patches and deletes them like any built-in, checks their fields
// (known_fields.cpp), and does nothing more: RBAC is enforced only for
// service-account tokens, and only under --authorize-service-accounts
// (authorization.h); no Deployment or Job starts pods, and a Job is stored
// without the defaults a real server gives it.
#pragma once

#include <vector>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

std::vector<ResourcePtr> InstallResources();

}  // namespace gpupool::sandbox
