#include "viewer/file_browser.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "ossa/core/file_io.h"

namespace ossa::viewer {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text;
}

}  // namespace

bool is_openable(const std::string& file_name) {
  const size_t dot = file_name.rfind('.');
  if (dot == std::string::npos || dot == 0) return false;
  const std::string ext = lower(file_name.substr(dot));
  return ext == ".fbx" || ext == ".gltf" || ext == ".glb" || ext == ".dae" || ext == ".ossa";
}

FileBrowser::FileBrowser(const std::string& folder) {
  if (!go_to(folder)) go_to(".");
}

bool FileBrowser::go_to(const std::string& folder) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path_from_utf8(folder), ec);
  if (ec || !fs::is_directory(absolute, ec)) {
    error_ = folder + ": not a folder";
    return false;
  }
  return list(utf8_from_path(absolute.lexically_normal()));
}

bool FileBrowser::enter(const std::string& name) {
  if (name == "..") {
    const fs::path here = path_from_utf8(folder_);
    const fs::path parent = (here.has_filename() ? here : here.parent_path()).parent_path();
    return !parent.empty() && parent != here && list(utf8_from_path(parent));
  }
  const bool listed = std::any_of(entries_.begin(), entries_.end(),
                                  [&](const BrowserEntry& e) { return e.folder && e.name == name; });
  return listed && list(path_of(name));
}

void FileBrowser::set_show_all(bool show_all) {
  show_all_ = show_all;
  refresh();
}

void FileBrowser::refresh() {
  list(folder_);
}

std::string FileBrowser::path_of(const std::string& name) const {
  return utf8_from_path(path_from_utf8(folder_) / path_from_utf8(name));
}

bool FileBrowser::list(const std::string& folder) {
  std::error_code ec;
  fs::directory_iterator it(path_from_utf8(folder), fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    error_ = folder + ": " + ec.message();
    return false;
  }
  std::vector<BrowserEntry> folders, files;
  bool truncated = false;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = utf8_from_path(it->path().filename());
    if (name.empty() || name[0] == '.') continue;
    std::error_code kind_error;
    const bool is_folder = it->is_directory(kind_error);
    if (!is_folder && !show_all_ && !is_openable(name)) continue;
    if (folders.size() + files.size() >= kMaxEntries) {
      truncated = true;
      break;
    }
    BrowserEntry entry;
    entry.name = name;
    entry.folder = is_folder;
    if (!is_folder) {
      std::error_code size_error;
      const uintmax_t bytes = it->file_size(size_error);
      entry.bytes = size_error ? 0 : bytes;
    }
    (is_folder ? folders : files).push_back(std::move(entry));
  }
  auto by_name = [](const BrowserEntry& a, const BrowserEntry& b) {
    const std::string la = lower(a.name), lb = lower(b.name);
    return la != lb ? la < lb : a.name < b.name;
  };
  std::sort(folders.begin(), folders.end(), by_name);
  std::sort(files.begin(), files.end(), by_name);
  folder_ = folder;
  entries_.clear();
  const fs::path here = path_from_utf8(folder);
  if (here.has_relative_path()) entries_.push_back({"..", true, 0});
  entries_.insert(entries_.end(), folders.begin(), folders.end());
  entries_.insert(entries_.end(), files.begin(), files.end());
  truncated_ = truncated;
  error_.clear();
  return true;
}

}  // namespace ossa::viewer
