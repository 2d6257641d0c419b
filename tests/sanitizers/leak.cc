// Planted defect: a heap block whose last pointer is dropped before exit.
#include <cstdio>
#include <cstdlib>

static void* volatile sink;

int main() {
  sink = std::malloc(64);
  std::printf("%p\n", sink);
  sink = nullptr;
  return 0;
}
