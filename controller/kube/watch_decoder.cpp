#include <cstring>

#include "gpupool/json/parse.h"
#include "gpupool/json/without.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/watch.h"

namespace gpupool::kube {
namespace {

EventType ParseType(std::string_view type) {
  if (type == "ADDED") return EventType::kAdded;
  if (type == "MODIFIED") return EventType::kModified;
  if (type == "DELETED") return EventType::kDeleted;
  if (type == "BOOKMARK") return EventType::kBookmark;
  if (type == "ERROR") return EventType::kError;
  throw ApiError(Reason::kDecode, 0, "watch event has unknown type \"" + std::string(type) + "\"");
}

// The first '"' or '\\' in `text` from `from` on, or npos. Most of a frame's
// bytes are inside strings: two memchr passes skip them, not a test a byte.
std::size_t StringStop(const std::string& text, std::size_t from) {
  const char* begin = text.data() + from;
  const std::size_t left = text.size() - from;
  const auto* quote = static_cast<const char*>(std::memchr(begin, '"', left));
  const std::size_t until = quote ? static_cast<std::size_t>(quote - begin) : left;
  const auto* backslash = static_cast<const char*>(std::memchr(begin, '\\', until));
  if (backslash) return from + static_cast<std::size_t>(backslash - begin);
  return quote ? from + until : std::string::npos;
}

}  // namespace

WatchEvent DecodeWatchEvent(std::string_view frame, const std::vector<json::MemberPath>& unread) {
  Json parsed = unread.empty() ? json::ParseJson(frame) : json::ParseWithout(frame, unread);
  if (!parsed.is_object())
    throw ApiError(Reason::kDecode, 0,
                   "watch frame is not a JSON object: " + std::string(frame.substr(0, 100)));
  auto type = parsed.find("type");
  auto object = parsed.find("object");
  if (type == parsed.end() || !type->is_string() || object == parsed.end() || !object->is_object())
    throw ApiError(Reason::kDecode, 0,
                   "watch frame lacks type or object: " + std::string(frame.substr(0, 100)));
  return {ParseType(type->get_ref<const std::string&>()), std::move(*object)};
}

WatchDecoder::WatchDecoder(const std::vector<json::MemberPath>& unread) {
  for (const auto& path : unread) {
    json::MemberPath in_frame = {"object"};
    in_frame.insert(in_frame.end(), path.begin(), path.end());
    unread_.push_back(std::move(in_frame));
  }
}

std::vector<json::MemberPath> UnreadMembers(const ListWatchOptions& options) {
  std::vector<json::MemberPath> unread = options.unread_members;
  if (options.drop_managed_fields) unread.push_back({"metadata", "managedFields"});
  return unread;
}

void WatchDecoder::Reset() {
  buffer_.clear();
  scanned_ = frame_start_ = 0;
  depth_ = 0;
  in_string_ = escaped_ = false;
}

void WatchDecoder::Emit(std::size_t begin, std::size_t end, const Callback& on_event) {
  on_event(DecodeWatchEvent(std::string_view(buffer_).substr(begin, end - begin), unread_));
}

// Tracks brace depth outside strings so a frame's end is found without
// relying on the newline separator.
void WatchDecoder::Feed(std::string_view bytes, const Callback& on_event) {
  buffer_.append(bytes);
  std::size_t consumed = 0;
  for (std::size_t i = scanned_; i < buffer_.size(); ++i) {
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
        continue;
      }
      const std::size_t stop = StringStop(buffer_, i);
      if (stop == std::string::npos) break;  // The string goes on in bytes yet to come.
      i = stop;
      escaped_ = buffer_[i] == '\\';
      in_string_ = escaped_;
      continue;
    }
    const char c = buffer_[i];
    if (depth_ == 0) {
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (c != '{')
        throw ApiError(Reason::kDecode, 0,
                       std::string("watch stream: unexpected byte '") + c + "' between frames");
      frame_start_ = i;
    }
    if (c == '"')
      in_string_ = true;
    else if (c == '{' || c == '[')
      ++depth_;
    else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        Emit(frame_start_, i + 1, on_event);
        consumed = i + 1;
      }
    }
  }
  scanned_ = buffer_.size();
  if (depth_ == 0 && !in_string_) consumed = buffer_.size();  // Only whitespace is left.
  if (consumed > 0) {
    buffer_.erase(0, consumed);
    scanned_ -= consumed;
    frame_start_ = frame_start_ >= consumed ? frame_start_ - consumed : 0;
  }
}

}  // namespace gpupool::kube
