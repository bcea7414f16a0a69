// ossa_test_worker.exe: the Windows worker program of the child-process tests (child_worker_tasks.h).
#include "../src/import/worker_heap.h"
#include "child_worker_tasks.h"

int main() {
  return ossa::detail::serve_worker_requests(ossa::detail::kTestTasks, ossa::detail::limit_worker_heap);
}
