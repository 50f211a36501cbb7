/*
 * Add, N-dimensional with numpy broadcasting, int8, TFLite arithmetic or (Q8NN_FLAG_XNNPACK_ADD)
 * XNNPACK's qs8 arithmetic. Setup reduces any pair of
 * shapes (rank <= 6) to an outer loop of at most 5 dimensions with per-operand strides (0 where
 * an operand broadcasts) around one contiguous inner run, handled by vadd (both dense) or vaddc
 * (one operand broadcast along the run).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accel/backend.h"
#include "kernels/kernel-decls.h"
#include "kernels/requantization.h"
#include "operator.h"

static int valid_zero_point(int32_t zp) { return zp >= -128 && zp <= 127; }
static int valid_scale(float s) { return isfinite(s) && s > 0.0f; }
static int valid_normal_scale(float s) { return isnormal(s) && s > 0.0f; }

/* TFLite's QuantizeMultiplierSmallerThanOneExp: the shift must come out <= 0. */
static int quantize_smaller_than_one(double real, int32_t* multiplier, int32_t* shift) {
  return q8nn_quantize_multiplier(real, multiplier, shift) && *shift <= 0;
}

enum q8nn_status q8nn_create_add_nd_s8(const struct q8nn_add_quantization* quant, uint32_t flags,
                                       q8nn_operator_t* add_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (quant == NULL || add_out == NULL) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "quant and add_out must not be NULL");
  }
  if ((flags & ~(Q8NN_FLAG_XNNPACK_ADD | Q8NN_FLAG_QNNPACK_ADD)) != 0 ||
      (flags & (Q8NN_FLAG_XNNPACK_ADD | Q8NN_FLAG_QNNPACK_ADD)) == (Q8NN_FLAG_XNNPACK_ADD | Q8NN_FLAG_QNNPACK_ADD)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "unknown flags 0x%x (or both add arithmetics)", (unsigned) flags);
  }
  const int xnnpack = (flags & Q8NN_FLAG_XNNPACK_ADD) != 0;
  const int qnnpack = (flags & Q8NN_FLAG_QNNPACK_ADD) != 0;
  int qnnpack_linear = 0;
  if (!valid_zero_point(quant->a_zero_point) || !valid_zero_point(quant->b_zero_point) ||
      !valid_zero_point(quant->output_zero_point)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "zero points outside [-128, 127]");
  }
  if (quant->output_min > quant->output_max) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "output_min %d > output_max %d", (int) quant->output_min,
                      (int) quant->output_max);
  }
  struct q8nn_qs8_add_params p;
  memset(&p, 0, sizeof(p));
  p.a_zero_point = quant->a_zero_point;
  p.b_zero_point = quant->b_zero_point;
  p.output_zero_point = quant->output_zero_point;
  p.output_min = quant->output_min;
  p.output_max = quant->output_max;
  if (xnnpack || qnnpack) {
    /* xnn_create_add_nd_qs8's / pytorch_qnnpack_create_add_nc_q8's checks, in their order */
    const char* flag = xnnpack ? "Q8NN_FLAG_XNNPACK_ADD" : "Q8NN_FLAG_QNNPACK_ADD";
    if (quant->fixed != NULL) {
      return Q8NN_ERROR(q8nn_status_invalid_parameter, "fixed add parameters have no meaning with %s", flag);
    }
    if (!valid_normal_scale(quant->a_scale) || !valid_normal_scale(quant->b_scale) ||
        !valid_normal_scale(quant->output_scale)) {
      return Q8NN_ERROR(q8nn_status_invalid_parameter, "scales must be normal floats > 0 (%s)", flag);
    }
    volatile float a_ratio = quant->a_scale / quant->output_scale;
    volatile float b_ratio = quant->b_scale / quant->output_scale;
    /* XNNPACK: each ratio in [2^-10, 2^8); pytorch_qnnpack: [2^-14, 2^8), and the larger one at
       least 2^-9 (a shift of at most 30) */
    const float lowest = xnnpack ? 0x1.0p-10f : 0x1.0p-14f, largest_lowest = xnnpack ? 0x1.0p-10f : 0x1.0p-9f;
    if (!(a_ratio >= lowest && a_ratio < 0x1.0p+8f) || !(b_ratio >= lowest && b_ratio < 0x1.0p+8f) ||
        !(fmaxf(a_ratio, b_ratio) >= largest_lowest)) {
      return Q8NN_ERROR(q8nn_status_unsupported_parameter,
                        "input/output scale ratios %g, %g outside %s's range", (double) a_ratio, (double) b_ratio,
                        xnnpack ? "XNNPACK" : "pytorch_qnnpack");
    }
    if (xnnpack) {
      q8nn_xnn_add_params(a_ratio, b_ratio, quant->a_zero_point, quant->b_zero_point, &p);
    } else {
      qnnpack_linear = q8nn_qnn_add_params(a_ratio, b_ratio, quant->a_zero_point, quant->b_zero_point, &p);
    }
  } else if (quant->fixed != NULL) {
    const struct q8nn_add_fixed* f = quant->fixed;
    if (f->left_shift < 0 || f->left_shift > 20 || f->a_multiplier < 0 || f->b_multiplier < 0 ||
        f->output_multiplier < 0 || f->a_shift > 0 || f->b_shift > 0 || f->output_shift > 0 ||
        f->a_shift < -31 || f->b_shift < -31 || f->output_shift < -31) {
      return Q8NN_ERROR(q8nn_status_invalid_parameter,
                        "fixed add parameters out of range (left_shift [0, 20], multipliers >= 0, shifts [-31, 0])");
    }
    p.left_shift = f->left_shift;
    p.a_multiplier = f->a_multiplier, p.a_shift = f->a_shift;
    p.b_multiplier = f->b_multiplier, p.b_shift = f->b_shift;
    p.output_multiplier = f->output_multiplier, p.output_shift = f->output_shift;
  } else {
    if (!valid_scale(quant->a_scale) || !valid_scale(quant->b_scale) || !valid_scale(quant->output_scale)) {
      return Q8NN_ERROR(q8nn_status_invalid_parameter, "scales must be finite and > 0");
    }
    /* TFLite/TFLM CalculateOpDataAdd, in double */
    p.left_shift = 20;
    const double twice_max = 2.0 * (double) fmaxf(quant->a_scale, quant->b_scale);
    const double real_a = (double) quant->a_scale / twice_max;
    const double real_b = (double) quant->b_scale / twice_max;
    const double real_out = twice_max / ((double) (1 << p.left_shift) * (double) quant->output_scale);
    if (!quantize_smaller_than_one(real_a, &p.a_multiplier, &p.a_shift) ||
        !quantize_smaller_than_one(real_b, &p.b_multiplier, &p.b_shift) ||
        !quantize_smaller_than_one(real_out, &p.output_multiplier, &p.output_shift)) {
      return Q8NN_ERROR(q8nn_status_unsupported_parameter,
                        "output scale %g too small for TFLite's add rescaling", (double) quant->output_scale);
    }
  }
  /* the cheap affine form where one reproduces the arithmetic exactly (checked on every input pair);
     else, for TFLite's arithmetic, XNNPACK's form with coefficients that reproduce it (likewise
     checked): one multiply-add per input instead of three exact requantizations */
  if (qnnpack) {
    /* XNNPACK's form is this arithmetic where q8nn_qnn_add_params says so: its affine form too */
    if (qnnpack_linear) q8nn_add_affine_params(&p, 1);
  } else {
    q8nn_add_affine_params(&p, xnnpack);
    if (!xnnpack && !p.affine_valid) q8nn_add_linear_params(&p);
  }
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_add);
  if (op == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "operator");
  op->add_params = p;
  op->add_params_swapped = p;
  op->add_params_swapped.a_zero_point = p.b_zero_point;
  op->add_params_swapped.b_zero_point = p.a_zero_point;
  op->add_params_swapped.a_multiplier = p.b_multiplier;
  op->add_params_swapped.b_multiplier = p.a_multiplier;
  op->add_params_swapped.a_shift = p.b_shift;
  op->add_params_swapped.b_shift = p.a_shift;
  op->add_params_swapped.xnn_a_multiplier = p.xnn_b_multiplier;
  op->add_params_swapped.xnn_b_multiplier = p.xnn_a_multiplier;
  op->add_params_swapped.affine_a = p.affine_b;
  op->add_params_swapped.affine_b = p.affine_a;
  op->add_arithmetic = xnnpack || qnnpack ? q8nn_add_arithmetic_xnnpack : q8nn_add_arithmetic_tflite;
  const struct q8nn_dispatch d = q8nn_get_dispatch(0);
  const struct q8nn_vadd_entry* e = d.vadd[p.linear_valid ? q8nn_add_arithmetic_xnnpack : op->add_arithmetic];
  op->vadd = e->vadd;
  op->vaddc = e->vaddc;
  if (qnnpack) {
    if (qnnpack_linear) {
      snprintf(op->kernel_name, sizeof(op->kernel_name), "%s (QNNPACK as XNNPACK form)", e->name);
    } else {
      op->vadd = q8nn_qs8_vadd_minmax_qnn_ukernel__scalar_u4;
      op->vaddc = q8nn_qs8_vaddc_minmax_qnn_ukernel__scalar_u4;
      snprintf(op->kernel_name, sizeof(op->kernel_name), "q8nn_qs8_vadd_minmax_qnn_ukernel__scalar_u4");
    }
    *add_out = op;
    return q8nn_status_success;
  }
  /* a TFLite add in XNNPACK's form says so: its kernel's name is an xnn one. The x86 TFLite lines
     run the guarded form (ukernel.h, linear_guard); the others ignore it. */
  const int guarded = !p.affine_valid && !p.linear_valid && p.linear_guard != 0 &&
                      (e->isa & (Q8NN_ISA_X86_AVX2 | Q8NN_ISA_X86_AVX512VNNI)) != 0;
  snprintf(op->kernel_name, sizeof(op->kernel_name), "%s%s", e->name,
           p.linear_valid ? " (TFLite linear form)" : guarded ? " (guarded TFLite linear form)" : "");
  *add_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_binary_nd(q8nn_operator_t op, int multiply, int u8, size_t num_a_dims,
                                      const size_t* a_shape, size_t num_b_dims, const size_t* b_shape, const int8_t* a,
                                      const int8_t* b, int8_t* output, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  const char* kind = multiply ? "multiply" : "add";
  if (op == NULL || op->type != q8nn_operator_type_add || op->add_multiply != multiply) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a%s %s operator", multiply ? "" : "n", kind);
  }
  if (op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "a%s %s: use q8nn_setup_%s_nd_%s",
                          op->u8 ? " uint8" : "n int8", kind, kind, op->u8 ? "u8" : "s8");
  }
  if (a == NULL || b == NULL || output == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "a, b and output must not be NULL");
  }
  if (num_a_dims > Q8NN_MAX_DIMS || num_b_dims > Q8NN_MAX_DIMS) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "rank %zu/%zu above %d", num_a_dims, num_b_dims,
                      Q8NN_MAX_DIMS);
  }
  if ((num_a_dims != 0 && a_shape == NULL) || (num_b_dims != 0 && b_shape == NULL)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "shape pointer is NULL");
  }
  /* Right-align both shapes to 6 dimensions. */
  size_t sa[Q8NN_MAX_DIMS], sb[Q8NN_MAX_DIMS], so[Q8NN_MAX_DIMS];
  for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) sa[i] = sb[i] = 1;
  for (size_t i = 0; i < num_a_dims; i++) sa[Q8NN_MAX_DIMS - num_a_dims + i] = a_shape[i];
  for (size_t i = 0; i < num_b_dims; i++) sb[Q8NN_MAX_DIMS - num_b_dims + i] = b_shape[i];
  size_t total = 1;
  for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) {
    if (sa[i] == 0 || sb[i] == 0) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero dimension");
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "shapes do not broadcast (dimension %zu: %zu vs %zu)",
                        i, sa[i], sb[i]);
    }
    so[i] = sa[i] > sb[i] ? sa[i] : sb[i];
    if (!q8nn_mul_sz(total, so[i], &total)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output size overflows size_t");
    }
  }
  size_t a_total = 1, b_total = 1;
  for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) a_total *= sa[i], b_total *= sb[i];
  /* every operand's last byte is addressable: pointer + extent does not wrap */
  if (!q8nn_extent_fits(a, a_total, 1, 1) || !q8nn_extent_fits(b, b_total, 1, 1) ||
      !q8nn_extent_fits(output, total, 1, 1)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "an operand's extent overflows the address space");
  }
  if ((output == (int8_t*) a && a_total != total) || (output == (int8_t*) b && b_total != total)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output aliases an operand that is broadcast");
  }

  /* Drop size-1 output dims and merge neighbours with the same broadcast pattern, innermost first. */
  size_t dims[Q8NN_MAX_DIMS];
  int a_one[Q8NN_MAX_DIMS], b_one[Q8NN_MAX_DIMS];
  size_t count = 0;
  for (size_t k = Q8NN_MAX_DIMS; k-- > 0;) {
    if (so[k] == 1) continue;
    const int ao = sa[k] == 1, bo = sb[k] == 1;
    if (count != 0 && a_one[count - 1] == ao && b_one[count - 1] == bo) {
      dims[count - 1] *= so[k];
    } else {
      dims[count] = so[k], a_one[count] = ao, b_one[count] = bo;
      count++;
    }
  }
  size_t inner = 1;
  int mode = 0;
  if (count != 0) {
    inner = dims[0];
    mode = b_one[0] ? 1 : a_one[0] ? 2 : 0;
  }
  size_t a_stride = a_one[0] && count != 0 ? 1 : inner, b_stride = b_one[0] && count != 0 ? 1 : inner;
  size_t y_stride = inner;
  if (count == 0) a_stride = b_stride = y_stride = 1;
  /* outer dims, innermost first in `dims[1..count)`, stored outermost first */
  const size_t outer = count > 1 ? count - 1 : 0;
  size_t outer_count = 1;
  for (size_t i = 0; i < Q8NN_MAX_DIMS - 1; i++) {
    op->add_outer_shape[i] = 1;
    op->add_a_stride[i] = op->add_b_stride[i] = op->add_y_stride[i] = 0;
  }
  for (size_t j = 1; j <= outer; j++) {
    const size_t slot = Q8NN_MAX_DIMS - 1 - j; /* innermost outer dim in the last slot */
    op->add_outer_shape[slot] = dims[j];
    op->add_a_stride[slot] = a_one[j] ? 0 : a_stride;
    op->add_b_stride[slot] = b_one[j] ? 0 : b_stride;
    op->add_y_stride[slot] = y_stride;
    if (!a_one[j]) a_stride *= dims[j];
    if (!b_one[j]) b_stride *= dims[j];
    y_stride *= dims[j];
    outer_count *= dims[j];
  }
  op->add_outer_count = outer_count;
  op->add_inner = inner;
  op->add_inner_mode = mode;
  op->add_rank = num_a_dims > num_b_dims ? num_a_dims : num_b_dims;
  memcpy(op->add_a_shape, sa, sizeof(sa));
  memcpy(op->add_b_shape, sb, sizeof(sb));
  memcpy(op->add_out_shape, so, sizeof(so));
  op->add_a = a;
  op->add_b = b;
  op->add_y = output;
  op->plan_threads = 0; /* the loops are derived again at the next run */
  op->setup_serial = q8nn_next_setup_serial(); /* and any q8nn_run_operators plan with it */
  op->is_setup = 1;
  const enum q8nn_status status = q8nn_backend_prepare(op);
  if (status != q8nn_status_success) op->is_setup = 0;
  return status;
}

enum q8nn_status q8nn_setup_add_nd_s8(q8nn_operator_t op, size_t num_a_dims, const size_t* a_shape,
                                      size_t num_b_dims, const size_t* b_shape, const int8_t* a,
                                      const int8_t* b, int8_t* output) {
  return q8nn_setup_binary_nd(op, 0, 0, num_a_dims, a_shape, num_b_dims, b_shape, a, b, output, __func__);
}

enum q8nn_status q8nn_setup_add_nd_u8(q8nn_operator_t op, size_t num_a_dims, const size_t* a_shape,
                                      size_t num_b_dims, const size_t* b_shape, const uint8_t* a,
                                      const uint8_t* b, uint8_t* output) {
  return q8nn_setup_binary_nd(op, 0, 1, num_a_dims, a_shape, num_b_dims, b_shape, (const int8_t*) a,
                              (const int8_t*) b, (int8_t*) output, __func__);
}

enum q8nn_status q8nn_create_add_nd_u8(const struct q8nn_add_quantization_u8* quant, uint32_t flags,
                                       q8nn_operator_t* add_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (quant == NULL || add_out == NULL) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "quant and add_out must not be NULL");
  }
  if (quant->a_zero_point < 0 || quant->a_zero_point > 255 || quant->b_zero_point < 0 || quant->b_zero_point > 255 ||
      quant->output_zero_point < 0 || quant->output_zero_point > 255) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "zero points outside [0, 255]");
  }
  if (quant->output_min > quant->output_max) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "output_min %d > output_max %d", (int) quant->output_min,
                      (int) quant->output_max);
  }
  /* the int8 add of x - 128 (ukernel.h: uint8 z is int8 z - 128) */
  const struct q8nn_add_quantization s8 = {
      .a_zero_point = quant->a_zero_point - 128, .a_scale = quant->a_scale,
      .b_zero_point = quant->b_zero_point - 128, .b_scale = quant->b_scale,
      .output_zero_point = quant->output_zero_point - 128, .output_scale = quant->output_scale,
      .output_min = (int8_t) (quant->output_min - 128), .output_max = (int8_t) (quant->output_max - 128),
      .fixed = quant->fixed};
  q8nn_operator_t op = NULL;
  const enum q8nn_status status = q8nn_create_add_nd_s8(&s8, flags, &op);
  if (status != q8nn_status_success) return status;
  op->u8 = 1;
  /* every add kernel reads and writes the uint8 bytes itself (ukernel.h) */
  op->add_params.input_flip = op->add_params.output_flip = 0x80;
  op->add_params_swapped.input_flip = op->add_params_swapped.output_flip = 0x80;
  *add_out = op;
  return q8nn_status_success;
}
