// `ossa view`: the interactive viewer (src/viewer/), with this CLI's loader (the import guard applies).
#include <cstdio>

#include "commands.h"
#include "size_option.h"
#include "text_output.h"
#include "viewer/app/viewer_window.h"
#include "viewer/settings.h"

namespace ossa::cli {

int run_view(const ViewArgs& args) {
  viewer::ViewerOptions options;
  options.file = args.file;
  options.notifies = args.notifies;
  options.script = args.script;
  options.graph = args.graph;
  options.settings_path = args.settings;
  if (!args.size.empty()) {
    SizeOption size;
    if (!parse_size_option(args.size, viewer::ViewerSettings::kMinWindowSide,
                           viewer::ViewerSettings::kMaxWindowSide, size)) {
      print_error("ossa view: --size must be WIDTHxHEIGHT, each %d-%d, e.g. 1280x800\n",
                  viewer::ViewerSettings::kMinWindowSide, viewer::ViewerSettings::kMaxWindowSide);
      return kExitUsage;
    }
    options.width = size.width;
    options.height = size.height;
  }
  options.load = [](const std::string& path,
                    const std::string& notifies) -> Result<std::shared_ptr<const LoadedCharacter>> {
#ifdef OSSA_HAS_IMPORT
    ModelLoadOptions load;
    load.import = import_options(4, false);
    load.notifies_path = notifies;
    return load_character(path, load);
#else
    LoadOptions load;
    load.notifies_path = notifies;
    if (!is_ossa_file(path))
      return Result<std::shared_ptr<const LoadedCharacter>>::failure(path +
                                                                     ": this build reads .ossa files only");
    return load_ossa_character(path, load);
#endif
  };
  const int status = viewer::run_viewer(options);
  if (status == 4) return kExitInternal;
  return status == 0 ? kExitOk : status;
}

}  // namespace ossa::cli
