// The load generator's watches: an informer over every namespace whose adds and
// updates all go to one handler, started and synced before the load begins.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>

#include "gpupool/kube/client.h"
#include "gpupool/kube/informer.h"

namespace gpupool::bench {

template <typename T>
std::unique_ptr<kube::Informer<T>> StartWatch(kube::Client& client, const kube::Resource& resource,
                                              typename kube::Informer<T>::Decode decode,
                                              kube::ListWatchOptions options,
                                              std::function<void(const T&)> on_change) {
  options.page_size = 5000;
  options.drop_managed_fields = true;  // No watch here reads them.
  auto informer =
      std::make_unique<kube::Informer<T>>(client, resource, "", std::move(decode), options);
  informer->AddHandlers({on_change, [on_change](const T&, const T& now) { on_change(now); }, {}});
  informer->Start();
  if (!informer->WaitForSync(std::chrono::seconds(30)))
    throw std::runtime_error("the watch on " + resource.resource + " did not sync");
  return informer;
}

}  // namespace gpupool::bench
