// Streaming requests (watches) on a curl multi handle, so that a stop request,
// a cancelled transport or a silent connection ends the transfer within one
// poll interval.
#include <memory>

#include "curl_session.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/transport.h"

namespace gpupool::kube {
namespace {

struct StreamState {
  CURL* handle = nullptr;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  bool aborted = false;  // on_data asked to stop.
  long status = 0;
  std::string error_body;  // The body of a non-2xx answer, decoded as a Status.
  Clock::time_point last_data = Clock::now();
};

size_t StreamBody(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<StreamState*>(user);
  state->last_data = Clock::now();
  if (state->status == 0) curl_easy_getinfo(state->handle, CURLINFO_RESPONSE_CODE, &state->status);
  std::string_view piece(data, size * count);
  if (state->status >= 200 && state->status < 300) {
    if (!(*state->on_data)(piece)) {
      state->aborted = true;
      return 0;  // Makes curl end the transfer.
    }
  } else if (state->error_body.size() < 64 * 1024) {
    state->error_body.append(piece);
  }
  return size * count;
}

struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};

}  // namespace

Transport::StreamEnd Transport::Stream(const HttpRequest& request,
                                       const std::function<bool(std::string_view)>& on_data,
                                       const std::atomic<bool>& stop, Millis idle_timeout) {
  std::string context = request.method + " " + request.path.substr(0, request.path.find('?')) +
                        " (watch) on " + config_.server;
  AcquireRateToken(context);
  ++impl_->requests;
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
  CurlLists lists;
  impl_->Configure(easy.get(), request, /*streaming=*/true, lists);
  StreamState state;
  state.handle = easy.get();
  state.on_data = &on_data;
  char error_text[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, StreamBody);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &state);
  curl_multi_add_handle(multi.get(), easy.get());
  StreamEnd end = StreamEnd::kServerClosed;
  CURLcode result = CURLE_OK;
  for (;;) {
    int running = 0;
    curl_multi_perform(multi.get(), &running);
    if (CURLMsg* msg = nullptr; running == 0) {
      int left = 0;
      while ((msg = curl_multi_info_read(multi.get(), &left)))
        if (msg->msg == CURLMSG_DONE) result = msg->data.result;
      break;
    }
    if (stop.load() || cancel_->cancelled()) {
      end = StreamEnd::kStopped;
      break;
    }
    if (Clock::now() - state.last_data > idle_timeout) {
      end = StreamEnd::kIdle;
      break;
    }
    curl_multi_poll(multi.get(), nullptr, 0, kCancelPollMillis, nullptr);
  }
  long connects = 0;
  curl_easy_getinfo(easy.get(), CURLINFO_NUM_CONNECTS, &connects);
  impl_->connections += static_cast<uint64_t>(connects);
  if (state.status == 0) curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &state.status);
  curl_multi_remove_handle(multi.get(), easy.get());
  if (end == StreamEnd::kStopped && cancel_->cancelled()) throw CancelledError(context);
  if (state.aborted) return StreamEnd::kStopped;
  if (end != StreamEnd::kServerClosed) return end;
  if (result != CURLE_OK) ThrowCurlError(result, error_text, context, /*request_sent=*/true);
  if (state.status < 200 || state.status >= 300)
    throw DecodeStatusError(static_cast<int>(state.status), state.error_body, context);
  return end;
}

}  // namespace gpupool::kube
