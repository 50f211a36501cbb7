/*
 * Multiply, N-dimensional with numpy broadcasting, int8 and uint8: TFLite's MUL,
 * (Q8NN_FLAG_PYTORCH_REQUANTIZE) PyTorch's quantized mul or (Q8NN_FLAG_XNNPACK_MULTIPLY) XNNPACK's
 * qs8 multiply. The output is a function of the two input
 * bytes, so create tabulates it with the scalar arithmetic below (65536 entries) and every kernel
 * is exact by construction: a broadcast operand (squeeze-excitation scales, per-channel factors)
 * selects one 256-entry row, which the best line's table-lookup kernel runs (VPERMB, TBL,
 * vrgather); two dense operands look each pair up. The operator is add-shaped: shapes, loops,
 * threads and q8nn_run_operators are the add's (add-nd.c, operator-run.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel-decls.h"
#include "kernels/requantization.h"
#include "operator.h"

/* The arithmetic of one pair, in int8 terms. */
struct multiply_arithmetic {
  int pytorch;               /* PyTorch's or XNNPACK's float form (they differ in the scale only) */
  int32_t a_zero_point, b_zero_point, output_zero_point, output_min, output_max;
  int32_t multiplier, shift; /* TFLite: QuantizeMultiplier's, shift > 0 = left */
  float scale;               /* (a_scale * b_scale) * (1 / output_scale); XNNPACK: / output_scale */
};

static int32_t multiply_pair(int32_t a, int32_t b, const struct multiply_arithmetic* m) {
  const int32_t product = (a - m->a_zero_point) * (b - m->b_zero_point); /* |product| <= 65536 */
  int64_t out;
  if (m->pytorch) {
    /* float(product) is exact; nearbyintf rounds to nearest even, as PyTorch's lrintf and
       VCVTPS2DQ; |product * scale| < 2^31 by the create check */
    out = (int64_t) m->output_zero_point + (int64_t) nearbyintf((float) product * m->scale);
  } else {
    /* MultiplyByQuantizedMultiplier: a left shift wraps in int32 as TFLite's compiled code does */
    const int32_t left = m->shift > 0 ? m->shift : 0, right = m->shift > 0 ? 0 : -m->shift;
    const int32_t shifted = (int32_t) ((uint32_t) product << left);
    out = (int32_t) ((uint32_t) m->output_zero_point +
                     (uint32_t) q8nn_rdbpot(q8nn_srdhm(shifted, m->multiplier), right));
  }
  return (int32_t) (out < m->output_min ? m->output_min : out > m->output_max ? m->output_max : out);
}

static int normal_positive(float s) { return isnormal(s) && s > 0.0f; }

static enum q8nn_status create_multiply(const struct q8nn_multiply_quantization* quant, uint32_t flags, int u8,
                                        q8nn_operator_t* multiply_out, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (quant == NULL || multiply_out == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "quant and multiply_out must not be NULL");
  }
  if ((flags & ~(Q8NN_FLAG_PYTORCH_REQUANTIZE | Q8NN_FLAG_XNNPACK_MULTIPLY)) != 0 ||
      flags == (Q8NN_FLAG_PYTORCH_REQUANTIZE | Q8NN_FLAG_XNNPACK_MULTIPLY)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x (or both arithmetics)",
                          (unsigned) flags);
  }
  const int xnnpack = flags == Q8NN_FLAG_XNNPACK_MULTIPLY;
  const int32_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127, shift = u8 ? 128 : 0;
  const int32_t values[5] = {quant->a_zero_point, quant->b_zero_point, quant->output_zero_point, quant->output_min,
                             quant->output_max};
  for (int i = 0; i < 5; i++) {
    if (values[i] < lo || values[i] > hi) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero points and clamp must be in [%d, %d]",
                            (int) lo, (int) hi);
    }
  }
  if (quant->output_min > quant->output_max) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_min %d > output_max %d",
                          (int) quant->output_min, (int) quant->output_max);
  }
  if (!normal_positive(quant->a_scale) || !normal_positive(quant->b_scale) || !normal_positive(quant->output_scale)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "scales must be normal floats > 0");
  }
  struct multiply_arithmetic m = {.pytorch = flags != 0,
                                  .a_zero_point = quant->a_zero_point - shift,
                                  .b_zero_point = quant->b_zero_point - shift,
                                  .output_zero_point = quant->output_zero_point - shift,
                                  .output_min = quant->output_min - shift,
                                  .output_max = quant->output_max - shift};
  if (xnnpack) {
    /* xnn_create_multiply_nd_qs8: product_output_scale = (input1_scale * input2_scale) / output_scale */
    const volatile float product = quant->a_scale * quant->b_scale;
    m.scale = product / quant->output_scale;
    if (!(m.scale >= 0x1.0p-16f && m.scale < 0x1.0p+8f)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "scale ratio %g outside XNNPACK's [2^-16, 2^8)",
                            (double) m.scale);
    }
  } else if (m.pytorch) {
    /* qmul_kernel: float multiplier = self_scale * other_scale * inv_scale, inv_scale = 1.0f / scale */
    const volatile float inverse = 1.0f / quant->output_scale;
    const volatile float product = quant->a_scale * quant->b_scale;
    m.scale = product * inverse;
    if (!(m.scale * 65536.0f < 0x1.0p+31f)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "multiplier %g: products would leave int32 (PyTorch's paths disagree there)",
                            (double) m.scale);
    }
  } else {
    /* TFLite's Prepare: the scales' product and quotient in float, then QuantizeMultiplier */
    const volatile float real = quant->a_scale * quant->b_scale / quant->output_scale;
    if (!q8nn_quantize_multiplier((double) real, &m.multiplier, &m.shift)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "multiplier %g out of TFLite's range",
                            (double) real);
    }
  }
  const struct q8nn_lut_entry* lut = q8nn_get_dispatch(0).lut;
  /* raw table [b][a], then the rows in the lookup kernel's form for a broadcast b (the raw table
     itself where the line takes tables as they are) and for a broadcast a (the swapped operands:
     [a][b]) */
  const size_t regions = lut->pack != NULL ? 3 : 2;
  uint8_t* tables = aligned_alloc(64, regions * 65536);
  struct q8nn_operator* op = tables != NULL ? q8nn_allocate_operator(q8nn_operator_type_add) : NULL;
  if (op == NULL) {
    free(tables);
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
  }
  uint8_t* raw = tables;
  uint8_t* rows_b = lut->pack != NULL ? tables + 65536 : raw;
  uint8_t* rows_a = tables + (regions - 1) * 65536;
  const uint8_t flip = (uint8_t) (u8 ? 0x80 : 0);
  for (int b = 0; b < 256; b++) {
    for (int a = 0; a < 256; a++) {
      const int32_t y = multiply_pair((int8_t) (a ^ flip), (int8_t) (b ^ flip), &m);
      raw[b << 8 | a] = (uint8_t) ((uint8_t) y ^ flip);
    }
  }
  uint8_t scratch[256]; /* row a = k over b = j */
  for (int k = 0; k < 256; k++) {
    for (int j = 0; j < 256; j++) scratch[j] = raw[j << 8 | k];
    if (lut->pack != NULL) {
      lut->pack(raw + (k << 8), rows_b + (k << 8));
      lut->pack(scratch, rows_a + (k << 8));
    } else {
      memcpy(rows_a + (k << 8), scratch, 256);
    }
  }
  op->add_multiply = 1;
  op->mul_tables = tables;
  op->u8 = u8;
  struct q8nn_qs8_add_params* p = &op->add_params;
  p->a_zero_point = m.a_zero_point, p->b_zero_point = m.b_zero_point;
  p->output_zero_point = m.output_zero_point, p->output_min = m.output_min, p->output_max = m.output_max;
  p->mul_table = raw;
  p->mul_rows = rows_b;
  p->mul_lut = lut->fn;
  /* the arithmetic, for the dense kernels that compute it */
  p->mul_float = m.pytorch;
  p->mul_scale = m.scale;
  p->output_multiplier = m.multiplier, p->output_shift = m.shift;
  p->mul_guard = 0;
  p->mul_guard_c0 = q8nn_guard_c0(m.output_min, m.output_zero_point);
  if (!m.pytorch && q8nn_get_dispatch(u8).guard && q8nn_guard_eligible(m.multiplier, m.shift)) {
    p->mul_guard = m.output_min < m.output_zero_point ? 2 : 1;
  }
  p->input_flip = p->output_flip = flip;
  /* a broadcast a: vaddc(b elements, a) reads row a; the dense kernel never runs swapped */
  op->add_params_swapped = *p;
  op->add_params_swapped.a_zero_point = m.b_zero_point;
  op->add_params_swapped.b_zero_point = m.a_zero_point;
  op->add_params_swapped.mul_rows = rows_a;
  /* dense operands: the line's arithmetic kernel where there is one, else a lookup per pair */
  op->vadd = q8nn_x8_vmul_table_ukernel;
  const char* dense = "q8nn_x8_vmul_table";
#if Q8NN_ARCH_X86
  const uint32_t isa = q8nn_get_active_isa();
  if (isa & Q8NN_ISA_X86_AVX512VNNI) {
    op->vadd = q8nn_x8_vmul_ukernel__avx512vnni;
    dense = "q8nn_x8_vmul_ukernel__avx512vnni";
  } else if (isa & Q8NN_ISA_X86_AVX2) {
    op->vadd = q8nn_x8_vmul_ukernel__avx2;
    dense = "q8nn_x8_vmul_ukernel__avx2";
  }
#elif Q8NN_ARCH_NEON
  if (q8nn_get_active_isa() & Q8NN_ISA_ARM_NEON) {
    op->vadd = q8nn_x8_vmul_ukernel__neon;
    dense = "q8nn_x8_vmul_ukernel__neon";
  }
#elif Q8NN_ARCH_RVV
  if (q8nn_get_active_isa() & Q8NN_ISA_RISCV_V) {
    op->vadd = q8nn_x8_vmul_ukernel__rvv;
    dense = "q8nn_x8_vmul_ukernel__rvv";
  }
#endif
  op->vaddc = q8nn_x8_vmulc_table_ukernel;
  snprintf(op->kernel_name, sizeof(op->kernel_name), "%s (%s, broadcast: %s)", dense,
           xnnpack ? "XNNPACK" : m.pytorch ? "PyTorch" : "TFLite", lut->name);
  *multiply_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_multiply_nd_s8(const struct q8nn_multiply_quantization* quant, uint32_t flags,
                                            q8nn_operator_t* multiply_out) {
  return create_multiply(quant, flags, 0, multiply_out, __func__);
}

enum q8nn_status q8nn_create_multiply_nd_u8(const struct q8nn_multiply_quantization* quant, uint32_t flags,
                                            q8nn_operator_t* multiply_out) {
  return create_multiply(quant, flags, 1, multiply_out, __func__);
}

enum q8nn_status q8nn_setup_multiply_nd_s8(q8nn_operator_t op, size_t num_a_dims, const size_t* a_shape,
                                           size_t num_b_dims, const size_t* b_shape, const int8_t* a,
                                           const int8_t* b, int8_t* output) {
  return q8nn_setup_binary_nd(op, 1, 0, num_a_dims, a_shape, num_b_dims, b_shape, a, b, output, __func__);
}

enum q8nn_status q8nn_setup_multiply_nd_u8(q8nn_operator_t op, size_t num_a_dims, const size_t* a_shape,
                                           size_t num_b_dims, const size_t* b_shape, const uint8_t* a,
                                           const uint8_t* b, uint8_t* output) {
  return q8nn_setup_binary_nd(op, 1, 1, num_a_dims, a_shape, num_b_dims, b_shape, (const int8_t*) a,
                              (const int8_t*) b, (int8_t*) output, __func__);
}
