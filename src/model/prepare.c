/*
 * Preparation shared by every operator family: the table of builtins and kinds, activation
 * ranges, output sizes, and the backend placement rules.
 */
#include <math.h>

#include "model-internal.h"

int model_is_int8_activation(const struct tensor* t) {
  return t->type == q8nn_model_type_int8 && t->scales.length == 1 && isfinite(t->scale) && t->scale > 0.0f &&
         t->zero_point >= -128 && t->zero_point <= 127;
}

/* TFLite CalculateActivationRangeQuantized for int8. */
int model_activation_range(int activation, const struct tensor* out, int32_t* min, int32_t* max) {
  const float scale = out->scale;
  const int32_t zp = out->zero_point;
  int32_t lo = -128, hi = 127;
  if (activation == ACT_RELU) {
    const int32_t q = zp + (int32_t) roundf(0.0f / scale);
    lo = q > lo ? q : lo;
  } else if (activation == ACT_RELU6) {
    const int32_t q0 = zp + (int32_t) roundf(0.0f / scale);
    const float f6 = roundf(6.0f / scale);
    const int32_t q6 = f6 > 1e9f ? INT32_MAX : zp + (int32_t) f6;
    lo = q0 > lo ? q0 : lo;
    hi = q6 < hi ? q6 : hi;
  } else if (activation == ACT_RELU_N1_TO_1) {
    const float fm = roundf(-1.0f / scale), fp = roundf(1.0f / scale);
    const int32_t qm = fm < -1e9f ? INT32_MIN : zp + (int32_t) fm;
    const int32_t qp = fp > 1e9f ? INT32_MAX : zp + (int32_t) fp;
    lo = qm > lo ? qm : lo;
    hi = qp < hi ? qp : hi;
  } else if (activation != ACT_NONE) {
    return 0;
  }
  if (lo > hi) return 0;
  *min = lo;
  *max = hi;
  return 1;
}

/* Every operator the backend supports() is set to it before setup; returns 1 when it was. */
int model_try_backend(const struct q8nn_model* m, struct op* op) {
  return m->backend != NULL && q8nn_backend_supports(m->backend, op->qop) &&
         q8nn_operator_set_backend(op->qop, m->backend) == q8nn_status_success;
}

/* After a setup: when it failed on the backend (VTA: shapes beyond its instruction fields), the
   operator goes back to the CPU and returns 1: set it up again. */
int model_retry_on_cpu(struct op* op, enum q8nn_status status, int* on_backend) {
  if (status == q8nn_status_success || !*on_backend) return 0;
  *on_backend = 0;
  return q8nn_operator_set_backend(op->qop, NULL) == q8nn_status_success;
}

/* Where the operator really runs once set up: the backend, or "cpu" when it declined it, its
   setup failed, or its setup left the operator on the CPU (q8nn_operator_get_backend). */
const char* model_placement_of(const struct op* op) {
  return q8nn_backend_name(q8nn_operator_get_backend(op->qop));
}

/* TFLite's output size and SAME padding for one spatial dimension. */
int model_conv_dim(int padding, size_t in, size_t k, size_t stride, size_t dilation, size_t* out,
                   uint32_t* before, uint32_t* after) {
  const size_t eff = (k - 1) * dilation + 1;
  if (padding == PAD_SAME) {
    *out = (in + stride - 1) / stride;
    q8nn_compute_same_padding((uint32_t) in, (uint32_t) k, (uint32_t) stride, (uint32_t) dilation, before, after);
  } else {
    if (in < eff) return 0;
    *out = (in - eff + stride) / stride;
    *before = *after = 0;
  }
  return 1;
}

int model_shape_is(const struct tensor* t, size_t n, const size_t* dims) {
  if (t->num_dims != n) return 0;
  for (size_t i = 0; i < n; i++) {
    if (t->dims[i] != dims[i]) return 0;
  }
  return 1;
}

/* ---- the table: an operator adds its builtins here and its preparation in one prepare-*.c --- */

typedef enum q8nn_status (*prepare_fn)(struct loader* l, struct op* op);

/* Per kind: its preparation, and whether it runs as a q8nn operator (op->qop, which can join a
   q8nn_run_operators list) rather than as portable code in execute.c. */
static const struct {
  prepare_fn prepare;
  bool q8nn_operator;
} kinds[K_COUNT] = {
    [K_CONV] = {model_prepare_conv, true},
    [K_FC] = {model_prepare_fully_connected, true},
    [K_TRANSPOSE_CONV] = {model_prepare_transpose_conv, true},
    [K_ADD] = {model_prepare_binary, true},
    [K_MUL] = {model_prepare_binary, false},
    [K_SUB] = {model_prepare_binary, false},
    [K_SOFTMAX] = {model_prepare_softmax, true},
    [K_UNARY] = {model_prepare_unary, true},
    [K_QUANTIZE] = {model_prepare_quantize, false},
    [K_DEQUANTIZE] = {model_prepare_quantize, false},
    [K_AVERAGE_POOL] = {model_prepare_pool, true},
    [K_MAX_POOL] = {model_prepare_pool, true},
    [K_MEAN] = {model_prepare_mean, false},
    [K_RESIZE] = {model_prepare_resize, true},
    [K_COPY] = {model_prepare_copy, false},
    [K_PAD] = {model_prepare_pad, false},
    [K_CONCAT] = {model_prepare_concat, true},
};

/* Per builtin: its kind, and how many of its first inputs are data (read as activations; the
   others must be constants). */
static const struct {
  int32_t builtin;
  enum kind kind;
  size_t data_inputs;
} builtins[] = {
    {OP_CONV_2D, K_CONV, 1},
    {OP_DEPTHWISE_CONV_2D, K_CONV, 1},
    {OP_FULLY_CONNECTED, K_FC, 1},
    /* the data input is the third, after the output shape and the filter (both constants) */
    {OP_TRANSPOSE_CONV, K_TRANSPOSE_CONV, 3},
    {OP_ADD, K_ADD, 2},
    {OP_MUL, K_MUL, 2},
    {OP_SUB, K_SUB, 2},
    {OP_SOFTMAX, K_SOFTMAX, 1},
    {OP_RELU, K_UNARY, 1},
    {OP_RELU6, K_UNARY, 1},
    {OP_RELU_N1_TO_1, K_UNARY, 1},
    {OP_LOGISTIC, K_UNARY, 1},
    {OP_TANH, K_UNARY, 1},
    {OP_HARD_SWISH, K_UNARY, 1},
    {OP_LEAKY_RELU, K_UNARY, 1},
    {OP_ELU, K_UNARY, 1},
    {OP_QUANTIZE, K_QUANTIZE, 1},
    {OP_DEQUANTIZE, K_DEQUANTIZE, 1},
    {OP_AVERAGE_POOL_2D, K_AVERAGE_POOL, 1},
    {OP_MAX_POOL_2D, K_MAX_POOL, 1},
    {OP_MEAN, K_MEAN, 1},
    {OP_RESIZE_BILINEAR, K_RESIZE, 1},
    {OP_RESIZE_NEAREST_NEIGHBOR, K_RESIZE, 1},
    {OP_RESHAPE, K_COPY, 1},
    {OP_SQUEEZE, K_COPY, 1},
    {OP_PAD, K_PAD, 1},
    {OP_PADV2, K_PAD, 1},
    {OP_CONCATENATION, K_CONCAT, SIZE_MAX},
};

int model_kind_of(int32_t builtin, enum kind* kind, size_t* data_inputs) {
  for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
    if (builtins[i].builtin == builtin) {
      *kind = builtins[i].kind;
      *data_inputs = builtins[i].data_inputs;
      return 1;
    }
  }
  return 0;
}

bool model_kind_is_q8nn_operator(enum kind kind) { return kind < K_COUNT && kinds[kind].q8nn_operator; }

enum q8nn_status model_prepare_op(struct loader* l, struct op* op) {
  op->placement = "cpu";
  if (op->kind >= K_COUNT || kinds[op->kind].prepare == NULL) return q8nn_status_invalid_parameter;
  return kinds[op->kind].prepare(l, op);
}
