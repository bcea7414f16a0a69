// Internal, for Windows worker programs only (never a library): the program's heap counted by its own global
// operator new and delete, and a budget past which operator new throws std::bad_alloc. assimp and Ossa
// allocate through operator new, and the statically linked C++ library routes every allocation of the
// program there; the job object the caller puts the worker in limits the whole process as well, with room to
// spare (child_process_win32.cpp). Link worker_heap.cpp into the worker program.
#pragma once

#include <cstddef>

namespace ossa::detail {

// Sets the budget in bytes of heap the program may hold (0: no limit) and returns what it holds now: the
// `limit_heap` of serve_worker_requests().
size_t limit_worker_heap(size_t budget_bytes);

}  // namespace ossa::detail
