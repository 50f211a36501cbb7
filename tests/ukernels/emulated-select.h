/* Line selection of the ukernel tests, shared by test-gemm.c, test-vadd.c and test-dwconv.c.
   Native build: every line of the lists, each skipped where its ISA is missing on this CPU.
   Emulated build (the test_ukernel_*_avx512_emulated executables, tests/ukernels/CMakeLists.txt):
   the executable compiled the kernels of ISA Q8NN_TEST_EMULATED_ISA against SIMDe under renamed
   symbols, and the lists (the library's own kernel-lists.c, compiled into the test with the
   renames) point at them. Only those lines run, on any CPU. Include after ukernel-tester.h, once
   per test executable (it compiles the lists in). */
#ifndef Q8NN_TESTS_UKERNELS_EMULATED_SELECT_H
#define Q8NN_TESTS_UKERNELS_EMULATED_SELECT_H

#include <stdint.h>
#include <string.h>

#ifdef Q8NN_TEST_EMULATED_ISA
#include "kernel-lists.c"
/* Q8NN_TEST_EMULATED_TILES (optional): the lines compiled here when the executable holds only
   some of the ISA's kernels, as space-separated substrings of their names, e.g.
   "_8x32c4__ _4x64c4__". Without it every line of the ISA runs. */
static int selected(uint32_t isa, const char* name) {
  if ((isa & Q8NN_TEST_EMULATED_ISA) == 0) return 0;
#ifdef Q8NN_TEST_EMULATED_TILES
  const char* tiles = Q8NN_TEST_EMULATED_TILES;
  while (*tiles != '\0') {
    const size_t len = strcspn(tiles, " ");
    char token[32] = {0};
    memcpy(token, tiles, len < sizeof(token) - 1 ? len : sizeof(token) - 1);
    if (len != 0 && strstr(name, token) != NULL) return 1;
    tiles += len + (tiles[len] == ' ');
  }
  return 0;
#else
  (void) name;
  return 1;
#endif
}
/* The ISA the emulated lines need is the host's no longer. */
#define SWEEP_ISA(isa) ((isa) & ~(uint32_t) (Q8NN_TEST_EMULATED_ISA))
#else
static int selected(uint32_t isa, const char* name) {
  (void) isa, (void) name;
  return 1;
}
#define SWEEP_ISA(isa) (isa)
#endif

#endif
