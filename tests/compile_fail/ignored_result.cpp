// Compiled by ctest (tests/CMakeLists.txt) with -Werror=unused-result: ignoring a Result must not compile.
// With -DOSSA_USE_THE_RESULT the same code tests it, and must compile (the control).
#include "ossa/core/result.h"

ossa::Result<int> load_something();

int caller() {
#if defined(OSSA_USE_THE_RESULT)
  auto r = load_something();
  return r ? *r : -1;
#else
  load_something();  // the mistake: the error is dropped
  return 0;
#endif
}
