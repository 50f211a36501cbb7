/* The guarded epilogue's flag counts of a convolution or depthwise operator on one input
   (guard-rate.c); used by bench_mobilenet_v2. */
#ifndef Q8NN_BENCH_GUARD_RATE_H
#define Q8NN_BENCH_GUARD_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "q8nn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct q8nn_bench_guard_count {
  size_t lanes, lanes_flagged;     /* outputs */
  size_t vectors, vectors_flagged; /* 16 channels of one pixel */
  size_t groups, groups_flagged;   /* 64 channels of one pixel */
};

/* Counts the flags of op (created and set up) on `input` (height x width x channels, the layout
   its setup was given): returns 0 and zero counts where op is not a convolution or depthwise
   operator with the guard on (fp32 numerics, or q8nn_guard_params left it off). */
int q8nn_bench_guard_rate(q8nn_operator_t op, size_t height, size_t width, const int8_t* input,
                          struct q8nn_bench_guard_count* count);

#ifdef __cplusplus
}
#endif

#endif
