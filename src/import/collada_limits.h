// Internal: the skin indices of a COLLADA file, checked before assimp reads it.
//
// assimp 5.2.5's COLLADA loader takes each <vertex_weights> joint index as it is: an index past the skin's
// joints reads and frees memory outside its arrays (valgrind: invalid reads and an invalid free), so the
// scene it returns depends on what the heap held. That is how a fuzzed file gave the import guard's worker
// and the fuzzing process different meshes. check_collada_skins() reads each <skin>'s joint names, inverse
// bind matrices and <vertex_weights> from the text (no XML library: tags, attributes and number lists only)
// and refuses a joint index outside -1 (the bind shape, as the specification allows) .. joints - 1, and fewer
// inverse bind matrices than joints. Weight indices assimp checks itself. Every <accessor> must also stay
// inside the array it reads (assimp allocates an array by its count attribute and reads the accessor's
// count x stride values: a positions array declared shorter than its points was read past its end).
#pragma once

#include <string>
#include <string_view>

namespace ossa::detail {

// "" or what is wrong with a skin (without the file's name).
std::string check_collada_skins(std::string_view text);

}  // namespace ossa::detail
