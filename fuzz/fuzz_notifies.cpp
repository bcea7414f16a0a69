// libFuzzer target: the notify JSON reader (sidecar files, --notifies, and the NOTIFIES section of a .ossa)
// must accept or reject any text with a message, never crash or recurse without bound; what it accepts
// must be sorted, in range and consistent with its name table.
#include <cstdint>
#include <string>

#include "ossa/asset/notifies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const std::vector<ossa::ClipTiming> clips{{"Armature|Walk", 1.f}, {"Run", 0.5f}, {"Empty", 0.f}};
  auto set = ossa::parse_notifies(text, "fuzz.notifies.json", clips);
  if (!set) return 0;
  if (set->clips.size() != clips.size()) __builtin_trap();
  for (size_t c = 0; c < clips.size(); ++c)
    for (const auto* list : {&set->clips[c].instants, &set->clips[c].states})
      for (size_t i = 0; i < list->size(); ++i) {
        const ossa::Notify& n = (*list)[i];
        if (n.name_id < 0 || n.name_id >= static_cast<int>(set->names.size())) __builtin_trap();
        if (!(n.time >= 0 && n.time <= clips[c].duration)) __builtin_trap();
        if (i > 0 && (*list)[i - 1].time > n.time) __builtin_trap();
      }
  return 0;
}
