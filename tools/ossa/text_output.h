// Everything the CLI prints goes through print() (stdout) and print_error() (stderr), printf-style. Names
// come from files, and a hostile file could name a joint "\x1b]0;...\a" to retitle, clear or spoof the user's
// terminal: bytes below 0x20 other than newline, tab and carriage return, DEL, the C1 controls (U+0080-009F)
// and the bidirectional controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069: a right-to-left override would
// reorder what follows on the line) print as '?'. Other UTF-8 text passes through unchanged; JSON output
// already escapes control bytes.
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
