# Header-only dependencies for the MinGW cross build (cmake/toolchains/x86_64-w64-mingw32.cmake), taken from the
# host's Debian packages (libxxhash-dev, nlohmann-json3-dev, libcli11-dev, libstb-dev). Never -I/usr/include:
# glibc's headers there would shadow MinGW's. Instead a folder in the build tree holds symbolic links to just
# these headers, and the targets below carry the SAME names the Linux build gets from pkg-config/find_package,
# so the rest of the build is unchanged. Each one is defined only when the MinGW sysroot does not provide it.
set(OSSA_WINDOWS_HEADERS ${PROJECT_BINARY_DIR}/windows-headers)
file(MAKE_DIRECTORY ${OSSA_WINDOWS_HEADERS})
foreach(entry xxhash.h xxh3.h nlohmann CLI stb)  # stb: for the Windows renderer's image output
  if(NOT EXISTS /usr/include/${entry})
    message(FATAL_ERROR "ossa: /usr/include/${entry} missing (scripts/bootstrap.sh windows installs it)")
  endif()
  file(CREATE_LINK /usr/include/${entry} ${OSSA_WINDOWS_HEADERS}/${entry} SYMBOLIC)
endforeach()

# xxhash in inline mode: every function compiled into its user, so there is no libxxhash to cross-build.
pkg_check_modules(XXHASH QUIET IMPORTED_TARGET libxxhash)
if(NOT TARGET PkgConfig::XXHASH)
  add_library(PkgConfig::XXHASH INTERFACE IMPORTED)
  target_include_directories(PkgConfig::XXHASH INTERFACE ${OSSA_WINDOWS_HEADERS})
  target_compile_definitions(PkgConfig::XXHASH INTERFACE XXH_INLINE_ALL)
  set(OSSA_XXHASH_INLINE ON)  # the installed package has nothing to find for it (cmake/install.cmake)
endif()
find_package(nlohmann_json QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${OSSA_WINDOWS_HEADERS})
endif()
find_package(CLI11 QUIET)
if(NOT TARGET CLI11::CLI11)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${OSSA_WINDOWS_HEADERS})
endif()

# assimp for ossa::import, cross-built from Debian's source package by scripts/windows-deps.sh (which
# scripts/bootstrap.sh windows runs) into the build tree. Its package names minizip and zlib by library name
# only: the prefix's lib folder goes on the link path of whatever links assimp.
set(OSSA_WINDOWS_DEPS ${PROJECT_SOURCE_DIR}/build/windows-deps/prefix CACHE PATH
    "assimp and minizip for x86_64-w64-mingw32 (scripts/windows-deps.sh)")
if(OSSA_BUILD_IMPORT)
  find_package(assimp CONFIG QUIET PATHS ${OSSA_WINDOWS_DEPS} NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(TARGET assimp::assimp)
    set_property(TARGET assimp::assimp APPEND PROPERTY INTERFACE_LINK_DIRECTORIES ${OSSA_WINDOWS_DEPS}/lib)
  endif()
endif()
