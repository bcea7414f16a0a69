// Everything the CLI prints goes through print() (stdout) and print_error() (stderr), printf-style. Names
// come from files, and a hostile file could name a joint "\x1b]0;...\a" to retitle, clear or spoof the user's
// terminal: what ossa::printable() escapes (ossa/core/printable.h: control bytes, DEL, bytes that are not
// UTF-8, the C1 and bidirectional controls) prints as '?', except the newlines, tabs and carriage returns of
// the CLI's own layout. Other UTF-8 text passes through unchanged; JSON output already escapes control bytes.
#pragma once

// MinGW: the C99 printf of __USE_MINGW_ANSI_STDIO (the toolchain file sets it), checked as such.
#if defined(__MINGW32__)
#define OSSA_PRINTF_FORMAT gnu_printf
#else
#define OSSA_PRINTF_FORMAT printf
#endif

namespace ossa::cli {

[[gnu::format(OSSA_PRINTF_FORMAT, 1, 2)]] int print(const char* format, ...);
[[gnu::format(OSSA_PRINTF_FORMAT, 1, 2)]] int print_error(const char* format, ...);

}  // namespace ossa::cli
