# Install rules: headers, the component libraries, the CMake package (ossaConfig.cmake, one export set per
# component) and pkg-config files. Included from the top-level CMakeLists.txt when OSSA_INSTALL is on.
include(CMakePackageConfigHelpers)
set(OSSA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ossa)

# Headers of the components built (runtime headers are everything outside offline/, import/ and render/, less
# the glTF export's, which ossa::offline defines). The test oracles (src/reference, src/baseline) are never
# installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ossa DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT ossa_development
        PATTERN "offline" EXCLUDE PATTERN "import" EXCLUDE PATTERN "render" EXCLUDE PATTERN "gltf_export.h" EXCLUDE)
foreach(component offline import render)
  if(${component} IN_LIST OSSA_COMPONENTS)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ossa/${component} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ossa
            COMPONENT ossa_development)
  endif()
endforeach()
if(offline IN_LIST OSSA_COMPONENTS)
  install(FILES ${PROJECT_SOURCE_DIR}/include/ossa/serialize/gltf_export.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ossa/serialize COMPONENT ossa_development)
endif()

foreach(component IN LISTS OSSA_COMPONENTS)
  install(TARGETS ossa_${component} EXPORT ossa-${component}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ossa_development
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ossa_runtime
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ossa_runtime
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ossa-${component}-targets NAMESPACE ossa:: DESTINATION ${OSSA_CMAKE_DIR}
          COMPONENT ossa_development)
endforeach()
install(TARGETS ossa_all EXPORT ossa-all-targets)
install(EXPORT ossa-all-targets NAMESPACE ossa:: DESTINATION ${OSSA_CMAKE_DIR} COMPONENT ossa_development)
if(TARGET ossa_cli)
  install(TARGETS ossa_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ossa_tools)
  # The bundled sample (CC0), which `ossa demo` finds at ../share/ossa/sample from the installed program.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/sample/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ossa/sample
          COMPONENT ossa_tools)
endif()
if(TARGET ossa_import_worker)  # the import guard's worker on Windows, found beside the program
  install(TARGETS ossa_import_worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ossa_runtime)
endif()
if(TARGET ossa_hlslc)  # the Direct3D 11 renderer compiles its shaders through it, found beside the program
  install(TARGETS ossa_hlslc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ossa_runtime)
endif()

# Windows: assimp and minizip, cross-built into the build tree (scripts/windows-deps.sh), go into the same prefix
# (static libraries, headers, assimp's CMake package), so that a MinGW consumer needs nothing else.
set(OSSA_BUNDLED_ASSIMP OFF)
if(WIN32 AND "import" IN_LIST OSSA_COMPONENTS AND OSSA_WINDOWS_DEPS AND EXISTS ${OSSA_WINDOWS_DEPS}/lib/libassimp.a)
  set(OSSA_BUNDLED_ASSIMP ON)
  install(FILES ${OSSA_WINDOWS_DEPS}/lib/libassimp.a ${OSSA_WINDOWS_DEPS}/lib/libminizip.a
          DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ossa_development)
  install(DIRECTORY ${OSSA_WINDOWS_DEPS}/lib/cmake/ DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake
          COMPONENT ossa_development)
  install(DIRECTORY ${OSSA_WINDOWS_DEPS}/include/assimp ${OSSA_WINDOWS_DEPS}/include/minizip
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT ossa_development)
endif()
# xxhash in inline mode (the MinGW build, cmake/windows_dependencies.cmake) is compiled into ossa::runtime.
if(NOT OSSA_XXHASH_INLINE)
  set(OSSA_XXHASH_INLINE OFF)  # configure_package_config_file writes it as it is
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ossaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ossaConfig.cmake INSTALL_DESTINATION ${OSSA_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ossaConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ossaConfig.cmake ${PROJECT_BINARY_DIR}/ossaConfigVersion.cmake
        DESTINATION ${OSSA_CMAKE_DIR} COMPONENT ossa_development)

# pkg-config: ossa-runtime, ossa-import, ossa-render, and ossa (every component built). The libraries are
# static by default, so their dependencies are in Requires/Libs (pkg-config --libs works without --static);
# shared builds list them as private.
# Relocatable: the prefix is found from the .pc file's own folder, so `cmake --install --prefix` works.
file(RELATIVE_PATH OSSA_PC_UP "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" OSSA_PC_UP "${OSSA_PC_UP}")
string(REPLACE ";" " " OSSA_PC_COMPONENT_LIST "${OSSA_COMPONENTS}")
set(OSSA_PC_runtime_REQUIRES "libxxhash")
if(OSSA_XXHASH_INLINE)
  set(OSSA_PC_runtime_REQUIRES "")
endif()
set(OSSA_PC_runtime_LIBS "-pthread")
set(OSSA_PC_import_REQUIRES "assimp")
set(OSSA_PC_import_LIBS "")
if(WIN32)  # the Direct3D 11 backend
  set(OSSA_PC_render_REQUIRES "")
  set(OSSA_PC_render_LIBS "-ld3d11 -ldxgi -luuid")
  set(OSSA_PC_render_CFLAGS "-DOSSA_HAS_D3D11=1")
else()  # the OpenGL backend; stb is compiled into the library (src/render/image.cpp)
  set(OSSA_PC_render_REQUIRES "epoxy egl")
  set(OSSA_PC_render_LIBS "")
  if(OSSA_HAVE_MESHOPTIMIZER)  # no .pc file in Debian's package
    set(OSSA_PC_render_LIBS "-lmeshoptimizer")
  endif()
  set(OSSA_PC_render_CFLAGS "-DOSSA_HAS_GL=1")
endif()
set(OSSA_PC_ALL "")
foreach(component IN LISTS OSSA_COMPONENTS)
  set(OSSA_PC_NAME ossa-${component})
  set(OSSA_PC_LIB ossa_${component})
  set(OSSA_PC_DEPS_REQUIRES "${OSSA_PC_${component}_REQUIRES}")
  set(OSSA_PC_DEPS_LIBS "${OSSA_PC_${component}_LIBS}")
  if(component STREQUAL runtime)
    set(own_requires "")
    set(OSSA_PC_CFLAGS "")  # C++20 or later: the headers check (ossa/core/language.h), the user picks the flag
  else()
    set(own_requires "ossa-runtime = ${PROJECT_VERSION}")
    if(component STREQUAL import)
      set(own_requires "ossa-offline = ${PROJECT_VERSION}")  # which requires ossa-runtime
    endif()
    string(TOUPPER ${component} upper)
    set(OSSA_PC_CFLAGS "-DOSSA_HAS_${upper}=1 ${OSSA_PC_${component}_CFLAGS}")
  endif()
  set(deps "${OSSA_PC_${component}_REQUIRES}")
  set(libs "${OSSA_PC_${component}_LIBS}")
  if(BUILD_SHARED_LIBS)
    set(OSSA_PC_LINES "Requires: ${own_requires}\nRequires.private: ${deps}\nLibs: -L\${libdir} -lossa_${component}\nLibs.private: ${libs}")
  else()
    string(JOIN ", " all_requires ${own_requires} ${deps})
    set(OSSA_PC_LINES "Requires: ${all_requires}\nLibs: -L\${libdir} -lossa_${component} ${libs}")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ossa-component.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/ossa-${component}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/ossa-${component}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ossa_development)
  string(APPEND OSSA_PC_ALL " ossa-${component} = ${PROJECT_VERSION}")
endforeach()
string(REPLACE " = ${PROJECT_VERSION} " " = ${PROJECT_VERSION}, " OSSA_PC_ALL "${OSSA_PC_ALL}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ossa.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/ossa.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/ossa.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT ossa_development)
