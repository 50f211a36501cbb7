/*
 * Channel shuffle, any byte type: output channel k * groups + g = input channel g * group_channels
 * + k, pixel by pixel. Two groups (ShuffleNetV2's) run the active line's byte interleave
 * (kernel-decls.h, q8nn_x8_zip2_ukernel__*); other counts take the general transpose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel-decls.h"
#include "operator.h"

static const struct q8nn_operator_class channel_shuffle_class;

struct shuffle_state {
  size_t groups, group_channels;
  void (*zip2)(size_t, size_t, const uint8_t*, size_t, uint8_t*, size_t); /* two groups: the active line's */
  size_t batch, input_stride, output_stride;
  const uint8_t* input;
  uint8_t* output;
};

enum q8nn_status q8nn_create_channel_shuffle_nc_x8(size_t groups, size_t group_channels, uint32_t flags,
                                                   q8nn_operator_t* channel_shuffle_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (channel_shuffle_out == NULL || groups < 2 || group_channels == 0 || flags != 0) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "NULL out-pointer, groups < 2, no channels or unknown flags");
  }
  size_t channels;
  if (!q8nn_mul_sz(groups, group_channels, &channels)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "groups x group_channels overflows");
  }
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_channel_shuffle);
  struct shuffle_state* st = calloc(1, sizeof(struct shuffle_state));
  if (op == NULL || st == NULL) {
    free(op);
    free(st);
    return Q8NN_ERROR(q8nn_status_out_of_memory, "operator allocation failed");
  }
  op->cls = &channel_shuffle_class;
  op->class_state = st;
  st->groups = groups;
  st->group_channels = group_channels;
  const char* zip2 = "portable";
  st->zip2 = q8nn_x8_zip2_ukernel__portable;
#if Q8NN_ARCH_X86
  const uint32_t isa = q8nn_get_active_isa();
  if (isa & Q8NN_ISA_X86_AVX512VBMI) {
    st->zip2 = q8nn_x8_zip2_ukernel__avx512vbmi;
    zip2 = "avx512vbmi";
  } else if (isa & Q8NN_ISA_X86_AVX2) {
    st->zip2 = q8nn_x8_zip2_ukernel__avx2;
    zip2 = "avx2";
  }
#endif
  if (groups == 2) {
    snprintf(op->kernel_name, sizeof(op->kernel_name), "channel shuffle (2 groups, q8nn_x8_zip2_ukernel__%s)", zip2);
  } else {
    snprintf(op->kernel_name, sizeof(op->kernel_name), "channel shuffle (%zu groups)", groups);
  }
  *channel_shuffle_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_channel_shuffle_nc_x8(q8nn_operator_t op, size_t batch_size, const void* input,
                                                  size_t input_stride, void* output, size_t output_stride) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_channel_shuffle) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "not a channel shuffle operator");
  }
  op->is_setup = 0;
  struct shuffle_state* st = op->class_state;
  const size_t channels = st->groups * st->group_channels;
  if (input == NULL || output == NULL || batch_size == 0 || input_stride < channels || output_stride < channels) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "NULL buffer, zero batch or strides below %zu channels",
                      channels);
  }
  if (!q8nn_extent_fits(input, batch_size, channels, input_stride) ||
      !q8nn_extent_fits(output, batch_size, channels, output_stride)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "the pixels' extent overflows the address space");
  }
  const uintptr_t ib = (uintptr_t) input, ob = (uintptr_t) output;
  const size_t in_bytes = (batch_size - 1) * input_stride + channels;
  const size_t out_bytes = (batch_size - 1) * output_stride + channels;
  if (ib < ob + out_bytes && ob < ib + in_bytes) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "the output overlaps the input");
  }
  st->batch = batch_size;
  st->input_stride = input_stride;
  st->output_stride = output_stride;
  st->input = input;
  st->output = output;
  op->plan_threads = 0;
  op->setup_serial = q8nn_next_setup_serial();
  op->is_setup = 1;
  return q8nn_status_success;
}

static void shuffle_task(void* context, size_t unused, size_t p0, size_t count) {
  (void) unused;
  const struct q8nn_operator* op = context;
  const struct shuffle_state* st = op->class_state;
  const size_t g = st->groups, m = st->group_channels;
  if (g == 2) {
    st->zip2(m, count, st->input + p0 * st->input_stride, st->input_stride, st->output + p0 * st->output_stride,
             st->output_stride);
    return;
  }
  for (size_t p = p0; p < p0 + count; p++) {
    const uint8_t* x = st->input + p * st->input_stride;
    uint8_t* y = st->output + p * st->output_stride;
    for (size_t k = 0; k < m; k++) {
      for (size_t j = 0; j < g; j++) y[k * g + j] = x[j * m + k];
    }
  }
}

static size_t shuffle_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const struct shuffle_state* st = op->class_state;
  const size_t bytes = st->batch * st->groups * st->group_channels;
  const int caller_only = !in_region && bytes < Q8NN_MOVE_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) shuffle_task, op, 1, 1, 1, st->batch, 1,
                            q8nn_max_sz(1, st->batch / (threads * 4)));
  works[0].caller_only = caller_only;
  return 1;
}

static void shuffle_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const struct shuffle_state* st = op->class_state;
  const size_t stride = output ? st->output_stride : st->input_stride;
  *begin = output ? (uintptr_t) st->output : (uintptr_t) st->input;
  *end = *begin + (st->batch - 1) * stride + st->groups * st->group_channels;
}

static void shuffle_release(struct q8nn_operator* op) { free(op->class_state); }

static const struct q8nn_operator_class channel_shuffle_class = {shuffle_works, shuffle_span, shuffle_release};
