/*
 * Preparation of the elementwise operators: ADD and MUL (q8nn's add and multiply), MUL and SUB by
 * a constant (a 256-entry table per constant value), SUB (portable), SOFTMAX, the unary table operators (RELU ... HARD_SWISH),
 * QUANTIZE and DEQUANTIZE.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

/* MUL or SUB by a constant b that is a scalar or varies along the innermost dimension only
   (preprocessing layers: x * s - t, per channel), with a of the output's shape: every output is a
   function of (a, b[i % nb]), so a table of 256 results per b value built from the same element
   arithmetic replaces the fixed-point work (exact by construction). Returns nb, or 0 when the op
   is not of that form. Shapes only: callable before the operator is prepared. */
size_t model_table_values(const struct q8nn_model* m, const struct op* op) {
  if ((op->kind != K_MUL && op->kind != K_SUB) || op->num_inputs != 2 || op->inputs[1] < 0) return 0;
  const struct tensor* a = &m->tensors[op->inputs[0]];
  const struct tensor* b = &m->tensors[op->inputs[1]];
  const struct tensor* out = &m->tensors[op->output];
  if (b->constant == NULL || a->elements != out->elements || b->elements > 64) return 0;
  struct q8nn_model_binary_params p;
  if (!q8nn_model_binary_broadcast(a->num_dims, a->dims, b->num_dims, b->dims, out->num_dims, out->dims, &p)) return 0;
  const size_t R = Q8NN_MODEL_OPS_MAX_DIMS;
  for (size_t i = 0; i + 1 < R; i++) {
    if (p.b_stride[i] != 0 && p.out_shape[i] != 1) return 0;
  }
  if (b->elements != 1 && (p.b_stride[R - 1] != 1 || b->elements != p.out_shape[R - 1])) return 0;
  return b->elements;
}

enum q8nn_status model_prepare_binary(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* a = model_in_tensor(l, op, 0);
  struct tensor* b = model_in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  const uint8_t opt = op->builtin == OP_ADD ? OPT_ADD : op->builtin == OP_MUL ? OPT_MUL : OPT_SUB;
  if (!model_expect_options(op, opt)) return model_options_fail(l, op);
  const int activation = fb_u8(r, &op->options, 0, 0);
  if (fb_failed(r)) return model_reader_fail(l);
  if (a == NULL || b == NULL || !model_is_int8_activation(a) || !model_is_int8_activation(b) || !model_is_int8_activation(out)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 inputs and output with one scale each");
  }
  struct q8nn_model_binary_params* p = &op->binary;
  if (!q8nn_model_binary_broadcast(a->num_dims, a->dims, b->num_dims, b->dims, out->num_dims, out->dims, p)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "input shapes do not broadcast to the output shape");
  }
  int32_t out_min, out_max;
  if (!model_activation_range(activation, out, &out_min, &out_max)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  if (op->builtin == OP_ADD) {
    const struct q8nn_add_quantization quant = {
        .a_zero_point = a->zero_point, .a_scale = a->scale, .b_zero_point = b->zero_point, .b_scale = b->scale,
        .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
        .output_max = (int8_t) out_max};
    const uint32_t flags = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? Q8NN_FLAG_XNNPACK_ADD : 0;
    enum q8nn_status status = q8nn_create_add_nd_s8(&quant, flags, &op->qop);
    if (status != q8nn_status_success) return model_q8nn_fail(l, op, "create", status);
    int on_backend = model_try_backend(l->m, op);
    do {
      status = q8nn_setup_add_nd_s8(op->qop, a->num_dims, a->dims, b->num_dims, b->dims, (const int8_t*) a->data,
                                    (const int8_t*) b->data, (int8_t*) out->data);
    } while (model_retry_on_cpu(op, status, &on_backend));
    op->placement = model_placement_of(op);
    if (status != q8nn_status_success) return model_q8nn_fail(l, op, "setup", status);
    return q8nn_status_success;
  }
  p->a_offset = -a->zero_point;
  p->b_offset = -b->zero_point;
  p->output_offset = out->zero_point;
  p->output_min = out_min;
  p->output_max = out_max;
  int shift;
  if (op->builtin == OP_MUL) {
    /* TFLite mul.cc: float product and quotient, then double */
    const double real = (double) (a->scale * b->scale / out->scale);
    if (!q8nn_model_quantize_multiplier(real, &p->output_multiplier, &shift)) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "output multiplier %g out of range", real);
    }
    p->output_shift = shift;
    op->macs = out->elements;
  } else {
    /* TFLite sub.cc for int8: left shift 20, inputs relative to twice the larger input scale */
    p->left_shift = 20;
    const double twice_max = 2.0 * (double) (a->scale > b->scale ? a->scale : b->scale);
    const double real_a = (double) a->scale / twice_max, real_b = (double) b->scale / twice_max;
    const double real_out = twice_max / ((double) (1 << p->left_shift) * (double) out->scale);
    int sa, sb, so;
    if (!q8nn_model_quantize_multiplier(real_a, &p->a_multiplier, &sa) || sa > 0 ||
        !q8nn_model_quantize_multiplier(real_b, &p->b_multiplier, &sb) || sb > 0 ||
        !q8nn_model_quantize_multiplier(real_out, &p->output_multiplier, &so) || so > 0) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "scales whose multipliers exceed 1");
    }
    p->a_shift = sa;
    p->b_shift = sb;
    p->output_shift = so;
  }
  if (model_table_values(l->m, op) != 0) {
    op->table_values = model_table_values(l->m, op);
    op->table = (int8_t*) malloc(op->table_values * 256);
    if (op->table == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
    q8nn_model_binary_table(p, op->builtin == OP_MUL, (const int8_t*) b->data, b->elements, op->table);
  }
  if (op->fused_from >= 0) {
    /* compose with the fused producer's table: this op's input byte is the producer's output */
    struct op* producer = &l->m->ops[op->fused_from];
    if (op->table == NULL || producer->table == NULL) {
      return model_op_fail(l, op, q8nn_status_invalid_parameter, "internal error: fused lookup without a table");
    }
    const size_t nb = op->table_values > producer->table_values ? op->table_values : producer->table_values;
    int8_t* composed = (int8_t*) malloc(nb * 256);
    if (composed == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
    for (size_t j = 0; j < nb; j++) {
      const int8_t* first = producer->table + (j % producer->table_values) * 256;
      const int8_t* second = op->table + (j % op->table_values) * 256;
      for (size_t x = 0; x < 256; x++) composed[j * 256 + x] = second[(uint8_t) first[x]];
    }
    free(op->table);
    free(producer->table);
    producer->table = NULL;
    op->table = composed;
    op->table_values = nb;
  }
  if (op->builtin == OP_MUL && op->table == NULL) {
    /* q8nn's multiply (TFLite's MUL, the arithmetic above): broadcasts, threads, table lookups */
    const struct q8nn_multiply_quantization quant = {a->zero_point, a->scale, b->zero_point, b->scale,
                                                     out->zero_point, out->scale, out_min, out_max};
    enum q8nn_status status = q8nn_create_multiply_nd_s8(&quant, 0, &op->qop);
    if (status == q8nn_status_success) {
      status = q8nn_setup_multiply_nd_s8(op->qop, a->num_dims, a->dims, b->num_dims, b->dims,
                                         (const int8_t*) a->data, (const int8_t*) b->data, (int8_t*) out->data);
    }
    if (status != q8nn_status_success) return model_q8nn_fail(l, op, "multiply", status);
  }
  return q8nn_status_success;
}

enum q8nn_status model_prepare_softmax(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_SOFTMAX)) return model_options_fail(l, op);
  const float beta = fb_f32(&l->r, &op->options, 0, 0.0f);
  if (fb_failed(&l->r)) return model_reader_fail(l);
  if (in == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || in->num_dims == 0 ||
      !model_shape_is(out, in->num_dims, in->dims)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output of the same shape");
  }
  if (out->zero_point != -128 || fabsf(out->scale - 1.0f / 256) > 0.001f / 256) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "int8 output must have zero point -128 and scale 1/256");
  }
  /* q8nn's softmax over the last dimension */
  const size_t depth = in->dims[in->num_dims - 1], rows = in->elements / depth;
  enum q8nn_status status = q8nn_create_softmax_nc_s8(in->scale, beta, 0, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_softmax_nc_s8(op->qop, rows, depth, (const int8_t*) in->data, depth, (int8_t*) out->data,
                                      depth);
  }
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "beta %g with input scale %g: %s", (double) beta,
                   (double) in->scale, q8nn_status_string(status));
  }
  return q8nn_status_success;
}

/* RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU and ELU: q8nn's unary
   elementwise operator (its table is TFLite's kernel on every input byte, or XNNPACK's with the
   XNNPACK numerics) over the tensor as one row. */
enum q8nn_status model_prepare_unary(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || in->elements != out->elements) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output of one size");
  }
  struct q8nn_unary_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .output_zero_point = out->zero_point,
      .output_scale = out->scale, .output_min = -128, .output_max = 127, .alpha = 1.0f,
      .rounding = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double};
  enum q8nn_unary_operation operation = q8nn_unary_clamp;
  int32_t lo = -128, hi = 127;
  switch (op->builtin) {
    case OP_RELU: model_activation_range(ACT_RELU, out, &lo, &hi); break;
    case OP_RELU6: model_activation_range(ACT_RELU6, out, &lo, &hi); break;
    case OP_RELU_N1_TO_1: model_activation_range(ACT_RELU_N1_TO_1, out, &lo, &hi); break;
    case OP_LOGISTIC: operation = q8nn_unary_sigmoid; break;
    case OP_TANH: operation = q8nn_unary_tanh; break;
    case OP_HARD_SWISH: operation = q8nn_unary_hardswish; break;
    case OP_ELU: operation = q8nn_unary_elu; break;
    default:
      if (!model_expect_options(op, OPT_LEAKY_RELU)) return model_options_fail(l, op);
      operation = q8nn_unary_leaky_relu;
      quant.alpha = fb_f32(&l->r, &op->options, 0, 0.0f);
      if (fb_failed(&l->r)) return model_reader_fail(l);
      break;
  }
  if (lo > hi) return model_op_fail(l, op, q8nn_status_unsupported_parameter, "empty activation range");
  quant.output_min = (int8_t) lo;
  quant.output_max = (int8_t) hi;
  enum q8nn_status status = q8nn_create_unary_elementwise_nc_s8(operation, &quant, 0, &op->qop);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "create", status);
  status = q8nn_setup_unary_elementwise_nc_s8(op->qop, 1, in->elements, (const int8_t*) in->data, in->elements,
                                              (int8_t*) out->data, out->elements);
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "setup", status);
  return q8nn_status_success;
}

static int is_8bit_quantized(const struct tensor* t) {
  if (t->type == q8nn_model_type_int8) return model_is_int8_activation(t);
  return t->type == q8nn_model_type_uint8 && t->scales.length == 1 && isfinite(t->scale) && t->scale > 0.0f &&
         t->zero_point >= 0 && t->zero_point <= 255;
}

/* TFLite quantize.cc / dequantize.cc, per-tensor only (as TFLite's QUANTIZE; per-channel
   DEQUANTIZE is refused): QUANTIZE float32 -> int8 (AffineQuantize) or int8/uint8 -> int8/uint8
   (Requantize, multiplier from (double) input_scale / output_scale); DEQUANTIZE int8/uint8 ->
   float32. */
enum q8nn_status model_prepare_quantize(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || in->elements != out->elements) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "input and output differ in size");
  }
  if (op->builtin == OP_DEQUANTIZE) {
    if (!is_8bit_quantized(in) || out->type != q8nn_model_type_float32) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "only int8/uint8 with one scale -> float32");
    }
    return q8nn_status_success;
  }
  if (in->type == q8nn_model_type_float32 && model_is_int8_activation(out)) return q8nn_status_success;
  if (!is_8bit_quantized(in) || !is_8bit_quantized(out)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "only float32 -> int8 or int8/uint8 -> int8/uint8, with one scale");
  }
  op->requantize = 1;
  const double real = (double) in->scale / (double) out->scale;
  if (!q8nn_model_quantize_multiplier(real, &op->rq_multiplier, &op->rq_shift)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "scale ratio %g out of range", real);
  }
  return q8nn_status_success;
}
