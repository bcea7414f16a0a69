// Internal: HLSL compiled by D3DCompile in a child process (ossa_hlslc.exe), so that a compiler that aborts
// (Wine 8's does on some inputs) ends the child, not the program. Protocol, through a fresh temporary folder:
// the parent writes each source there and a jobs.txt of lines `SOURCE_FILE<TAB>NAME<TAB>ENTRY<TAB>TARGET<TAB>
// OUTPUT_FILE` (NAME: the path messages use); the child compiles job after job, appending `compiling NAME
// ENTRY` to log.txt before each and the compiler's messages after a failure, writes each OUTPUT_FILE (DXBC),
// and exits 0 when all compiled (src/render/d3d11/hlsl_compiler_main.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/render/d3d11_renderer.h"

namespace ossa::detail {

struct HlslJob {
  const HlslSource* source;
  const char* entry;   // vs_main, ps_main
  const char* target;  // vs_5_0, ps_5_0
};

// The bytecode of each job, in order. Errors name the file, the line and the compiler's message, or say that
// the compiler crashed and on which file and entry.
Result<std::vector<std::vector<uint8_t>>> compile_hlsl(const std::string& compiler,
                                                       std::span<const HlslJob> jobs);

// $OSSA_HLSL_COMPILER, else ossa_hlslc.exe beside the running program: the compiler used at run time.
std::string run_time_shader_compiler();

// The shaders compiled at build time, by the same compiler program (cmake/compile_hlsl.cmake writes them into
// the library), so that a program needs no compiler beside it. Empty in a build configured with
// OSSA_PRECOMPILE_HLSL=OFF.
struct HlslBytecode {
  const char* path;   // src/render/d3d11/shaders/NAME.hlsl
  const char* entry;  // vs_main, ps_main
  std::span<const uint8_t> code;
};
std::span<const HlslBytecode> built_in_hlsl_bytecode();

}  // namespace ossa::detail
