/*
 * q8nn-fuzz-vta-seeds OUTPUT_DIR: writes real VTA programs as seeds for fuzz-vta-program. Each
 * is what the VTA backend lowers a small operator to (conv, grouped conv, depthwise, add with
 * broadcasting) on a few configurations, run once so the DRAM image holds the relaid-out input,
 * then exported with the device's whole DRAM (docs/vta-model.md format). Deterministic: the data
 * come from a fixed seed, so regenerating gives the same files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <q8nn.h>

#include "accel/vta/vta-backend.h"
#include "accel/vta/vta-export.h"

static uint32_t rng = 0x12345678u;

static int8_t next_s8(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (int8_t)rng;
}

static void fill(int8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = next_s8();
}

static int export_op(q8nn_backend_t backend, q8nn_operator_t op, const char* dir,
                     const char* name) {
  if (q8nn_run_operator(op, NULL) != q8nn_status_success) {
    fprintf(stderr, "%s: run failed\n", name);
    return 1;
  }
  struct q8nn_vta_op_state* state = q8nn_vta_op_state_of(op);
  if (state == NULL || state->on_cpu || !state->has_program) {
    fprintf(stderr, "%s: not lowered to VTA\n", name);
    return 1;
  }
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s.q8vta", dir, name);
  struct q8nn_vta_device* device = q8nn_vta_backend_of(backend)->target.device;
  if (q8nn_vta_export_program_path(path, device, &state->program) != q8nn_status_success) {
    fprintf(stderr, "%s: export failed: %s\n", path, q8nn_vta_device_last_error(device));
    return 1;
  }
  printf("%s: %zu instructions\n", path, state->program.count);
  return 0;
}

static int conv_seed(const struct q8nn_vta_config* config, const char* dir, const char* name,
                     int depthwise, size_t groups, size_t gic, size_t goc, size_t h, size_t w,
                     uint32_t k, uint32_t stride, uint32_t pad) {
  q8nn_backend_t backend = NULL;
  if (q8nn_create_vta_backend(config, &backend) != q8nn_status_success) return 1;
  const size_t cin = depthwise ? gic : groups * gic, cout = depthwise ? gic * goc : groups * goc;
  const size_t kernel_size = (size_t)k * k * (depthwise ? cout : cout * gic);
  int8_t* kernel = malloc(kernel_size);
  int8_t* input = malloc(h * w * cin);
  int8_t* output = malloc(h * w * cout);
  int32_t* bias = malloc(cout * sizeof(int32_t));
  float* kscale = malloc(cout * sizeof(float));
  fill(kernel, kernel_size);
  fill(input, h * w * cin);
  for (size_t c = 0; c < cout; c++)
    bias[c] = (int32_t)next_s8() * 50, kscale[c] = 0.01f + 0.001f * (float)c;
  const struct q8nn_conv_quantization q = {.input_zero_point = 3,
                                           .input_scale = 0.05f,
                                           .kernel_scale = kscale,
                                           .output_zero_point = -7,
                                           .output_scale = 0.2f,
                                           .output_min = -128,
                                           .output_max = 127,
                                           .rounding = q8nn_rounding_double};
  q8nn_operator_t op = NULL;
  enum q8nn_status st;
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc d = {pad,    pad,    pad, pad, k,   k,
                                                        stride, stride, 1,   1,   gic, goc};
    st = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, kernel, bias, 0, &op);
  } else {
    const struct q8nn_convolution2d_desc d = {
        pad, pad, pad, pad, k, k, stride, stride, 1, 1, (uint32_t)groups, gic, goc};
    st = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, bias, 0, &op);
  }
  int failures = st != q8nn_status_success;
  if (!failures) failures = q8nn_operator_set_backend(op, backend) != q8nn_status_success;
  if (!failures) {
    st = depthwise
             ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, h, w, input, cin, output, cout,
                                                          NULL, NULL)
             : q8nn_setup_convolution2d_nhwc_s8(op, 1, h, w, input, cin, output, cout, NULL, NULL);
    failures = st != q8nn_status_success;
  }
  if (!failures)
    failures = export_op(backend, op, dir, name);
  else
    fprintf(stderr, "%s: create/setup failed\n", name);
  q8nn_delete_operator(op);
  q8nn_delete_backend(backend);
  free(kernel), free(input), free(output), free(bias), free(kscale);
  return failures;
}

static int add_seed(const struct q8nn_vta_config* config, const char* dir, const char* name,
                    size_t a_rank, const size_t* a_shape, size_t b_rank, const size_t* b_shape,
                    size_t out_total) {
  q8nn_backend_t backend = NULL;
  if (q8nn_create_vta_backend(config, &backend) != q8nn_status_success) return 1;
  int8_t a[256], b[256], y[256];
  fill(a, sizeof(a));
  fill(b, sizeof(b));
  (void)out_total;
  const struct q8nn_add_quantization q = {.a_zero_point = 5,
                                          .a_scale = 0.1f,
                                          .b_zero_point = -9,
                                          .b_scale = 0.07f,
                                          .output_zero_point = 2,
                                          .output_scale = 0.15f,
                                          .output_min = -100,
                                          .output_max = 120};
  q8nn_operator_t op = NULL;
  int failures = q8nn_create_add_nd_s8(&q, 0, &op) != q8nn_status_success;
  if (!failures) failures = q8nn_operator_set_backend(op, backend) != q8nn_status_success;
  if (!failures)
    failures =
        q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, a, b, y) != q8nn_status_success;
  if (!failures)
    failures = export_op(backend, op, dir, name);
  else
    fprintf(stderr, "%s: create/setup failed\n", name);
  q8nn_delete_operator(op);
  q8nn_delete_backend(backend);
  return failures;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: q8nn-fuzz-vta-seeds OUTPUT_DIR\n");
    return 2;
  }
  if (q8nn_initialize() != q8nn_status_success) return 1;
  const char* dir = argv[1];
  /* Small blocks and buffers keep the files small (every DRAM region is whole 4 KiB pages). */
  const struct q8nn_vta_config small = {.log_block = 3,
                                        .log_inp_buff_size = 12,
                                        .log_wgt_buff_size = 13,
                                        .log_acc_buff_size = 12,
                                        .log_uop_buff_size = 12,
                                        .virtual_threads = 1};
  const struct q8nn_vta_config small_vt2 = {.log_block = 3,
                                            .log_inp_buff_size = 12,
                                            .log_wgt_buff_size = 13,
                                            .log_acc_buff_size = 12,
                                            .log_uop_buff_size = 12,
                                            .virtual_threads = 2};
  const struct q8nn_vta_config batch2 = {.log_batch = 1,
                                         .log_block = 2,
                                         .log_inp_buff_size = 12,
                                         .log_wgt_buff_size = 12,
                                         .log_acc_buff_size = 12,
                                         .log_uop_buff_size = 12,
                                         .virtual_threads = 2};
  const struct q8nn_vta_config deflt = {0};
  int failures = 0;
  failures += conv_seed(&small, dir, "conv-3x3-block8", 0, 1, 5, 6, 6, 6, 3, 1, 1);
  failures += conv_seed(&small_vt2, dir, "conv-3x3-s2-vt2", 0, 1, 9, 12, 7, 5, 3, 2, 1);
  failures += conv_seed(&small, dir, "conv-grouped-1x1", 0, 2, 4, 3, 4, 4, 1, 1, 0);
  failures += conv_seed(&deflt, dir, "conv-default", 0, 1, 3, 4, 4, 4, 3, 1, 1);
  failures += conv_seed(&small, dir, "depthwise-3x3", 1, 1, 10, 1, 6, 6, 3, 1, 1);
  failures += conv_seed(&batch2, dir, "depthwise-dm2-batch2", 1, 1, 4, 2, 5, 5, 3, 2, 1);
  const size_t s23[2] = {2, 3}, s3[1] = {3}, s234[3] = {2, 3, 4}, s14[2] = {1, 4};
  failures += add_seed(&small, dir, "add-broadcast", 2, s23, 1, s3, 6);
  failures += add_seed(&small_vt2, dir, "add-rank3-vt2", 3, s234, 2, s14, 24);
  failures += add_seed(&batch2, dir, "add-scalar-batch2", 2, s23, 0, NULL, 6);
  q8nn_deinitialize();
  return failures != 0;
}
