# Cross build for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix). The -posix compilers:
# their libstdc++ has std::thread/std::mutex (through winpthreads); the -win32 ones have none. Programs and
# tests run under Wine (scripts/wine-run.sh). Header-only dependencies come from the host's Debian packages
# through cmake/windows_dependencies.cmake, GoogleTest from Debian's source package (tests/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)  # matches CMakeLists.txt's x86-64 test: the SSE2 and AVX2 kernels are built
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# MinGW's own printf family (C99: %zu, %lld), not msvcrt's, for every program and library.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
set(CMAKE_CXX_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")

# Only the MinGW sysroot for libraries, headers and CMake packages: never the host's /usr/include or /usr/lib
# (glibc's headers would shadow MinGW's). Programs (cmake, wine, pkg-config) come from the host.
# Roots given with -DCMAKE_FIND_ROOT_PATH (a consumer's prefix holding an installed Ossa) are kept.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config must not report the host's libraries either (there are no MinGW .pc files here).
set(ENV{PKG_CONFIG_LIBDIR} /usr/x86_64-w64-mingw32/lib/pkgconfig)

# Static libgcc, libstdc++ and winpthread: the .exe files run under Wine (or are copied to a Windows machine)
# with no MinGW DLLs beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")

# ctest and gtest_discover_tests run the .exe files through Wine: a private prefix, created once, no noise.
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../../scripts/wine-run.sh)
