# ctest Packaging.runtime_headers (tests/CMakeLists.txt): every header ossa::runtime installs includes no
# assimp, GL, JSON, image or CLI library and no import/render header, and compiles on its own with only
# include/ on the path. Run as: cmake -DROOT=<source dir> -DCXX=<compiler> -P check_runtime_headers.cmake
file(GLOB_RECURSE headers RELATIVE ${ROOT}/include ${ROOT}/include/ossa/*.h)
set(failed "")
set(checked 0)
foreach(header IN LISTS headers)
  if(header MATCHES "^ossa/(import|render|baseline)/")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS ${ROOT}/include/${header} includes REGEX "^#include")
  foreach(line IN LISTS includes)
    if(line MATCHES "assimp|nlohmann|epoxy|EGL|GL/|gif_lib|stb_|CLI/|xxhash|ossa/import/|ossa/render/")
      if(NOT header STREQUAL "ossa/ossa.h" OR NOT line MATCHES "ossa/(import|render)/")  # ossa.h: under #if
        list(APPEND failed "${header}: ${line}")
      endif()
    endif()
  endforeach()
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/header_check.cpp "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${ROOT}/include
                          ${CMAKE_CURRENT_BINARY_DIR}/header_check.cpp
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${header}: does not compile on its own: ${err}")
  endif()
endforeach()
if(failed)
  list(JOIN failed "\n" text)
  message(FATAL_ERROR "runtime headers:\n${text}")
endif()
message(STATUS "runtime headers: ${checked} headers checked")
