// TransportOptions::observer: every request attempt and every watch restart is
// reported, from the threads that make them.
#include "gpupool/kube/observer.h"

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "gpupool/kube/informer.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

class RecordingObserver : public ClientObserver {
 public:
  void OnRequest(const RequestObservation& request) override {
    std::lock_guard lock(mutex_);
    requests_.push_back({std::string(request.verb), request.code, request.seconds});
  }
  void OnWatchRestart(std::string_view resource) override {
    std::lock_guard lock(mutex_);
    restarts_.emplace_back(resource);
  }

  struct Request {
    std::string verb;
    int code;
    double seconds;
  };
  std::vector<Request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<std::string> restarts() const {
    std::lock_guard lock(mutex_);
    return restarts_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
  std::vector<std::string> restarts_;
};

TEST(ClientObserver, SeesEveryAttemptWithItsVerbAndCode) {
  FakeApiServer server;
  auto observer = std::make_shared<RecordingObserver>();
  TransportOptions options = FastOptions();
  options.observer = observer;
  Transport transport(PlainConfig(server), options);
  server.FailNext(1, 503);
  EXPECT_EQ(transport.Send({"GET", "/api/v1/pods"}).status, 200);
  const auto requests = observer->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].verb, "GET");
  EXPECT_EQ(requests[0].code, 503);
  EXPECT_EQ(requests[1].code, 200);
  EXPECT_GE(requests[1].seconds, 0);
  EXPECT_LT(requests[1].seconds, 5);
}

TEST(ClientObserver, SeesAWatchRestartedAfterADrop) {
  FakeApiServer server;
  auto observer = std::make_shared<RecordingObserver>();
  TransportOptions options = FastOptions();
  options.observer = observer;
  Client client(PlainConfig(server), options);
  ListWatchOptions watch;
  watch.backoff = {Millis(2), Millis(20)};
  Informer<Json> informer(
      client, resources::kPods, "", [](const Json& object) { return object; }, watch);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  ASSERT_TRUE(WaitFor([&] { return server.open_watches() > 0; }));
  EXPECT_TRUE(observer->restarts().empty());  // The first watch is no restart.
  server.CutWatches();
  ASSERT_TRUE(WaitFor([&] { return !observer->restarts().empty(); }));
  EXPECT_EQ(observer->restarts()[0], "pods");
  informer.Stop();
}

}  // namespace
}  // namespace gpupool::kube
