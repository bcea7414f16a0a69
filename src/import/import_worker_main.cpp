// ossa_import_worker.exe: the Windows import guard's worker (ImportOptions::isolate; src/import/
// child_process.h). ossa::import starts it, from beside the calling program or from OSSA_IMPORT_WORKER, and
// sends it one import after another; a file that crashes, hangs or floods assimp ends this process, not
// the caller. Its heap is counted against each import's budget (worker_heap.h).
#include "import_worker.h"
#include "worker_heap.h"

int main() {
  const ossa::detail::WorkerTask& task = ossa::detail::import_worker_task();
  return ossa::detail::serve_worker_requests({&task, 1}, ossa::detail::limit_worker_heap);
}
