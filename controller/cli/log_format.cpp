#include "log_format.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

// %j: the message as a JSON string literal, quotes and control characters escaped.
class JsonMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const std::string text = nlohmann::json(std::string(msg.payload.data(), msg.payload.size()))
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return spdlog::details::make_unique<JsonMessageFlag>();
  }
};

}  // namespace

void ConfigureLogging(const std::string& level, const std::string& format) {
  const auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off")
    throw UsageError("--log-level: \"" + level +
                     "\" is not one of trace, debug, info, warn, error");
  spdlog::set_level(parsed);
  if (format == "text") return;
  if (format != "json") throw UsageError("--log-format: \"" + format + "\" is not text or json");
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<JsonMessageFlag>('j').set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":%j})");
  spdlog::set_formatter(std::move(formatter));
}

}  // namespace gpupool::cli
