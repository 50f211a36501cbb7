/* Timing and ISA choice of the bound loops (bound.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "q8nn.h"
#include "bound/bound.h"

volatile int32_t q8nn_bound_sink;
int8_t q8nn_bound_out[128];

#if defined(__x86_64__) || defined(__i386__)
#include "bound/bound-x86.h"

uint64_t q8nn_bound_dot(uint32_t isa_bit, uint64_t iters) {
  switch (isa_bit) {
    case Q8NN_ISA_X86_AVX512VNNI: return q8nn_bound_dot_avx512vnni(iters);
    case Q8NN_ISA_X86_AVXVNNI: return q8nn_bound_dot_avxvnni(iters);
    case Q8NN_ISA_X86_AVX2: return q8nn_bound_dot_avx2(iters);
    case Q8NN_ISA_X86_AMX: return (q8nn_get_available_isa() & Q8NN_ISA_X86_AMX) ? q8nn_bound_dot_amx(iters) : 0;
    default: return 0;
  }
}

uint64_t q8nn_bound_epilogue(uint32_t isa_bit, int rounding, uint64_t iters) {
  switch (isa_bit) {
    case Q8NN_ISA_X86_AVX512VNNI: return q8nn_bound_epilogue_avx512vnni(rounding, iters);
    case Q8NN_ISA_X86_AVXVNNI:
    case Q8NN_ISA_X86_AVX2: return q8nn_bound_epilogue_avx2(rounding, iters);
    case Q8NN_ISA_X86_AMX:
      return (q8nn_get_available_isa() & Q8NN_ISA_X86_AMX) ? q8nn_bound_epilogue_amx(rounding, iters) : 0;
    default: return 0;
  }
}
#else
uint64_t q8nn_bound_dot(uint32_t isa_bit, uint64_t iters) { (void) isa_bit, (void) iters; return 0; }
uint64_t q8nn_bound_epilogue(uint32_t isa_bit, int rounding, uint64_t iters) {
  (void) isa_bit, (void) rounding, (void) iters;
  return 0;
}
#endif

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

/* Best (lowest) ns per unit over 7 runs of about 2 ms: on a shared host the fastest run is the
   one least disturbed, and throughput cannot exceed what the core did in that run. */
#define BEST_OF(expr, out)                        \
  do {                                            \
    double best = 0.0;                            \
    for (int run = 0; run < 7; run++) {           \
      const double t0 = now_ns();                 \
      const double units = (double) (expr);       \
      const double per = (now_ns() - t0) / units; \
      if (run == 0 || per < best) best = per;     \
    }                                             \
    (out) = best;                                 \
  } while (0)

int q8nn_bound_measure(uint32_t isa, struct q8nn_bound_rates* rates) {
  memset(rates, 0, sizeof(*rates));
  uint32_t bit = 0;
  if (isa & Q8NN_ISA_X86_AVX512VNNI) {
    bit = Q8NN_ISA_X86_AVX512VNNI, rates->isa = "avx512vnni";
  } else if ((isa & Q8NN_ISA_X86_AVXVNNI) && (isa & Q8NN_ISA_X86_AVX2)) {
    bit = Q8NN_ISA_X86_AVXVNNI, rates->isa = "avxvnni";
  } else if (isa & Q8NN_ISA_X86_AVX2) {
    bit = Q8NN_ISA_X86_AVX2, rates->isa = "avx2";
  }
  if (bit == 0 || q8nn_bound_dot(bit, 1) == 0) {
    rates->isa = NULL;
    return 0;
  }
  double ns_per_mac;
  BEST_OF(q8nn_bound_dot(bit, 20000), ns_per_mac);
  rates->dot_gmacs = 1.0 / ns_per_mac;
  if ((isa & Q8NN_ISA_X86_AMX) && q8nn_bound_dot(Q8NN_ISA_X86_AMX, 1) != 0) {
    BEST_OF(q8nn_bound_dot(Q8NN_ISA_X86_AMX, 2000), ns_per_mac);
    rates->amx_dot_gmacs = 1.0 / ns_per_mac;
    for (int r = 0; r < 3; r++) {
      double ns_per_output;
      BEST_OF(q8nn_bound_epilogue(Q8NN_ISA_X86_AMX, r, 20000), ns_per_output);
      rates->amx_epilogue_ns16[r] = 16.0 * ns_per_output;
    }
  }
  for (int r = 0; r < 3; r++) {
    double ns_per_output;
    BEST_OF(q8nn_bound_epilogue(bit, r, 20000), ns_per_output);
    rates->epilogue_ns16[r] = 16.0 * ns_per_output;
  }
  enum { kCopyBytes = 256 * 1024 };
  char* src = malloc(kCopyBytes);
  char* dst = malloc(kCopyBytes);
  if (src != NULL && dst != NULL) {
    memset(src, 1, kCopyBytes);
    memset(dst, 0, kCopyBytes);
    double ns_per_byte = 0.0;
    for (int run = 0; run < 7; run++) {
      const double t0 = now_ns();
      for (int k = 0; k < 8; k++) {
        memcpy(dst, src, kCopyBytes);
        __asm__ volatile("" ::"r"(dst) : "memory");
      }
      const double per = (now_ns() - t0) / (8.0 * 2 * kCopyBytes);
      if (run == 0 || per < ns_per_byte) ns_per_byte = per;
    }
    rates->copy_gbs = 1.0 / ns_per_byte;
  }
  free(src);
  free(dst);
  return 1;
}
