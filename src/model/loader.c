/*
 * The loader's common ground, below every other room of the model layer: its error messages, and
 * the checks and rules every operator's preparation shares (activation ranges, output sizes, the
 * backend placement). It calls nothing else in src/model/.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "model-internal.h"

/* ---- errors ---------------------------------------------------------------------------------- */

const char* model_builtin_name(int32_t code) {
  static const char* const names[] = {
      "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
      "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
      "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
      "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX",
      "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM",
      "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND",
      "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM",
      "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX"};
  if (code >= 0 && (size_t) code < sizeof(names) / sizeof(names[0])) return names[code];
  if (code == OP_PADV2) return "PADV2";
  if (code == OP_QUANTIZE) return "QUANTIZE";
  if (code == OP_LEAKY_RELU) return "LEAKY_RELU";
  if (code == OP_ELU) return "ELU";
  if (code == OP_HARD_SWISH) return "HARD_SWISH";
  if (code == OP_RESIZE_NEAREST_NEIGHBOR) return "RESIZE_NEAREST_NEIGHBOR";
  if (code == OP_TRANSPOSE_CONV) return "TRANSPOSE_CONV";
  return "(unknown builtin)";
}

enum q8nn_status model_fail(struct loader* l, enum q8nn_status status, const char* format, ...) {
  if (l->error != NULL && l->error_size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(l->error, l->error_size, format, args);
    va_end(args);
  }
  return status;
}

enum q8nn_status model_op_fail(struct loader* l, const struct op* op, enum q8nn_status status, const char* format, ...) {
  char detail[256];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return model_fail(l, status, "operator %zu (%s): %s", op->index, model_builtin_name(op->builtin), detail);
}

enum q8nn_status model_options_fail(struct loader* l, const struct op* op) {
  return model_op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
}

enum q8nn_status model_q8nn_fail(struct loader* l, const struct op* op, const char* call, enum q8nn_status status) {
  return model_op_fail(l, op, status, "q8nn %s failed (%s)", call, q8nn_status_string(status));
}

enum q8nn_status model_reader_fail(struct loader* l) {
  return model_fail(l, q8nn_status_invalid_parameter, "malformed model file: %s", l->r.error);
}

/* ---- shared by the preparations ------------------------------------------------------------- */

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
