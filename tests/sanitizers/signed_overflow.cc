// Planted defect: signed int overflow (undefined behaviour), INT_MAX + 1.
// Without sanitizers it wraps and the program exits 0.
#include <climits>
#include <cstdio>

int main(int argc, char**) {
  volatile int big = INT_MAX;
  int sum = big + argc;  // argc == 1
  std::printf("%d\n", sum);
  return 0;
}
