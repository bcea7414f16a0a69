// The viewer's file browser (File > Open): one folder's subfolders and the files Ossa opens, listed the way a
// user scans them. Plain C++ over std::filesystem (no ImGui): the window draws entries(), tests list folders
// they make.
// Entries: ".." first (unless the folder is a root), then folders, then files, each group by name ignoring
// case; names starting with '.' are hidden; files are those is_openable() accepts unless show_all. A folder
// with more than kMaxEntries entries lists the first kMaxEntries (truncated() says so); a folder that cannot
// be read lists nothing and error() says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ossa::viewer {

// .fbx, .gltf, .glb, .dae (COLLADA) and .ossa, in any letter case.
bool is_openable(const std::string& file_name);

struct BrowserEntry {
  std::string name;  // UTF-8
  bool folder = false;
  uintmax_t bytes = 0;  // files
};

class FileBrowser {
 public:
  static constexpr size_t kMaxEntries = 10000;

  explicit FileBrowser(const std::string& folder = ".");
  // Lists `folder` (made absolute); false (nothing changes) when it is not a readable folder.
  bool go_to(const std::string& folder);
  // Into a listed folder, or ".." to the parent; false for anything else.
  bool enter(const std::string& name);
  void set_show_all(bool show_all);
  bool show_all() const { return show_all_; }
  void refresh();

  const std::string& folder() const { return folder_; }
  const std::vector<BrowserEntry>& entries() const { return entries_; }
  bool truncated() const { return truncated_; }
  const std::string& error() const { return error_; }
  std::string path_of(const std::string& name) const;  // folder() / name

 private:
  bool list(const std::string& folder);
  std::string folder_;
  std::vector<BrowserEntry> entries_;
  bool show_all_ = false, truncated_ = false;
  std::string error_;
};

}  // namespace ossa::viewer
