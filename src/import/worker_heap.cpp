// The worker program's counted heap (see worker_heap.h).
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "worker_heap.h"

namespace {
std::atomic<size_t> heap_bytes{0};
std::atomic<size_t> heap_budget{SIZE_MAX};  // SIZE_MAX: no limit

void* allocate(size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) return nullptr;
  const size_t held = heap_bytes.fetch_add(_msize(p)) + _msize(p);
  if (held > heap_budget.load()) {
    heap_bytes.fetch_sub(_msize(p));
    std::free(p);
    return nullptr;
  }
  return p;
}
void release(void* p) {
  if (!p) return;
  heap_bytes.fetch_sub(_msize(p));
  std::free(p);
}
}  // namespace

size_t ossa::detail::limit_worker_heap(size_t budget_bytes) {
  heap_budget = budget_bytes ? budget_bytes : SIZE_MAX;
  return heap_bytes.load();
}

void* operator new(size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return allocate(size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return allocate(size);
}
void operator delete(void* p) noexcept {
  release(p);
}
void operator delete[](void* p) noexcept {
  release(p);
}
void operator delete(void* p, size_t) noexcept {
  release(p);
}
void operator delete[](void* p, size_t) noexcept {
  release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  release(p);
}
