// The notifies being authored in the viewer: one editable list per clip, undo/redo, the sidecar text.
//
// A NotifyDocument starts from what the library loaded (a NotifySet for the character's clips), takes edits
// (add, move, change duration, rename, set payload, delete), each a step of the undo history, and writes the
// documented sidecar format (ossa/asset/notifies.h). The Animator plays what the library parses from that
// same text (to_notify_set), so what the viewer shows firing is what a game loading the saved file fires.
// Plain C++ (no GL, no ImGui): the viewer's window and its scripts drive it, tests check it.
//
// Semantics in detail:
//  * Ids count up from 1 (the loaded notifies in time order) and are never reused, also across undo/redo.
//  * Payloads are held as the library gives them to a game: compact JSON, object keys sorted
//    (set_payload("{ \"b\": 1, \"a\": 2 }") holds {"a":2,"b":1}). Payloads nest at most 60 deep: the sidecar
//    adds 4 levels to the library's 64.
//  * Names (and clip names) must be UTF-8, which JSON can hold. A clip whose name is not UTF-8, or repeats an
//    earlier clip's name (the sidecar can only name the first), refuses edits.
//  * Non-finite times or durations are refused; finite ones are clamped (time + duration <= the clip's
//    duration exactly, in float, as the loader checks it). A duration of 0 or less makes an instant.
//  * An edit that changes nothing (a move to the same time) is no undo step; so is a group that ends where it
//    began. A new step clears redo. undo()/redo() while a group is open close it first (undo during a drag
//    undoes the drag; the later end_group() is then ignored). At most 1000 steps are kept.
//  * dirty() compares content (names, times, durations, payloads; not ids) with the saved state: undoing back
//    to it, or deleting and re-adding an equal notify, is not dirty. save() marks saved only when it wrote.
//  * Pointers from find() and references from notifies() are valid until the next edit, undo or redo.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/result.h"

namespace ossa::viewer {

struct EditableNotify {
  uint32_t id = 0;      // stable across edits and undo (what a drag in progress holds on to)
  std::string name;     // non-empty
  float time = 0;       // seconds from the clip start, in [0, clip duration]
  float duration = 0;   // 0: instant; > 0: a state, time + duration <= clip duration
  std::string payload;  // JSON text, "" for none
};

class NotifyDocument {
 public:
  NotifyDocument() = default;
  // The clips' notifies as loaded (`set` may be empty, or have no names: no notifies yet).
  NotifyDocument(const NotifySet& set, std::vector<ClipTiming> clips);

  const std::vector<ClipTiming>& clips() const { return clips_; }
  // Clip `clip`'s notifies, sorted by time (then by id). Empty for an index that is not a clip.
  const std::vector<EditableNotify>& notifies(int clip) const;
  const EditableNotify* find(int clip, uint32_t id) const;  // null when absent

  // Edits. Each returns "" when done, else why it was refused (nothing changes): an unknown clip or id, an
  // empty name, a payload that is not valid JSON. Times and durations are clamped into the clip.
  std::string add(int clip, const std::string& name, float time, float duration, uint32_t* id_out = nullptr);
  std::string move(int clip, uint32_t id, float time);  // keeps the duration, clamped to fit
  std::string set_duration(int clip, uint32_t id, float duration);
  std::string rename(int clip, uint32_t id, const std::string& name);
  std::string set_payload(int clip, uint32_t id, const std::string& json_text);
  std::string remove(int clip, uint32_t id);

  // Every clip's notifies replaced by those of `set` (parsed for the same clips), as one undo step: a
  // recovery copy of unsaved edits taken back. False (nothing changes) when they are what the document holds.
  bool restore(const NotifySet& set);

  // Edits between begin_group() and end_group() are one undo step (a drag moves a notify many times).
  void begin_group();
  void end_group();

  bool can_undo() const;
  bool can_redo() const;
  bool undo();  // false when there is nothing to undo
  bool redo();

  // Changed since loading or the last mark_saved().
  bool dirty() const;
  void mark_saved();

  // The sidecar the notifies came from (its text), so that saving keeps what this character does not own:
  // one sidecar often serves several exports of a model whose clip names differ. to_json() then starts from
  // it: clips this character lacks and other members stay as they were, each clip keeps the key it had there
  // ("Walk", not "Armature|Walk"), an unchanged clip is written as it was, and an unchanged notify keeps its
  // entry (its "ratio" form, its payload); a moved one keeps its form. Text that is not a sidecar is ignored.
  void keep_source(const std::string& sidecar_text);
  // The sidecar JSON ({"clips": {NAME: [...]}}), clips with notifies only, in clip order, each list by time
  // (with keep_source: the source's clips and keys, this character's notifies).
  std::string to_json() const;
  // What the library parses from to_json(), for an Animator on `asset` (whose clips the document was made
  // for).
  Result<NotifySet> to_notify_set(const CharacterAsset& asset) const;
  // Writes to_json() to `path` atomically (ossa/core/file_io.h): on failure the previous file is intact.
  Result<bool> save(const std::string& path);

  // "" when `json_text` is empty or valid JSON no deeper than the library accepts, else the parser's message.
  static std::string payload_error(const std::string& json_text);

 private:
  using Lists = std::vector<std::vector<EditableNotify>>;  // one list per clip, parallel to clips_

  // "" when the sidecar can name clip `clip` (so its notifies can be edited and saved), else why not.
  std::string clip_error(int clip) const;
  Lists read_lists(const NotifySet& set);  // the set's notifies per clip, sorted, with new ids
  EditableNotify* find_mutable(int clip, uint32_t id);
  // After an edit of clip `clip`: re-sorts it and records `before` as an undo step (or into the open group).
  void commit(int clip, Lists before);

  std::string source_json() const;  // to_json() with a source kept

  std::vector<ClipTiming> clips_;
  Lists lists_;
  Lists loaded_;  // as constructed (what a kept source's entries say)
  // keep_source: the source document, each clip's key in it ("" when it has none), and per loaded notify id
  // the source entry it came from.
  std::string source_text_;
  std::vector<std::string> source_keys_;
  std::vector<std::pair<uint32_t, std::string>> source_entries_;  // (id, the entry's JSON text)
  Lists saved_;                     // what the file holds (dirty() compares with it)
  std::vector<Lists> undo_, redo_;  // states before / after each step, newest last
  Lists group_before_;              // the state when the outermost begin_group() was called
  int group_depth_ = 0;
  bool group_changed_ = false;
  uint32_t next_id_ = 1;
};

}  // namespace ossa::viewer
