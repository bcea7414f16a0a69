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

// In a test body: the Linux release build's references in build::gl_reference_dir() (written by
// Render.WritesGlReferencesForDirect3D11), or a skip saying so; under OSSA_REQUIRE_D3D11 (CI) their absence
// is a failure. Needs <cstdlib>, <filesystem> and gtest.
#define REQUIRE_GL_REFERENCES(dir)                                                 \
  if (!std::filesystem::exists(std::string(dir) + "/manifest.txt")) {              \
    if (std::getenv("OSSA_REQUIRE_D3D11"))                                         \
      FAIL() << dir << "/manifest.txt missing: run the Linux release tests first"; \
    GTEST_SKIP() << dir << "/manifest.txt not found: the Linux release build's "   \
                 << "Render.WritesGlReferencesForDirect3D11 writes it";            \
  }
