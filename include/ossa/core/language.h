// Ossa's headers need C++20 or later: a clear error instead of pages of template errors. The build's flags
// (CMake's cxx_std_20 usage requirement) state the minimum without lowering a newer standard; pkg-config
// users choose theirs (-std=c++20 or newer). MSVC reports the standard in _MSVC_LANG unless /Zc:__cplusplus
// is set.
#pragma once

#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L
#error "Ossa needs C++20 or later: compile with -std=c++20 (or newer), /std:c++20 with MSVC"
#endif
