// Paths of this build, for the tests: defined in a small source file that CMake generates per test program
// (ossa_generated_paths in CMakeLists.txt), never as compile definitions, so the test sources compile the
// same in every clone and the compiler cache serves them. Each program defines only the ones it is given.
#pragma once

namespace ossa::build {
const char* source_dir();        // the source tree (every test program)
const char* cli_path();          // the `ossa` CLI (ossa_cli_tests, ossa_viewer_window_tests)
const char* gl_reference_dir();  // the OpenGL frames the Direct3D 11 tests compare with
const char* demo_exe();          // ossa-d3d11-demo.exe (ossa_d3d11_tests)
}  // namespace ossa::build
