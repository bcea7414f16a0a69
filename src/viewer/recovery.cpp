#include "viewer/recovery.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <span>
#include <system_error>

#include <nlohmann/json.hpp>

#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"

namespace ossa::viewer {

namespace {

constexpr std::uintmax_t kMaxRecoveryBytes = 16u << 20;

uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
#ifdef _WIN32
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  return text;
}

}  // namespace

std::string recovery_model_key(const std::string& model_path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path_from_utf8(model_path), ec);
  return ec ? model_path : utf8_from_path(absolute.lexically_normal());
}

std::string recovery_path(const std::string& settings_path, const std::string& model_path) {
  if (settings_path.empty()) return {};
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.json",
                static_cast<unsigned long long>(fnv1a(recovery_model_key(model_path))));
  return utf8_from_path(path_from_utf8(settings_path).parent_path() / "recovery" / name);
}

Result<bool> write_recovery(const std::string& path, RecoveryCopy copy) {
  if (path.empty()) return Result<bool>::failure("no recovery path (no settings folder)");
  if (copy.written.empty()) copy.written = utc_now();
  nlohmann::ordered_json notifies = nlohmann::ordered_json::parse(copy.notifies_json, nullptr, false);
  if (notifies.is_discarded()) return Result<bool>::failure("the notifies to keep are not JSON");
  nlohmann::ordered_json doc;
  doc["model"] = copy.model;
  doc["written"] = copy.written;
  doc["notifies"] = std::move(notifies);
  const std::string text = doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::error_code ec;
  std::filesystem::create_directories(path_from_utf8(path).parent_path(), ec);
  if (ec) return Result<bool>::failure(path + ": cannot create its folder: " + ec.message());
  return write_file_atomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<RecoveryCopy> read_recovery(const std::string& path, const std::string& model_path) {
  if (path.empty()) return std::nullopt;
  const std::filesystem::path file = path_from_utf8(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec || size > kMaxRecoveryBytes) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) return std::nullopt;
  // The library's sidecar parser checks the notifies themselves when they are taken back; here, the shape
  // (nesting first: the parser recurses).
  if (!json_nesting_error(text).empty()) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("model") || !doc["model"].is_string() || !doc.contains("notifies") ||
      !doc["notifies"].is_object())
    return std::nullopt;
  RecoveryCopy copy;
  copy.model = doc["model"].get<std::string>();
  if (copy.model != recovery_model_key(model_path)) return std::nullopt;
  if (doc.contains("written") && doc["written"].is_string()) copy.written = doc["written"].get<std::string>();
  copy.notifies_json = doc["notifies"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return copy;
}

void remove_recovery(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::remove(path_from_utf8(path), ec);
}

}  // namespace ossa::viewer
