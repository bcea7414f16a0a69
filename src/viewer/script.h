// `ossa view FILE --script SCRIPT.txt`: actions run at fixed time steps, so a test can drive the real window.
//
// One action per line; '#' at the start of a word starts a comment ("take#2.png" is a word); words are
// separated by spaces or tabs, a word with spaces in double quotes ("Left foot", with \" and \\ inside);
// payload-notify takes the rest of the line after NAME verbatim as its JSON (so no comment after it; without
// JSON it clears the payload). Each frame advances the clock by 1/60 s and runs the actions due; `wait N`
// lets N frames pass. Actions (times in seconds, pixels in window coords):
//   open PATH (as File > Open) play CLIP                 pause / resume
//   seek SECONDS              speed FACTOR              step FRAMES (negative: back)
//   loop once|repeat|pingpong crossfade CLIP SECONDS [sync]
//   root-motion on|off        lighting phong|blinn-phong|lambert|unlit|texture-only
//   skinning gpu|cpu|baked    crowd N                   skeleton on|off
//   layer CLIP WEIGHT [JOINT] (override layer, masked to JOINT's subtree; `layer off` removes it)
//   blend-sample CLIP X [Y]   blend 1d|2d|off [MARKERS]  blend-param X [Y]   (a blend space drives the pose)
//   feet on|off [flat|slope]  (foot placement on the ground named)
//   morph TARGET WEIGHT / morph-off TARGET  (override a morph target's weight, the first of that name)
//   graph PATH                graph-set NAME VALUE (a number, true/false, set/reset)
//   expect-state LAYER STATE  (an animation graph drives the character)
//   retarget PATH [MAP]       (a second character beside, playing the clip through a bone map)
//   map-bone TARGET SOURCE|none   save-map [PATH]   (edit the bone map; save it as JSON)
//   select-joint NAME (as a pick in the view)   expect-joint-shown NAME (a row of the joint tree on screen)
//   add-notify NAME [DURATION] (at the playhead)
//   move-notify NAME SECONDS  duration-notify NAME SECONDS   rename-notify NAME NEW
//   payload-notify NAME JSON  delete-notify NAME        (NAME: the first notify of that name in the clip)
//   undo / redo               save [PATH]               click X Y / drag X0 Y0 X1 Y1
//   export PATH               (the character as glTF: .glb or .gltf, with the notifies as edited)
//   export-view OUT.gif|OUT.png (the clip as the view shows it: a GIF, or OUT_0000.png ...)
//   tap X Y                   (a click whose pointer arrives and presses in one poll, as at a low frame rate)
//   key KEYS                  (pressed and released in one poll: "n", "space", "ctrl+s"; see key_input.h)
//   hold KEYS FRAMES          (pressed, auto-repeating for FRAMES frames, released)
//   type TEXT                 (its characters in one poll)   click-field name|rename|payload
//   expect-text name|rename|payload TEXT   expect-notifies N   expect-notify NAME   expect-paused yes|no
//   zoom FACTOR               (the timeline, about the playhead; > 1 in)
//   bottom-tab notifies|dope|curves   dope-row NAME (select a dope sheet row)   expect-dope-rows N
//   curve t|r|s [euler|quat]  (the curve view's channel of the selected row)
//   expect-layout LEFT RIGHT BOTTOM (panel sizes in points)   font-scale SCALE (0.75 to 2.5)
//   view front|side|top       follow on|off (the camera keeps up with root motion)
//   mm on|off|restart         (motion matching drives the character: a file from `ossa mm build`)
//   mm-stick X Y [run]        (the stick, X right and Y forward in [-1, 1], instead of the keys and pad)
//   mm-keys                   (WASD, shift to run, and a gamepad drive again)
//   expect-mm-travel METRES [MAX] (the matched character is that far, and at most MAX, from its start)
//   joint-names on|off        joint-axes on|off         bind-pose on|off
//   onion on|off (ghost poses around the playhead)      trail on|off (the selected joint's path)
//   frame N (go to the base clip's frame N, paused)   loop-range IN OUT / loop-range off   expect-time
//   SECONDS close                     (the window's close button; asks first when notify edits are unsaved)
//   answer save|discard|cancel|recover    expect-prompt none|unsaved|recovery    expect-recovery yes|no
//   expect-title TEXT         (the window's title: "FILE - Ossa viewer", "FILE* - ..." while edits are
//   unsaved) screenshot PATH.png       wait FRAMES               expect-clip NAME / expect-events N
//   expect-error [TEXT]       quit [STATUS]
// Every line is checked when the script is read: an unknown action or a bad number is an error naming the
// line. Numbers are finite decimals (no nan, inf, hex) within: SECONDS and DURATION 0 to 1e7, FACTOR -100 to
// 100, WEIGHT 0 to 1, X and Y 0 to 1e5 (blend X and Y: -1e6 to 1e6); whole numbers for FRAMES (wait 0 to 1e7,
// step -1e7 to 1e7), crowd N 0 to 10000, expect-events N 0 to 1e9, quit STATUS 0 to 255. Lines are UTF-8
// without control characters (tab and a CRLF ending are fine), at most 64 KiB each. The first ten errors are
// reported, one a line.
#pragma once

#include <string>
#include <vector>

#include "ossa/core/result.h"

namespace ossa::viewer {

struct ScriptAction {
  std::string action;  // the first word, e.g. "add-notify"
  // The rest, quotes removed, numeric arguments included (payload-notify: NAME, then the JSON text whole).
  std::vector<std::string> words;
  std::vector<double> numbers;  // the arguments the action takes as numbers, parsed, in order
  int line = 0;                 // 1-based line in the script
};

constexpr long long kMaxScriptBytes = 1 << 20;
constexpr int kMaxScriptActions = 100000;

// Parses and checks a whole script (arity, numbers finite and in range, known enumerations).
Result<std::vector<ScriptAction>> parse_script(const std::string& text, const std::string& source_name);
// Every action the grammar knows (the viewer checks that each has a verb to run it).
std::vector<std::string> script_action_names();
Result<std::vector<ScriptAction>> load_script(const std::string& path);

}  // namespace ossa::viewer
