// ossa/core/printable.h — text from files made safe to show in a message.
//
// Names, lines and paths in Ossa's messages come from files, and a hostile file could name a joint
// "\x1b]0;...\a" to retitle, clear or spoof the terminal that prints the message, put a NUL in it to cut
// the message short where C strings are used, or a right-to-left override to reorder the rest of the line.
// printable() writes such bytes as escapes that show what the file held: control bytes (newline, tab and
// carriage return included), DEL and bytes that are not UTF-8 as `\xNN`; the C1 controls (U+0080-009F) and
// the bidirectional controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069) as `\uNNNN`. Other UTF-8 text,
// accented and non-Latin names included, is unchanged.
//
// Every Result's message (Result::failure) and every import warning goes through it, so a program may print
// them as they are.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ossa {

std::string printable(std::string_view text);

// The length in bytes (1-4) of the character at text[i], and whether printable() shows it as it is.
size_t next_character(std::string_view text, size_t i, bool& shown);

}  // namespace ossa
