# The layering check: every #include in src/ and include/ossa/ runs along an allowed direction, from a file's layer to
# one below it (docs/conventions.md draws the table below as a picture).
#   cmake -DROOT=SOURCE_TREE -P cmake/check_layers.cmake
# A file's layer is its folder: src/LAYER/... or include/ossa/LAYER/... (include/ossa/ossa.h, the umbrella header,
# may include every library layer). An include names its layer by path: "ossa/LAYER/x.h", or relative to the file
# ("../LAYER/x.h", "x.h" in the same layer). Prints each include that runs against the table and fails when any
# does; prints the directions in use when none does.

# Allowed includes, layer -> the layers it may include (itself always). One table: nothing else decides.
#   core       math, results, files
#   asset      what a game holds: skeleton, clips, meshes, notifies, graphs (immutable, shared)
#   runtime    the per-frame jobs, the Animator, graph and retarget instances
#   offline    what builds or transforms assets once: builders, compression, retarget rigs, root motion, parsing
#   serialize  .ossa and glTF files, written and read
#   import     model files through assimp (and BVH) into raw data and characters
#   render     drawing characters: GL and Direct3D 11 backends
#   viewer     `ossa view`
#   reference, baseline   test oracles (private: tests and benchmarks link them; the library never includes them)
cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...)
set(ossa_layers core asset runtime offline serialize import render viewer reference baseline)
set(ossa_allowed_core "")
set(ossa_allowed_asset core)
set(ossa_allowed_runtime asset core)
set(ossa_allowed_offline runtime asset core)
set(ossa_allowed_serialize offline runtime asset core)
set(ossa_allowed_import serialize offline runtime asset core)
set(ossa_allowed_render import runtime asset core)  # import: the plain ImportedScene a renderer may draw
set(ossa_allowed_viewer render import serialize offline runtime asset core)
set(ossa_allowed_reference asset core)
set(ossa_allowed_baseline import runtime asset core)

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=SOURCE_TREE -P check_layers.cmake")
endif()

# The layer of a path relative to ROOT ("" for a file outside the layers).
function(ossa_layer_of path out)
  set(layer "")
  if(path MATCHES "^src/([^/]+)/")
    set(layer "${CMAKE_MATCH_1}")
  elseif(path MATCHES "^include/ossa/([^/]+)/")
    set(layer "${CMAKE_MATCH_1}")
  elseif(path STREQUAL "include/ossa/ossa.h")
    set(layer "umbrella")
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/src/*.h" "${ROOT}/src/*.cpp" "${ROOT}/src/*.inl"
     "${ROOT}/include/ossa/*.h")
list(SORT files)
set(violations "")
set(directions "")
set(unknown "")
foreach(file IN LISTS files)
  ossa_layer_of("${file}" from)
  if(from STREQUAL "")
    continue()
  endif()
  if(NOT from STREQUAL "umbrella" AND NOT from IN_LIST ossa_layers)
    list(APPEND unknown "${file}: folder '${from}' is in no layer of cmake/check_layers.cmake")
    continue()
  endif()
  file(STRINGS "${ROOT}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  get_filename_component(dir "${file}" DIRECTORY)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" included "${line}")
    if(included MATCHES "^ossa/([^/]+)/")
      set(to "${CMAKE_MATCH_1}")
    elseif(included MATCHES "^ossa/")
      set(to "umbrella")
    else()  # relative to the including file
      get_filename_component(target "${ROOT}/${dir}/${included}" ABSOLUTE)
      file(RELATIVE_PATH target "${ROOT}" "${target}")
      ossa_layer_of("${target}" to)
      if(to STREQUAL "")
        continue()  # a generated file or one outside the layers (e.g. the build's own)
      endif()
    endif()
    if(to STREQUAL from)
      continue()
    endif()
    set(ok FALSE)
    if(from STREQUAL "umbrella")
      if(NOT to STREQUAL "reference" AND NOT to STREQUAL "baseline" AND NOT to STREQUAL "viewer")
        set(ok TRUE)
      endif()
    elseif(to IN_LIST ossa_allowed_${from})
      set(ok TRUE)
    endif()
    if(ok)
      list(APPEND directions "${from} -> ${to}")
    else()
      list(APPEND violations "${file}: ${from} must not include ${to} (\"${included}\")")
    endif()
  endforeach()
endforeach()

list(LENGTH files file_count)
if(unknown OR violations)
  foreach(v IN LISTS unknown violations)
    message("layering: ${v}")
  endforeach()
  list(LENGTH violations count)
  message(FATAL_ERROR "layering: ${count} include(s) against the table in cmake/check_layers.cmake")
endif()
list(REMOVE_DUPLICATES directions)
list(SORT directions)
list(JOIN directions ", " shown)
message("layering: ${file_count} files, every include along the table (${shown})")
