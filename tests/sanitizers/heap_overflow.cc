// Planted defect: writes one int past the end of a heap array of four.
// Without sanitizers the write lands in malloc's slack and the program exits 0.
#include <cstdio>

int main(int argc, char**) {
  volatile int n = 3 + argc;  // 4, not known to the compiler
  int* p = new int[n];
  for (int i = 0; i <= n; ++i) p[i] = i;  // i == n is out of bounds
  std::printf("%d\n", p[0]);
  delete[] p;
  return 0;
}
