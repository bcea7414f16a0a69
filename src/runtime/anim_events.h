// Internal: how the Animator and the BlendSpacePlayer turn a clip's playhead events into AnimEvents.
#pragma once

#include <vector>

#include "ossa/runtime/animator.h"

namespace ossa::detail {

// Appends `scratch`'s events of clip `clip` to `out` (names and payloads point into `notifies`, which may be
// null); events past out's capacity are counted in `dropped`, never allocated. Clears `scratch`.
void collect_events(int clip, const NotifySet* notifies, EventBuffer& scratch, std::vector<AnimEvent>& out,
                    size_t& dropped);

}  // namespace ossa::detail
