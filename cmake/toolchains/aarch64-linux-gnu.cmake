# Cross build for 64-bit ARM Linux with Debian's cross compiler (g++-aarch64-linux-gnu) and the arm64 builds of
# the libraries from Debian multiarch (dpkg --add-architecture arm64; libxxhash-dev:arm64 libgtest-dev:arm64 …,
# scripts/bootstrap.sh aarch64 installs them). Programs and tests run under qemu-user (qemu-aarch64).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Multiarch: arm64 libraries and CMake packages live in /usr/lib/aarch64-linux-gnu, headers in /usr/include
# (shared with the host). Searching only /usr/lib/aarch64-linux-gnu keeps the host's x86-64 libraries out;
# header-only packages (nlohmann_json) are found in /usr/share.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# ctest and gtest_discover_tests run the test programs through qemu. -L: the arm64 loader of the cross
# toolchain (/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1). LD_LIBRARY_PATH (set for the emulated program
# only, -E): that loader's own libc and libstdc++ come first. Without it the loader (libc6-arm64-cross,
# 2.36-8cross1 in Debian 12) finds the multiarch libc6:arm64 (2.36-9+deb12u…, pulled in by libxxhash0:arm64)
# through /etc/ld.so.cache, and the two glibc builds disagree about their private data: every
# pthread_create then spins forever in the stack-cache list. Multiarch libraries (libxxhash) are still found.
find_program(OSSA_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${OSSA_QEMU_AARCH64} -L /usr/aarch64-linux-gnu
                                  -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
