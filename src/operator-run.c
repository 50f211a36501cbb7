/*
 * Running and deleting operators. Work is split into independent tiles handed to the caller's
 * pthreadpool; each output byte is computed by exactly one tile with the same arithmetic, so every
 * thread count gives identical bytes. Nothing here allocates.
 */
#include <stdlib.h>
#include <string.h>

#include "accel/backend.h"
#include "operator.h"

static size_t threads_of(pthreadpool_t threadpool) {
  return threadpool != NULL ? pthreadpool_get_threads_count(threadpool) : 1;
}

/* Output channels per task: whole rows of channels unless that leaves too few tasks. */
static size_t choose_nc_tile(size_t nc, size_t nr, size_t other_tasks, size_t threads) {
  size_t tile = q8nn_round_up(nc, nr);
  if (threads > 1) {
    const size_t target = threads * 4;
    while (tile > nr && other_tasks * q8nn_divide_round_up(nc, tile) < target) {
      tile = q8nn_round_up(q8nn_divide_round_up(tile, 2), nr);
    }
  }
  return tile;
}

static void gemm_task(void* context, size_t group, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t block = op->packed_group_stride / q8nn_divide_round_up(g->group_output_channels, op->nr);
  op->gemm(mt, nt, g->group_input_channels,
           op->input + m0 * op->input_pixel_stride + group * g->group_input_channels, op->input_pixel_stride,
           (const int8_t*) op->packed_weights + group * op->packed_group_stride + (n0 / op->nr) * block,
           op->output + m0 * op->output_pixel_stride + group * g->group_output_channels + n0,
           op->output_pixel_stride, op->nr, &op->conv_params);
}

static void igemm_task(void* context, size_t n, size_t group, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  const size_t m_image = op->output_height * op->output_width;
  const size_t block = op->packed_group_stride / q8nn_divide_round_up(g->group_output_channels, op->nr);
  const size_t a_offset =
      n * op->input_height * op->input_width * op->input_pixel_stride + group * g->group_input_channels;
  op->igemm(mt, nt, g->group_input_channels, ks, op->indirection + (m0 / op->mr) * ks * op->mr,
            (const int8_t*) op->packed_weights + group * op->packed_group_stride + (n0 / op->nr) * block,
            op->output + (n * m_image + m0) * op->output_pixel_stride + group * g->group_output_channels + n0,
            op->output_pixel_stride, op->nr, a_offset, op->zero_buffer, &op->conv_params);
}

/* Copies n bytes, 1 <= n <= 16, with at most two fixed-size copies (no library call). */
static inline void copy_run(int8_t* dst, const int8_t* src, size_t n) {
  if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n >= 2) {
    memcpy(dst, src, 2);
    memcpy(dst + n - 2, src + n - 2, 2);
  } else {
    *dst = *src;
  }
}

/* im2col path: the mt rows of K = taps * channels bytes of this tile (taps in kernel order, each
   tap's channels contiguous: the OHWI order of the packed 1x1 weights), read through the
   indirection buffer, then one gemm call. Taps whose bytes follow each other in the input (the
   kx taps of one input row) are copied as one run. */
static void im2col_task(void* context, size_t n, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t ks = (size_t) g->kernel_height * g->kernel_width, kc = g->group_input_channels;
  const size_t k = ks * kc;
  const size_t m_image = op->output_height * op->output_width;
  const size_t block = op->packed_group_stride / q8nn_divide_round_up(g->group_output_channels, op->nr);
  const size_t a_offset = n * op->input_height * op->input_width * op->input_pixel_stride;
  const int8_t* const* ind = op->indirection + (m0 / op->mr) * ks * op->mr;
  int8_t rows[Q8NN_IM2COL_MAX_MR * Q8NN_IM2COL_MAX_K];
  for (size_t i = 0; i < mt; i++) {
    int8_t* row = rows + i * k;
    size_t t = 0;
    while (t < ks) {
      const int8_t* p = ind[t * op->mr + i];
      if (p != op->zero_buffer) p += a_offset;
      size_t run = kc;
      /* extend over following taps that continue in memory, up to 16 bytes */
      while (t + 1 < ks && run + kc <= 16) {
        const int8_t* q = ind[(t + 1) * op->mr + i];
        if (q == op->zero_buffer || q + a_offset != p + run) break;
        run += kc;
        t++;
      }
      copy_run(row, p, run); /* run <= 16: kc < Q8NN_IM2COL_MAX_CHANNELS */
      row += run;
      t++;
    }
  }
  op->gemm(mt, nt, k, rows, k, (const int8_t*) op->packed_weights + (n0 / op->nr) * block,
           op->output + (n * m_image + m0) * op->output_pixel_stride + n0, op->output_pixel_stride, op->nr,
           &op->conv_params);
}

/* Depth multiplier > 1: one input row with every channel repeated dm times. */
static void expand_task(void* context, size_t row) {
  const struct q8nn_operator* op = context;
  const size_t channels = op->geometry.groups, dm = op->geometry.group_output_channels;
  const int8_t* in = op->input + row * op->input_width * op->input_pixel_stride;
  int8_t* out = op->expanded_input + row * op->input_width * channels * dm;
  for (size_t x = 0; x < op->input_width; x++) {
    for (size_t c = 0; c < channels; c++) {
      for (size_t m = 0; m < dm; m++) *out++ = in[c];
    }
    in += op->input_pixel_stride;
  }
}

static void dwconv_task(void* context, size_t n, size_t oy) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  const size_t channels = g->groups * g->group_output_channels;
  const size_t in_stride = g->group_output_channels > 1 ? channels : op->input_pixel_stride;
  op->dwconv(channels, op->output_width, ks, op->indirection + oy * op->output_width * ks, ks,
             op->packed_weights,
             op->output + ((n * op->output_height + oy) * op->output_width) * op->output_pixel_stride,
             op->output_pixel_stride - channels,
             n * op->input_height * op->input_width * in_stride, op->zero_buffer, &op->conv_params);
}

enum q8nn_status q8nn_run_conv_cpu(struct q8nn_operator* op, pthreadpool_t threadpool) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t threads = threads_of(threadpool);
  const size_t m_image = op->output_height * op->output_width;
  switch (op->path) {
    case q8nn_conv_path_gemm: {
      const size_t m = op->batch_size * m_image;
      const size_t nc_tile = choose_nc_tile(g->group_output_channels, op->nr,
                                            g->groups * q8nn_divide_round_up(m, op->mr), threads);
      pthreadpool_parallelize_3d_tile_2d(threadpool, gemm_task, op, g->groups, m, g->group_output_channels,
                                         op->mr, nc_tile, 0);
      break;
    }
    case q8nn_conv_path_igemm: {
      const size_t nc_tile =
          choose_nc_tile(g->group_output_channels, op->nr,
                         op->batch_size * g->groups * q8nn_divide_round_up(m_image, op->mr), threads);
      pthreadpool_parallelize_4d_tile_2d(threadpool, igemm_task, op, op->batch_size, g->groups, m_image,
                                         g->group_output_channels, op->mr, nc_tile, 0);
      break;
    }
    case q8nn_conv_path_im2col: {
      const size_t nc_tile = choose_nc_tile(g->group_output_channels, op->nr,
                                            op->batch_size * q8nn_divide_round_up(m_image, op->mr), threads);
      pthreadpool_parallelize_3d_tile_2d(threadpool, im2col_task, op, op->batch_size, m_image,
                                         g->group_output_channels, op->mr, nc_tile, 0);
      break;
    }
    case q8nn_conv_path_dwconv:
      if (g->group_output_channels > 1) {
        pthreadpool_parallelize_1d(threadpool, expand_task, op, op->batch_size * op->input_height, 0);
      }
      pthreadpool_parallelize_2d(threadpool, dwconv_task, op, op->batch_size, op->output_height, 0);
      break;
  }
  return q8nn_status_success;
}

static void add_task(void* context, size_t row, size_t i0, size_t count) {
  const struct q8nn_operator* op = context;
  size_t a_off = 0, b_off = 0, y_off = 0, r = row;
  for (size_t d = Q8NN_MAX_DIMS - 1; d-- > 0;) {
    const size_t idx = r % op->add_outer_shape[d];
    r /= op->add_outer_shape[d];
    a_off += idx * op->add_a_stride[d];
    b_off += idx * op->add_b_stride[d];
    y_off += idx * op->add_y_stride[d];
  }
  int8_t* y = op->add_y + y_off + i0;
  switch (op->add_inner_mode) {
    case 0: op->vadd(count, op->add_a + a_off + i0, op->add_b + b_off + i0, y, &op->add_params); break;
    case 1: op->vaddc(count, op->add_a + a_off + i0, op->add_b + b_off, y, &op->add_params); break;
    default: op->vaddc(count, op->add_b + b_off + i0, op->add_a + a_off, y, &op->add_params_swapped); break;
  }
}

enum q8nn_status q8nn_run_add_cpu(struct q8nn_operator* op, pthreadpool_t threadpool) {
  const size_t threads = threads_of(threadpool);
  size_t tile = op->add_inner;
  /* few rows: split the inner run so every thread gets work (64-byte multiples) */
  if (threads > 1 && op->add_outer_count < threads * 4 && op->add_inner > 4096) {
    tile = q8nn_max_sz(4096, q8nn_round_up(op->add_inner * op->add_outer_count / (threads * 4), 64));
  }
  pthreadpool_parallelize_2d_tile_1d(threadpool, add_task, op, op->add_outer_count, op->add_inner, tile, 0);
  return q8nn_status_success;
}

enum q8nn_status q8nn_run_operator(q8nn_operator_t op, pthreadpool_t threadpool) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "operator is NULL");
  if (!op->is_setup) return Q8NN_ERROR(q8nn_status_invalid_state, "operator was not set up");
  if (op->backend != NULL) return q8nn_backend_run(op, threadpool);
  return op->type == q8nn_operator_type_add ? q8nn_run_add_cpu(op, threadpool) : q8nn_run_conv_cpu(op, threadpool);
}

enum q8nn_status q8nn_delete_operator(q8nn_operator_t op) {
  if (op == NULL) return q8nn_status_success;
  q8nn_backend_release(op);
  free(op->kernel);
  free(op->bias);
  free(op->multiplier);
  free(op->shift);
  free(op->packed_weights);
  free(op->zero_buffer);
  free((void*) op->indirection);
  free(op->expanded_input);
  free(op);
  return q8nn_status_success;
}

const char* q8nn_operator_kernel_name(q8nn_operator_t op) { return op != NULL ? op->kernel_name : ""; }
