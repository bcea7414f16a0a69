// Internal: the import guard's task (ImportOptions::isolate), for the Windows worker program
// (import_worker_main.cpp), which serves it by name.
#pragma once

#include "child_process.h"

namespace ossa::detail {

const WorkerTask& import_worker_task();

}  // namespace ossa::detail
