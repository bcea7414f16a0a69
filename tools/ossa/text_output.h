// Everything the CLI prints goes through print() (stdout) and print_error() (stderr), printf-style. Names
// come from files, and a hostile file could name a joint "\x1b]0;...\a" to retitle, clear or spoof the user's
// terminal: bytes below 0x20 other than newline, tab and carriage return, and DEL, print as '?'. UTF-8 text
// passes through unchanged; JSON output already escapes these bytes.
#pragma once

namespace ossa::cli {

[[gnu::format(printf, 1, 2)]] int print(const char* format, ...);
[[gnu::format(printf, 1, 2)]] int print_error(const char* format, ...);

}  // namespace ossa::cli
