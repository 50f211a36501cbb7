/* Every table-lookup kernel of the list (lut-list.h) against the table itself: random tables and
   inputs, every length from 1 to 3 element tiles plus a few long ones, at every offset modulo 64
   of input and output, in place too; bytes outside the output untouched. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ukernel.h"

#include "ukernels/sweep.h"
#include "ukernels/ukernel-tester.h"
#include "ukernels/emulated-select.h"

static void test_lut_entry(void** state) {
  const struct q8nn_lut_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  uint8_t table[256], packed[Q8NN_LUT_PACKED_BYTES] __attribute__((aligned(64)));
  uint8_t in[4200], out[4200];
  int failures = 0;
  for (int t = 0; t < 4 && failures == 0; t++) {
    for (size_t i = 0; i < 256; i++) table[i] = (uint8_t) test_rand();
    if (t == 1) {
      for (size_t i = 0; i < 256; i++) table[i] = (uint8_t) i; /* identity */
    }
    if (e->pack != NULL) {
      e->pack(table, packed);
    } else {
      memcpy(packed, table, 256);
    }
    const size_t max_n = 3 * e->element_tile + 70;
    for (size_t n = 1; n <= 4096 && failures == 0; n = n < max_n ? n + 1 : n * 3) {
      const size_t xo = (n * 7 + (size_t) t) % 64, yo = (n * 13) % 64;
      for (size_t i = 0; i < sizeof(in); i++) in[i] = (uint8_t) test_rand();
      memset(out, 0xA5, sizeof(out));
      const int in_place = n % 5 == 0;
      uint8_t* y = in_place ? in + xo : out + yo;
      uint8_t expected[4200];
      for (size_t i = 0; i < n; i++) expected[i] = table[in[xo + i]];
      e->fn(n, in + xo, y, packed);
      for (size_t i = 0; i < n; i++) {
        if (y[i] != expected[i]) {
          fprintf(stderr, "FAIL %s: n %zu byte %zu: %u, want %u\n", e->name, n, i, y[i], expected[i]);
          failures++;
          break;
        }
      }
      for (size_t i = 0; i < sizeof(out) && !in_place; i++) {
        if ((i < yo || i >= yo + n) && out[i] != 0xA5) {
          fprintf(stderr, "FAIL %s: n %zu wrote byte %zu outside the output\n", e->name, n, i);
          failures++;
          break;
        }
      }
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

int main(void) {
  test_seed();
  struct CMUnitTest* tests = calloc(q8nn_lut_list_size, sizeof(struct CMUnitTest));
  size_t t = 0;
  for (size_t i = 0; i < q8nn_lut_list_size; i++) {
    if (!selected(q8nn_lut_list[i].isa, q8nn_lut_list[i].name)) continue;
    tests[t].name = q8nn_lut_list[i].name;
    tests[t].test_func = test_lut_entry;
    tests[t++].initial_state = (void*) &q8nn_lut_list[i];
  }
  const int result = _cmocka_run_group_tests("ukernel_lut", tests, t, sweep_setup, NULL);
  free(tests);
  return result;
}
