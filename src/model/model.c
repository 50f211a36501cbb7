/*
 * q8nn-model: loader, memory planner and executor of int8 TFLite models (see q8nn-model.h).
 *
 * Load = parse (bounds-checked reader, flatbuffer.c) -> tensors and operators -> lifetimes ->
 * greedy arena plan -> one arena -> per operator: validate shapes/types/options, create the q8nn
 * operator or fill the portable operator's params, set up with arena pointers. Run = copy bound
 * inputs in, run every operator in order, copy bound outputs out: no allocation.
 *
 * TFLite schema field ids used here (schema.fbs): Model{version 0, operator_codes 1, subgraphs 2,
 * description 3, buffers 4}; OperatorCode{deprecated_builtin_code 0 (int8), custom_code 1,
 * version 2, builtin_code 3 (int32)}; SubGraph{tensors 0, inputs 1, outputs 2, operators 3,
 * name 4}; Tensor{shape 0, type 1, buffer 2, name 3, quantization 4, is_variable 5, sparsity 6};
 * QuantizationParameters{min 0, max 1, scale 2, zero_point 3 (int64), details_type 4, details 5,
 * quantized_dimension 6}; Operator{opcode_index 0, inputs 1, outputs 2, builtin_options_type 3,
 * builtin_options 4}; Buffer{data 0, offset 1, size 2}.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <q8nn-model.h>

#include "flatbuffer.h"
#include "model-ops.h"

/* BuiltinOperator numbers */
enum {
  OP_ADD = 0, OP_AVERAGE_POOL_2D = 1, OP_CONCATENATION = 2, OP_CONV_2D = 3, OP_DEPTHWISE_CONV_2D = 4,
  OP_DEQUANTIZE = 6, OP_FULLY_CONNECTED = 9, OP_MAX_POOL_2D = 17, OP_MUL = 18, OP_RESHAPE = 22,
  OP_SOFTMAX = 25, OP_PAD = 34, OP_MEAN = 40, OP_SUB = 41, OP_SQUEEZE = 43, OP_PADV2 = 60, OP_QUANTIZE = 114,
  OP_LOGISTIC = 14, OP_RELU = 19, OP_RELU_N1_TO_1 = 20, OP_RELU6 = 21, OP_TANH = 28, OP_LEAKY_RELU = 98, OP_ELU = 111,
  OP_HARD_SWISH = 117, OP_RESIZE_BILINEAR = 23, OP_RESIZE_NEAREST_NEIGHBOR = 97, OP_TRANSPOSE_CONV = 67,
};
/* BuiltinOptions union types */
enum {
  OPT_CONV_2D = 1, OPT_DEPTHWISE_CONV_2D = 2, OPT_POOL_2D = 5, OPT_FULLY_CONNECTED = 8, OPT_SOFTMAX = 9,
  OPT_CONCATENATION = 10, OPT_ADD = 11, OPT_RESHAPE = 17, OPT_MUL = 21, OPT_PAD = 22, OPT_REDUCER = 27,
  OPT_SUB = 28, OPT_SQUEEZE = 30, OPT_LEAKY_RELU = 75, OPT_RESIZE_BILINEAR = 15, OPT_RESIZE_NEAREST_NEIGHBOR = 74,
  OPT_TRANSPOSE_CONV = 49,
};
/* ActivationFunctionType */
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_RELU_N1_TO_1 = 2, ACT_RELU6 = 3 };
/* Padding */
enum { PAD_SAME = 0, PAD_VALID = 1 };

static const char* builtin_name(int32_t code) {
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

enum kind {
  K_CONV, K_FC, K_ADD, K_AVERAGE_POOL, K_MAX_POOL, K_COPY, K_SOFTMAX, K_MUL, K_SUB, K_PAD, K_MEAN,
  K_CONCAT, K_QUANTIZE, K_DEQUANTIZE, K_UNARY, K_RESIZE, K_TRANSPOSE_CONV,
};

struct tensor {
  int type;
  size_t num_dims;
  size_t dims[Q8NN_MODEL_MAX_DIMS];
  size_t elements, bytes;
  float scale;          /* first scale, 0 when not quantized */
  int32_t zero_point;   /* first zero point */
  struct fb_vector scales, zero_points;
  int32_t quantized_dimension;
  const uint8_t* constant; /* into the caller's file (valid during load only), NULL for activations */
  uint8_t* data;           /* arena memory, or the model's copy of a constant read at run time */
  int producer;            /* operator index, -1 = none */
  int first, last;         /* lifetime in operator indices; first = -1: not in the arena */
  size_t offset;
  char* name;
};

struct op {
  int32_t builtin;
  enum kind kind;
  size_t index;
  int32_t* inputs;
  size_t num_inputs, num_data_inputs; /* data inputs: read as activations (lifetime) */
  int32_t output;
  struct fb_table options;
  uint8_t options_type;
  q8nn_operator_t qop;
  const char* placement;
  uint64_t macs, last_ns;
  size_t copy_bytes;
  struct q8nn_model_pool_params pool;
  struct q8nn_model_binary_params binary;
  struct q8nn_model_mean_params mean;
  size_t pad_rank, pad_in[Q8NN_MODEL_MAX_DIMS], pad_before[Q8NN_MODEL_MAX_DIMS], pad_out[Q8NN_MODEL_MAX_DIMS];
  int8_t pad_value;
  int8_t* table;                 /* MUL/SUB by a constant: 256 outputs per constant value */
  size_t table_values;
  int32_t table_input;           /* tensor the table reads: inputs[0], or a fused producer's input */
  int32_t fused_from;            /* op whose table this one's composes (-1: none) */
  int32_t fused_into;            /* op that does this one's work (-1: none): this op does nothing */
  int requantize;                /* QUANTIZE: 8-bit input (requantize), not float */
  int32_t rq_multiplier;
  int rq_shift;
};

struct q8nn_model {
  const uint8_t* file;   /* the caller's bytes, during load only */
  size_t file_size;
  uint8_t* constants;    /* copies of the constant tensors operators read at run time */
  struct tensor* tensors;
  size_t num_tensors;
  struct op* ops;
  size_t num_ops;
  int32_t* inputs;
  int32_t* outputs;
  size_t num_inputs, num_outputs;
  const void** bound_inputs;
  void** bound_outputs;
  uint8_t* arena;       /* ARENA_ALIGNMENT-aligned, inside arena_block */
  uint8_t* arena_block; /* what calloc returned (freed) */
  size_t arena_size;
  q8nn_backend_t backend;
  bool profile;
  q8nn_model_debug_callback debug;
  void* debug_context;
  enum q8nn_model_numerics numerics;
};

struct loader {
  struct q8nn_model* m;
  struct fb_reader r;
  char* error;
  size_t error_size;
};

#define ARENA_ALIGNMENT 64
#define MAX_TENSOR_BYTES ((size_t) 1 << 31)

static enum q8nn_status fail(struct loader* l, enum q8nn_status status, const char* format, ...) {
  if (l->error != NULL && l->error_size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(l->error, l->error_size, format, args);
    va_end(args);
  }
  return status;
}

static enum q8nn_status op_fail(struct loader* l, const struct op* op, enum q8nn_status status, const char* format, ...) {
  char detail[256];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return fail(l, status, "operator %zu (%s): %s", op->index, builtin_name(op->builtin), detail);
}

static enum q8nn_status reader_fail(struct loader* l) {
  return fail(l, q8nn_status_invalid_parameter, "malformed model file: %s", l->r.error);
}

static size_t type_size(int type) {
  switch (type) {
    case q8nn_model_type_float32: return 4;
    case q8nn_model_type_int32: return 4;
    case q8nn_model_type_uint8: return 1;
    case q8nn_model_type_int64: return 8;
    case q8nn_model_type_int8: return 1;
    default: return 0;
  }
}

/* ---- parsing ------------------------------------------------------------------------------- */

static enum q8nn_status parse_tensor(struct loader* l, size_t index, const struct fb_table* t,
                                     const struct fb_vector* buffers) {
  struct fb_reader* r = &l->r;
  struct tensor* tensor = &l->m->tensors[index];
  tensor->producer = -1;
  tensor->first = -1;
  tensor->last = -1;
  const struct fb_vector shape = fb_vector_field(r, t, 0, 4);
  tensor->type = fb_u8(r, t, 1, 0);
  const uint32_t buffer = fb_u32(r, t, 2, 0);
  const struct fb_vector name = fb_vector_field(r, t, 3, 1);
  const struct fb_table quant = fb_table_field(r, t, 4);
  if (fb_failed(r)) return reader_fail(l);
  const size_t name_length = name.length < 255 ? name.length : 255;
  tensor->name = (char*) calloc(name_length + 1, 1);
  if (tensor->name == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  if (name_length != 0) memcpy(tensor->name, fb_vec_bytes(r, &name), name_length);
  const size_t elem = type_size(tensor->type);
  if (elem == 0) {
    return fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): type %d not supported", index,
                tensor->name, tensor->type);
  }
  if (shape.length > Q8NN_MODEL_MAX_DIMS) {
    return fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): rank %zu above %d", index,
                tensor->name, shape.length, Q8NN_MODEL_MAX_DIMS);
  }
  tensor->num_dims = shape.length;
  size_t elements = 1;
  for (size_t i = 0; i < shape.length; i++) {
    const int32_t d = fb_vec_i32(r, &shape, i);
    if (d <= 0) {
      return fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): dimension %zu is %d", index,
                  tensor->name, i, (int) d);
    }
    tensor->dims[i] = (size_t) d;
    if (elements > MAX_TENSOR_BYTES / (size_t) d) {
      return fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): too large", index, tensor->name);
    }
    elements *= (size_t) d;
  }
  if (elements > MAX_TENSOR_BYTES / elem) {
    return fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): too large", index, tensor->name);
  }
  tensor->elements = elements;
  tensor->bytes = elements * elem;
  /* constant data */
  if (buffer >= buffers->length) {
    return fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): buffer %u out of range (%zu buffers)",
                index, tensor->name, buffer, buffers->length);
  }
  const struct fb_table b = fb_vec_table(r, buffers, buffer);
  const struct fb_vector data = fb_vector_field(r, &b, 0, 1);
  const uint64_t offset = fb_u64(r, &b, 1, 0), size = fb_u64(r, &b, 2, 0);
  if (fb_failed(r)) return reader_fail(l);
  const uint8_t* bytes = NULL;
  size_t length = 0;
  if (data.length != 0) {
    bytes = fb_vec_bytes(r, &data);
    length = data.length;
  } else if (offset > 1) {
    if (offset > l->m->file_size || size > l->m->file_size - offset) {
      return fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): buffer data outside the file", index,
                  tensor->name);
    }
    bytes = l->m->file + offset;
    length = (size_t) size;
  }
  if (length != 0) {
    if (length != tensor->bytes) {
      return fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): %zu bytes of data for %zu-byte tensor",
                  index, tensor->name, length, tensor->bytes);
    }
    tensor->constant = bytes;
  }
  /* quantization */
  if (quant.pos != 0) {
    tensor->scales = fb_vector_field(r, &quant, 2, 4);
    tensor->zero_points = fb_vector_field(r, &quant, 3, 8);
    tensor->quantized_dimension = fb_i32(r, &quant, 6, 0);
    if (fb_failed(r)) return reader_fail(l);
    if (tensor->scales.length != 0) tensor->scale = fb_vec_f32(r, &tensor->scales, 0);
    if (tensor->zero_points.length != 0) {
      const int64_t zp = fb_vec_i64(r, &tensor->zero_points, 0);
      if (zp < INT32_MIN || zp > INT32_MAX) {
        return fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): zero point out of range", index, tensor->name);
      }
      tensor->zero_point = (int32_t) zp;
    }
  }
  return q8nn_status_success;
}

static int is_int8_activation(const struct tensor* t) {
  return t->type == q8nn_model_type_int8 && t->scales.length == 1 && isfinite(t->scale) && t->scale > 0.0f &&
         t->zero_point >= -128 && t->zero_point <= 127;
}

/* ---- per-operator preparation ------------------------------------------------------------- */

static struct tensor* in_tensor(struct loader* l, const struct op* op, size_t i) {
  return i < op->num_inputs && op->inputs[i] >= 0 ? &l->m->tensors[op->inputs[i]] : NULL;
}

/* TFLite CalculateActivationRangeQuantized for int8. */
static int activation_range(int activation, const struct tensor* out, int32_t* min, int32_t* max) {
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

static int expect_options(const struct op* op, uint8_t type) {
  return op->options.pos == 0 || op->options_type == type;
}

/* Every operator the backend supports() is set to it before setup; returns 1 when it was. */
static int try_backend(const struct q8nn_model* m, struct op* op) {
  return m->backend != NULL && q8nn_backend_supports(m->backend, op->qop) &&
         q8nn_operator_set_backend(op->qop, m->backend) == q8nn_status_success;
}

/* After a setup: when it failed on the backend (VTA: shapes beyond its instruction fields), the
   operator goes back to the CPU and returns 1: set it up again. */
static int retry_on_cpu(struct op* op, enum q8nn_status status, int* on_backend) {
  if (status == q8nn_status_success || !*on_backend) return 0;
  *on_backend = 0;
  return q8nn_operator_set_backend(op->qop, NULL) == q8nn_status_success;
}

/* Where the operator really runs once set up: the backend, or "cpu" when it declined it, its
   setup failed, or its setup left the operator on the CPU (q8nn_operator_get_backend). */
static const char* placement_of(const struct op* op) {
  return q8nn_backend_name(q8nn_operator_get_backend(op->qop));
}

/* TFLite's output size and SAME padding for one spatial dimension. */
static int conv_dim(int padding, size_t in, size_t k, size_t stride, size_t dilation, size_t* out,
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

static int shape_is(const struct tensor* t, size_t n, const size_t* dims) {
  if (t->num_dims != n) return 0;
  for (size_t i = 0; i < n; i++) {
    if (t->dims[i] != dims[i]) return 0;
  }
  return 1;
}

static enum q8nn_status read_scales(struct loader* l, const struct op* op, const struct tensor* filter,
                                    size_t channels, int quantized_dimension, float** scales_out, uint32_t* flags) {
  const size_t n = filter->scales.length;
  if (n != 1 && !(n == channels && filter->quantized_dimension == quantized_dimension)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "filter has %zu scales for %zu channels", n, channels);
  }
  float* scales = (float*) malloc(n * sizeof(float));
  if (scales == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < n; i++) scales[i] = fb_vec_f32(&l->r, &filter->scales, i);
  for (size_t i = 0; i < filter->zero_points.length; i++) {
    if (fb_vec_i64(&l->r, &filter->zero_points, i) != 0) {
      free(scales);
      return op_fail(l, op, q8nn_status_unsupported_parameter, "filter zero point is not 0");
    }
  }
  *flags = n == 1 ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  *scales_out = scales;
  return q8nn_status_success;
}

static enum q8nn_status read_bias(struct loader* l, const struct op* op, const struct tensor* bias, size_t channels,
                                  int32_t** bias_out) {
  *bias_out = NULL;
  if (bias == NULL) return q8nn_status_success;
  if (bias->type != q8nn_model_type_int32 || bias->constant == NULL || bias->elements != channels) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "bias must be a constant int32 tensor of %zu values",
                   channels);
  }
  int32_t* b = (int32_t*) malloc(channels * sizeof(int32_t));
  if (b == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  memcpy(b, bias->constant, channels * sizeof(int32_t)); /* little-endian host */
  *bias_out = b;
  return q8nn_status_success;
}

static enum q8nn_status prepare_conv(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  const int depthwise = op->builtin == OP_DEPTHWISE_CONV_2D;
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* filter = in_tensor(l, op, 1);
  struct tensor* bias = in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, depthwise ? OPT_DEPTHWISE_CONV_2D : OPT_CONV_2D)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  }
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t stride_w = fb_i32(r, &op->options, 1, 0), stride_h = fb_i32(r, &op->options, 2, 0);
  const int activation = fb_u8(r, &op->options, depthwise ? 4 : 3, 0);
  const int32_t dil_w = fb_i32(r, &op->options, depthwise ? 5 : 4, 1);
  const int32_t dil_h = fb_i32(r, &op->options, depthwise ? 6 : 5, 1);
  if (fb_failed(r)) return reader_fail(l);
  if (in == NULL || filter == NULL || !is_int8_activation(in) || !is_int8_activation(out) || in->num_dims != 4 ||
      out->num_dims != 4 || filter->num_dims != 4 || filter->type != q8nn_model_type_int8 || filter->constant == NULL) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 4D input/output with one scale and a constant int8 4D filter");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || stride_w <= 0 || stride_h <= 0 || dil_w <= 0 || dil_h <= 0 ||
      stride_w > 65536 || stride_h > 65536 || dil_w > 65536 || dil_h > 65536) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d, dilation %dx%d", padding,
                   (int) stride_h, (int) stride_w, (int) dil_h, (int) dil_w);
  }
  int32_t out_min, out_max;
  if (!activation_range(activation, out, &out_min, &out_max)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  const size_t N = in->dims[0], H = in->dims[1], W = in->dims[2], C = in->dims[3];
  const size_t KH = filter->dims[1], KW = filter->dims[2];
  size_t OC, groups = 1, group_in = C, dm = 1;
  if (depthwise) {
    OC = filter->dims[3];
    if (filter->dims[0] != 1 || OC % C != 0) {
      return op_fail(l, op, q8nn_status_unsupported_parameter, "filter shape does not match %zu input channels", C);
    }
    dm = OC / C;
  } else {
    OC = filter->dims[0];
    group_in = filter->dims[3];
    if (C % group_in != 0 || OC % (C / group_in) != 0) {
      return op_fail(l, op, q8nn_status_unsupported_parameter, "filter input depth %zu does not divide %zu channels",
                     group_in, C);
    }
    groups = C / group_in;
  }
  size_t OH, OW;
  uint32_t pt, pb, pl, pr;
  if (!conv_dim(padding, H, KH, (size_t) stride_h, (size_t) dil_h, &OH, &pt, &pb) ||
      !conv_dim(padding, W, KW, (size_t) stride_w, (size_t) dil_w, &OW, &pl, &pr)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "kernel larger than the input");
  }
  const size_t expected[4] = {N, OH, OW, OC};
  if (!shape_is(out, 4, expected)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "output shape is not [%zu, %zu, %zu, %zu]", N, OH, OW, OC);
  }
  float* scales = NULL;
  int32_t* b = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_scales(l, op, filter, OC, depthwise ? 3 : 0, &scales, &flags);
  if (status != q8nn_status_success) return status;
  status = read_bias(l, op, bias, OC, &b);
  if (status != q8nn_status_success) {
    free(scales);
    return status;
  }
  const struct q8nn_conv_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .kernel_scale = scales,
      .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
      .output_max = (int8_t) out_max,
      .rounding = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double};
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc desc = {
        .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
        .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
        .stride_width = (uint32_t) stride_w, .dilation_height = (uint32_t) dil_h, .dilation_width = (uint32_t) dil_w,
        .channels = C, .depth_multiplier = dm};
    status = q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  } else {
    const struct q8nn_convolution2d_desc desc = {
        .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
        .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
        .stride_width = (uint32_t) stride_w, .dilation_height = (uint32_t) dil_h, .dilation_width = (uint32_t) dil_w,
        .groups = (uint32_t) groups, .group_input_channels = group_in, .group_output_channels = OC / groups};
    status = q8nn_create_convolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  }
  free(scales);
  free(b);
  if (status != q8nn_status_success) {
    return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
  }
  int on_backend = try_backend(l->m, op);
  size_t oh = 0, ow = 0;
  do {
    status = depthwise
        ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op->qop, N, H, W, (const int8_t*) in->data, C,
                                                     (int8_t*) out->data, OC, &oh, &ow)
        : q8nn_setup_convolution2d_nhwc_s8(op->qop, N, H, W, (const int8_t*) in->data, C, (int8_t*) out->data, OC,
                                           &oh, &ow);
  } while (retry_on_cpu(op, status, &on_backend));
  op->placement = placement_of(op);
  if (status != q8nn_status_success || oh != OH || ow != OW) {
    return op_fail(l, op, status != q8nn_status_success ? status : q8nn_status_invalid_parameter,
                   "q8nn setup failed (%s)", q8nn_status_string(status));
  }
  op->macs = (uint64_t) N * OH * OW * OC * KH * KW * (depthwise ? 1 : group_in);
  return q8nn_status_success;
}

/* TRANSPOSE_CONV (inputs: output shape, filter [OC][KH][KW][IC], input, optional bias): q8nn's
   transposed convolution. TFLite pads as a convolution from the output back to the input would
   (ComputePaddingHeightWidth on the output size) and uses the top / left padding only; the output
   size is the shape tensor's. Here the bottom / right crop and the adjustment follow from that
   size: full = (in - 1) * stride + kernel, crop = full - pad_top - out, an adjustment where it is
   negative. */
static enum q8nn_status prepare_transpose_conv(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* shape = in_tensor(l, op, 0);
  struct tensor* filter = in_tensor(l, op, 1);
  struct tensor* in = in_tensor(l, op, 2);
  struct tensor* bias = op->num_inputs > 3 ? in_tensor(l, op, 3) : NULL;
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_TRANSPOSE_CONV)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  }
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t stride_w = fb_i32(r, &op->options, 1, 0), stride_h = fb_i32(r, &op->options, 2, 0);
  const int activation = fb_u8(r, &op->options, 3, 0);
  if (fb_failed(r)) return reader_fail(l);
  if (in == NULL || filter == NULL || shape == NULL || !is_int8_activation(in) || !is_int8_activation(out) ||
      in->num_dims != 4 || out->num_dims != 4 || filter->num_dims != 4 || filter->type != q8nn_model_type_int8 ||
      filter->constant == NULL || shape->constant == NULL) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 4D input/output, a constant int8 4D filter and a constant output shape");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || stride_w <= 0 || stride_h <= 0 || stride_w > 65536 ||
      stride_h > 65536) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d", padding, (int) stride_h,
                   (int) stride_w);
  }
  int32_t out_min, out_max;
  if (!activation_range(activation, out, &out_min, &out_max)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  const size_t N = in->dims[0], H = in->dims[1], W = in->dims[2], C = in->dims[3];
  const size_t OC = filter->dims[0], KH = filter->dims[1], KW = filter->dims[2];
  if (filter->dims[3] != C || out->dims[0] != N || out->dims[3] != OC || KH > 65536 || KW > 65536) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "filter or output shape does not match the input");
  }
  const size_t OH = out->dims[1], OW = out->dims[2];
  /* ComputePaddingHeightWidth with the output as the convolution's input */
  size_t unused;
  uint32_t pt, pb_unused, pl, pr_unused;
  if (!conv_dim(padding, OH, KH, (size_t) stride_h, 1, &unused, &pt, &pb_unused) ||
      !conv_dim(padding, OW, KW, (size_t) stride_w, 1, &unused, &pl, &pr_unused)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "kernel larger than the output");
  }
  const int64_t crop_h = (int64_t) ((H - 1) * (size_t) stride_h + KH) - (int64_t) pt - (int64_t) OH;
  const int64_t crop_w = (int64_t) ((W - 1) * (size_t) stride_w + KW) - (int64_t) pl - (int64_t) OW;
  const uint32_t pb = crop_h > 0 ? (uint32_t) crop_h : 0, pr = crop_w > 0 ? (uint32_t) crop_w : 0;
  const int64_t adj_h = crop_h < 0 ? -crop_h : 0, adj_w = crop_w < 0 ? -crop_w : 0;
  if (adj_h >= stride_h || adj_w >= stride_w) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "output %zux%zu beyond what the input reaches", OH, OW);
  }
  float* scales = NULL;
  int32_t* b = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_scales(l, op, filter, OC, 0, &scales, &flags);
  if (status != q8nn_status_success) return status;
  status = read_bias(l, op, bias, OC, &b);
  if (status != q8nn_status_success) {
    free(scales);
    return status;
  }
  const struct q8nn_conv_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .kernel_scale = scales,
      .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
      .output_max = (int8_t) out_max,
      .rounding = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double};
  const struct q8nn_convolution2d_desc desc = {
      .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
      .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
      .stride_width = (uint32_t) stride_w, .dilation_height = 1, .dilation_width = 1, .groups = 1,
      .group_input_channels = C, .group_output_channels = OC};
  status = q8nn_create_deconvolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  free(scales);
  free(b);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
  size_t oh = 0, ow = 0;
  status = q8nn_setup_deconvolution2d_nhwc_s8(op->qop, N, H, W, (uint32_t) adj_h, (uint32_t) adj_w,
                                              (const int8_t*) in->data, C, (int8_t*) out->data, OC, &oh, &ow);
  op->placement = placement_of(op);
  if (status != q8nn_status_success || oh != OH || ow != OW) {
    return op_fail(l, op, status != q8nn_status_success ? status : q8nn_status_invalid_parameter,
                   "q8nn setup failed (%s)", q8nn_status_string(status));
  }
  op->macs = (uint64_t) N * H * W * OC * KH * KW * C;
  return q8nn_status_success;
}

static enum q8nn_status prepare_fully_connected(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* filter = in_tensor(l, op, 1);
  struct tensor* bias = in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_FULLY_CONNECTED)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  }
  const int activation = fb_u8(r, &op->options, 0, 0);
  const int weights_format = fb_u8(r, &op->options, 1, 0);
  if (fb_failed(r)) return reader_fail(l);
  if (in == NULL || filter == NULL || !is_int8_activation(in) || !is_int8_activation(out) || filter->num_dims != 2 ||
      filter->type != q8nn_model_type_int8 || filter->constant == NULL || weights_format != 0) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 input/output with one scale and a constant int8 [units, depth] filter");
  }
  const size_t units = filter->dims[0], depth = filter->dims[1];
  if (in->elements % depth != 0 || out->elements != in->elements / depth * units || out->num_dims == 0 ||
      out->dims[out->num_dims - 1] != units) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "input/output shapes do not match the [%zu, %zu] filter",
                   units, depth);
  }
  const size_t rows = in->elements / depth;
  int32_t out_min, out_max;
  if (!activation_range(activation, out, &out_min, &out_max)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  /* Per-tensor or per-channel (one scale per unit, quantized dimension 0) symmetric filter, as
     TFLite Micro's CalculateOpDataFullyConnected takes them. */
  float* scales = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_scales(l, op, filter, units, 0, &scales, &flags);
  if (status != q8nn_status_success) return status;
  for (size_t i = 0; i < filter->scales.length; i++) {
    if (!isfinite(scales[i]) || scales[i] <= 0.0f) {
      const double bad = (double) scales[i]; /* read before the free: the message names it */
      free(scales);
      return op_fail(l, op, q8nn_status_unsupported_parameter, "filter scale %zu is %g", i, bad);
    }
  }
  /* Per tensor: TFLite GetQuantizedConvolutionMultipler (the scale product is a float, then
     double), given to q8nn as the multiplier. Per channel: PopulateConvolutionQuantizationParams'
     double product per unit, which is how q8nn derives it from the float scales (as for CONV_2D);
     reference_integer_ops::FullyConnectedPerChannel is then a 1x1 convolution. */
  int32_t multiplier = 0, shift32 = 0;
  struct q8nn_conv_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .kernel_scale = scales,
      .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
      .output_max = (int8_t) out_max, .rounding = q8nn_rounding_double};
  if (l->m->numerics == q8nn_model_numerics_xnnpack_fp32) {
    quant.rounding = q8nn_rounding_fp32; /* XNNPACK: the fp32 scale from the float scales */
  } else if (flags & Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) {
    const double real = (double) (in->scale * scales[0]) / (double) out->scale;
    int shift;
    if (!q8nn_model_quantize_multiplier(real, &multiplier, &shift)) {
      free(scales);
      return op_fail(l, op, q8nn_status_unsupported_parameter, "output multiplier %g out of range", real);
    }
    shift32 = shift;
    quant.kernel_scale = NULL;
    quant.output_multiplier = &multiplier;
    quant.output_shift = &shift32;
  }
  int32_t* b = NULL;
  status = read_bias(l, op, bias, units, &b);
  if (status != q8nn_status_success) {
    free(scales);
    return status;
  }
  status = q8nn_create_fully_connected_nc_s8(depth, units, &quant, (const int8_t*) filter->constant, b, flags,
                                             &op->qop);
  free(scales);
  free(b);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
  int on_backend = try_backend(l->m, op);
  do {
    status = q8nn_setup_fully_connected_nc_s8(op->qop, rows, (const int8_t*) in->data, depth, (int8_t*) out->data,
                                              units);
  } while (retry_on_cpu(op, status, &on_backend));
  op->placement = placement_of(op);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn setup failed (%s)", q8nn_status_string(status));
  op->macs = (uint64_t) rows * units * depth;
  return q8nn_status_success;
}

/* MUL or SUB by a constant b that is a scalar or varies along the innermost dimension only
   (preprocessing layers: x * s - t, per channel), with a of the output's shape: every output is a
   function of (a, b[i % nb]), so a table of 256 results per b value built from the same element
   arithmetic replaces the fixed-point work (exact by construction). Returns nb, or 0 when the op
   is not of that form. Shapes only: callable before the operator is prepared. */
static size_t table_values(const struct q8nn_model* m, const struct op* op) {
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

static enum q8nn_status prepare_binary(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* a = in_tensor(l, op, 0);
  struct tensor* b = in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  const uint8_t opt = op->builtin == OP_ADD ? OPT_ADD : op->builtin == OP_MUL ? OPT_MUL : OPT_SUB;
  if (!expect_options(op, opt)) return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  const int activation = fb_u8(r, &op->options, 0, 0);
  if (fb_failed(r)) return reader_fail(l);
  if (a == NULL || b == NULL || !is_int8_activation(a) || !is_int8_activation(b) || !is_int8_activation(out)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 inputs and output with one scale each");
  }
  struct q8nn_model_binary_params* p = &op->binary;
  if (!q8nn_model_binary_broadcast(a->num_dims, a->dims, b->num_dims, b->dims, out->num_dims, out->dims, p)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "input shapes do not broadcast to the output shape");
  }
  int32_t out_min, out_max;
  if (!activation_range(activation, out, &out_min, &out_max)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  if (op->builtin == OP_ADD) {
    const struct q8nn_add_quantization quant = {
        .a_zero_point = a->zero_point, .a_scale = a->scale, .b_zero_point = b->zero_point, .b_scale = b->scale,
        .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
        .output_max = (int8_t) out_max};
    const uint32_t flags = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? Q8NN_FLAG_XNNPACK_ADD : 0;
    enum q8nn_status status = q8nn_create_add_nd_s8(&quant, flags, &op->qop);
    if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
    int on_backend = try_backend(l->m, op);
    do {
      status = q8nn_setup_add_nd_s8(op->qop, a->num_dims, a->dims, b->num_dims, b->dims, (const int8_t*) a->data,
                                    (const int8_t*) b->data, (int8_t*) out->data);
    } while (retry_on_cpu(op, status, &on_backend));
    op->placement = placement_of(op);
    if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn setup failed (%s)", q8nn_status_string(status));
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
      return op_fail(l, op, q8nn_status_unsupported_parameter, "output multiplier %g out of range", real);
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
      return op_fail(l, op, q8nn_status_unsupported_parameter, "scales whose multipliers exceed 1");
    }
    p->a_shift = sa;
    p->b_shift = sb;
    p->output_shift = so;
  }
  if (table_values(l->m, op) != 0) {
    op->table_values = table_values(l->m, op);
    op->table = (int8_t*) malloc(op->table_values * 256);
    if (op->table == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
    q8nn_model_binary_table(p, op->builtin == OP_MUL, (const int8_t*) b->data, b->elements, op->table);
  }
  if (op->fused_from >= 0) {
    /* compose with the fused producer's table: this op's input byte is the producer's output */
    struct op* producer = &l->m->ops[op->fused_from];
    if (op->table == NULL || producer->table == NULL) {
      return op_fail(l, op, q8nn_status_invalid_parameter, "internal error: fused lookup without a table");
    }
    const size_t nb = op->table_values > producer->table_values ? op->table_values : producer->table_values;
    int8_t* composed = (int8_t*) malloc(nb * 256);
    if (composed == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
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
  return q8nn_status_success;
}

static enum q8nn_status prepare_pool(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_POOL_2D)) return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t sw = fb_i32(r, &op->options, 1, 0), sh = fb_i32(r, &op->options, 2, 0);
  const int32_t fw = fb_i32(r, &op->options, 3, 0), fh = fb_i32(r, &op->options, 4, 0);
  const int activation = fb_u8(r, &op->options, 5, 0);
  if (fb_failed(r)) return reader_fail(l);
  if (in == NULL || !is_int8_activation(in) || !is_int8_activation(out) || in->num_dims != 4 || out->num_dims != 4) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 4D input and output");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || sw <= 0 || sh <= 0 || fw <= 0 || fh <= 0 || sw > 65536 ||
      sh > 65536 || fw > 65536 || fh > 65536) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d, filter %dx%d", padding,
                   (int) sh, (int) sw, (int) fh, (int) fw);
  }
  struct q8nn_model_pool_params* p = &op->pool;
  p->batch = in->dims[0];
  p->input_height = in->dims[1];
  p->input_width = in->dims[2];
  p->channels = in->dims[3];
  p->filter_height = (size_t) fh;
  p->filter_width = (size_t) fw;
  p->stride_height = (size_t) sh;
  p->stride_width = (size_t) sw;
  uint32_t pt, pb, pl, pr;
  if (!conv_dim(padding, p->input_height, p->filter_height, p->stride_height, 1, &p->output_height, &pt, &pb) ||
      !conv_dim(padding, p->input_width, p->filter_width, p->stride_width, 1, &p->output_width, &pl, &pr)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "filter larger than the input");
  }
  p->padding_top = pt;
  p->padding_left = pl;
  const size_t expected[4] = {p->batch, p->output_height, p->output_width, p->channels};
  if (!shape_is(out, 4, expected)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "output shape is not [%zu, %zu, %zu, %zu]", expected[0],
                   expected[1], expected[2], expected[3]);
  }
  if (!activation_range(activation, out, &p->output_min, &p->output_max)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  /* q8nn's pooling operator (TFLite's MaxPool / AveragePool, threads over output rows). Every
     window overlaps the image: TFLite's padding is below the filter size and the last window
     starts inside the input. */
  const struct q8nn_pooling2d_desc desc = {pt, pr, pb, pl, (uint32_t) fh, (uint32_t) fw, (uint32_t) sh, (uint32_t) sw,
                                           p->channels};
  enum q8nn_status status =
      op->kind == K_AVERAGE_POOL
          ? q8nn_create_average_pooling2d_nhwc_s8(&desc, (int8_t) p->output_min, (int8_t) p->output_max, 0, &op->qop)
          : q8nn_create_max_pooling2d_nhwc_s8(&desc, (int8_t) p->output_min, (int8_t) p->output_max, 0, &op->qop);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
  size_t oh = 0, ow = 0;
  status = q8nn_setup_pooling2d_nhwc_s8(op->qop, p->batch, p->input_height, p->input_width, (const int8_t*) in->data,
                                        p->channels, (int8_t*) out->data, p->channels, &oh, &ow);
  op->placement = placement_of(op);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn setup failed (%s)", q8nn_status_string(status));
  if (oh != p->output_height || ow != p->output_width) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "pooling output %zux%zu, TFLite's %zux%zu", oh, ow,
                   p->output_height, p->output_width);
  }
  return q8nn_status_success;
}

static enum q8nn_status prepare_softmax(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_SOFTMAX)) return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  const float beta = fb_f32(&l->r, &op->options, 0, 0.0f);
  if (fb_failed(&l->r)) return reader_fail(l);
  if (in == NULL || !is_int8_activation(in) || !is_int8_activation(out) || in->num_dims == 0 ||
      !shape_is(out, in->num_dims, in->dims)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output of the same shape");
  }
  if (out->zero_point != -128 || fabsf(out->scale - 1.0f / 256) > 0.001f / 256) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "int8 output must have zero point -128 and scale 1/256");
  }
  /* q8nn's softmax over the last dimension */
  const size_t depth = in->dims[in->num_dims - 1], rows = in->elements / depth;
  enum q8nn_status status = q8nn_create_softmax_nc_s8(in->scale, beta, 0, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_softmax_nc_s8(op->qop, rows, depth, (const int8_t*) in->data, depth, (int8_t*) out->data,
                                      depth);
  }
  op->placement = placement_of(op);
  if (status != q8nn_status_success) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "beta %g with input scale %g: %s", (double) beta,
                   (double) in->scale, q8nn_status_string(status));
  }
  return q8nn_status_success;
}

/* RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU and ELU: q8nn's unary
   elementwise operator (its table is TFLite's kernel on every input byte, or XNNPACK's with the
   XNNPACK numerics) over the tensor as one row. */
static enum q8nn_status prepare_unary(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || !is_int8_activation(in) || !is_int8_activation(out) || in->elements != out->elements) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output of one size");
  }
  struct q8nn_unary_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .output_zero_point = out->zero_point,
      .output_scale = out->scale, .output_min = -128, .output_max = 127, .alpha = 1.0f,
      .rounding = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double};
  enum q8nn_unary_operation operation = q8nn_unary_clamp;
  int32_t lo = -128, hi = 127;
  switch (op->builtin) {
    case OP_RELU: activation_range(ACT_RELU, out, &lo, &hi); break;
    case OP_RELU6: activation_range(ACT_RELU6, out, &lo, &hi); break;
    case OP_RELU_N1_TO_1: activation_range(ACT_RELU_N1_TO_1, out, &lo, &hi); break;
    case OP_LOGISTIC: operation = q8nn_unary_sigmoid; break;
    case OP_TANH: operation = q8nn_unary_tanh; break;
    case OP_HARD_SWISH: operation = q8nn_unary_hardswish; break;
    case OP_ELU: operation = q8nn_unary_elu; break;
    default:
      if (!expect_options(op, OPT_LEAKY_RELU)) {
        return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
      }
      operation = q8nn_unary_leaky_relu;
      quant.alpha = fb_f32(&l->r, &op->options, 0, 0.0f);
      if (fb_failed(&l->r)) return reader_fail(l);
      break;
  }
  if (lo > hi) return op_fail(l, op, q8nn_status_unsupported_parameter, "empty activation range");
  quant.output_min = (int8_t) lo;
  quant.output_max = (int8_t) hi;
  enum q8nn_status status = q8nn_create_unary_elementwise_nc_s8(operation, &quant, 0, &op->qop);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn create failed (%s)", q8nn_status_string(status));
  status = q8nn_setup_unary_elementwise_nc_s8(op->qop, 1, in->elements, (const int8_t*) in->data, in->elements,
                                              (int8_t*) out->data, out->elements);
  op->placement = placement_of(op);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn setup failed (%s)", q8nn_status_string(status));
  return q8nn_status_success;
}

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: q8nn's resize (TFLite's int8 kernels); the size
   input must be constant (the output tensor's shape says the same). */
static enum q8nn_status prepare_resize(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* size = in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  const int bilinear = op->builtin == OP_RESIZE_BILINEAR;
  if (op->options.pos != 0 && !expect_options(op, bilinear ? OPT_RESIZE_BILINEAR : OPT_RESIZE_NEAREST_NEIGHBOR)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  }
  /* ResizeBilinearOptions: align_corners 2, half_pixel_centers 3; ResizeNearestNeighborOptions: 0, 1 */
  const int align_corners = fb_u8(&l->r, &op->options, bilinear ? 2 : 0, 0);
  const int half_pixel_centers = fb_u8(&l->r, &op->options, bilinear ? 3 : 1, 0);
  if (fb_failed(&l->r)) return reader_fail(l);
  if (in == NULL || size == NULL || !is_int8_activation(in) || !is_int8_activation(out) || in->num_dims != 4 ||
      out->num_dims != 4 || in->scale != out->scale || in->zero_point != out->zero_point) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs 4D int8 input and output of one quantization");
  }
  if (size->type != q8nn_model_type_int32 || size->elements != 2 || size->constant == NULL) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs a constant int32 [2] size");
  }
  int32_t hw[2];
  memcpy(hw, size->constant, sizeof(hw));
  if (hw[0] <= 0 || hw[1] <= 0 || out->dims[0] != in->dims[0] || out->dims[1] != (size_t) hw[0] ||
      out->dims[2] != (size_t) hw[1] || out->dims[3] != in->dims[3]) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "output shape does not match the size [%d, %d]",
                   (int) hw[0], (int) hw[1]);
  }
  const uint32_t flags = (align_corners ? Q8NN_FLAG_ALIGN_CORNERS : 0) | (half_pixel_centers ? Q8NN_FLAG_HALF_PIXEL_CENTERS : 0);
  enum q8nn_status status = q8nn_create_resize2d_nhwc_s8(bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest,
                                                         in->dims[3], (size_t) hw[0], (size_t) hw[1], flags, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_resize2d_nhwc_s8(op->qop, in->dims[0], in->dims[1], in->dims[2], (const int8_t*) in->data,
                                         in->dims[3], (int8_t*) out->data, out->dims[3]);
  }
  op->placement = placement_of(op);
  if (status != q8nn_status_success) return op_fail(l, op, status, "q8nn resize failed (%s)", q8nn_status_string(status));
  return q8nn_status_success;
}

static enum q8nn_status prepare_copy(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || in->type != out->type || in->bytes != out->bytes) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "input and output differ in type or size");
  }
  op->copy_bytes = in->bytes;
  return q8nn_status_success;
}

/* TFLite pad.cc (PAD and PADV2) for int8: the bytes are copied as they are; the pad value is the
   output zero point, or PADV2's constant_values, which must share the output's quantization. */
static enum q8nn_status prepare_pad(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* pads = in_tensor(l, op, 1);
  struct tensor* value = in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (op->num_inputs > (op->builtin == OP_PADV2 ? 3u : 2u)) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "%zu inputs", op->num_inputs);
  }
  if (value != NULL && (value->type != q8nn_model_type_int8 || value->constant == NULL || value->elements != 1 ||
                        value->scales.length != 1 || value->scale != out->scale ||
                        value->zero_point != out->zero_point)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "constant_values must be one constant int8 value with the output's scale and zero point");
  }
  if (in == NULL || pads == NULL || in->type != q8nn_model_type_int8 || out->type != q8nn_model_type_int8 ||
      pads->constant == NULL || pads->num_dims != 2 || pads->dims[0] != in->num_dims || pads->dims[1] != 2 ||
      (pads->type != q8nn_model_type_int32 && pads->type != q8nn_model_type_int64) || out->num_dims != in->num_dims ||
      out->zero_point < -128 || out->zero_point > 127) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 tensors and constant [rank, 2] paddings");
  }
  op->pad_rank = in->num_dims;
  for (size_t i = 0; i < in->num_dims; i++) {
    int64_t before, after;
    if (pads->type == q8nn_model_type_int32) {
      int32_t v[2];
      memcpy(v, pads->constant + i * 8, 8);
      before = v[0];
      after = v[1];
    } else {
      memcpy(&before, pads->constant + i * 16, 8);
      memcpy(&after, pads->constant + i * 16 + 8, 8);
    }
    if (before < 0 || after < 0 || (uint64_t) before + (uint64_t) after + in->dims[i] != out->dims[i]) {
      return op_fail(l, op, q8nn_status_invalid_parameter, "paddings of dimension %zu do not give the output shape", i);
    }
    op->pad_in[i] = in->dims[i];
    op->pad_out[i] = out->dims[i];
    op->pad_before[i] = (size_t) before;
  }
  op->pad_value = value != NULL ? (int8_t) value->constant[0] : (int8_t) out->zero_point;
  return q8nn_status_success;
}

/* TFLite reduce.cc EvalMeanReferenceOps for int8: the three paths of q8nn_model_mean_prepare.
   Not supported (refused here): a non-constant axis tensor, more than 4 axis values, and more than
   Q8NN_MODEL_MEAN_MAX_ELEMENTS elements per output (TFLite's int32 sums could overflow). */
static enum q8nn_status prepare_mean(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* axis = in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_REDUCER)) return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  const int keep_dims = fb_u8(&l->r, &op->options, 0, 0);
  if (fb_failed(&l->r)) return reader_fail(l);
  if (in == NULL || axis == NULL || !is_int8_activation(in) || !is_int8_activation(out)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output with one scale each");
  }
  if (axis->constant == NULL || axis->type != q8nn_model_type_int32 || axis->num_dims > 1 || axis->elements > 4) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "the axis must be a constant int32 tensor of at most 4 values");
  }
  int32_t axes[4];
  memcpy(axes, axis->constant, axis->elements * sizeof(int32_t));
  size_t shape[Q8NN_MODEL_MAX_DIMS];
  const size_t rank = q8nn_model_mean_output_shape(in->num_dims, in->dims, axes, axis->elements, keep_dims, shape);
  if (rank == SIZE_MAX) return op_fail(l, op, q8nn_status_invalid_parameter, "axis out of range for rank %zu", in->num_dims);
  if (!shape_is(out, rank, shape)) return op_fail(l, op, q8nn_status_invalid_parameter, "output shape mismatch");
  if (!q8nn_model_mean_prepare(in->num_dims, in->dims, axes, axis->elements, keep_dims, in->scale, in->zero_point,
                               out->scale, out->zero_point, &op->mean)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "more than %zu elements per output, or input/output scales out of range",
                   (size_t) Q8NN_MODEL_MEAN_MAX_ELEMENTS);
  }
  return q8nn_status_success;
}

static enum q8nn_status prepare_concat(struct loader* l, struct op* op) {
  struct tensor* out = &l->m->tensors[op->output];
  if (!expect_options(op, OPT_CONCATENATION)) return op_fail(l, op, q8nn_status_invalid_parameter, "wrong options type %u", op->options_type);
  int32_t axis = fb_i32(&l->r, &op->options, 0, 0);
  const int activation = fb_u8(&l->r, &op->options, 1, 0);
  if (fb_failed(&l->r)) return reader_fail(l);
  if (!is_int8_activation(out) || activation != ACT_NONE || op->num_inputs == 0) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 tensors and no fused activation");
  }
  if (axis < 0) axis += (int32_t) out->num_dims;
  if (axis < 0 || (size_t) axis >= out->num_dims) return op_fail(l, op, q8nn_status_invalid_parameter, "axis out of range");
  size_t sum = 0;
  for (size_t k = 0; k < op->num_inputs; k++) {
    struct tensor* t = in_tensor(l, op, k);
    if (t == NULL || !is_int8_activation(t) || t->scale != out->scale || t->zero_point != out->zero_point ||
        t->num_dims != out->num_dims) {
      return op_fail(l, op, q8nn_status_unsupported_parameter, "inputs must be int8 with the output's quantization");
    }
    for (size_t i = 0; i < out->num_dims; i++) {
      if (i != (size_t) axis && t->dims[i] != out->dims[i]) {
        return op_fail(l, op, q8nn_status_invalid_parameter, "input %zu shape mismatch", k);
      }
    }
    sum += t->dims[axis];
  }
  if (sum != out->dims[axis]) return op_fail(l, op, q8nn_status_invalid_parameter, "sizes along the axis do not add up");
  /* q8nn's concatenation (the bytes are copied: TFLite's int8 CONCATENATION requires one quantization) */
  size_t* sizes = (size_t*) malloc(op->num_inputs * sizeof(size_t));
  const int8_t** inputs = (const int8_t**) malloc(op->num_inputs * sizeof(int8_t*));
  if (sizes == NULL || inputs == NULL) {
    free(sizes);
    free(inputs);
    return fail(l, q8nn_status_out_of_memory, "out of memory");
  }
  for (size_t k = 0; k < op->num_inputs; k++) {
    const struct tensor* t = in_tensor(l, op, k);
    sizes[k] = t->dims[axis];
    inputs[k] = (const int8_t*) t->data;
  }
  enum q8nn_status status = q8nn_create_concatenate_nd_s8(op->num_inputs, NULL, 0, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_concatenate_nd_s8(op->qop, out->num_dims, out->dims, (size_t) axis, sizes, inputs,
                                          (int8_t*) out->data);
  }
  free(sizes);
  free(inputs);
  op->placement = placement_of(op);
  if (status != q8nn_status_success) {
    return op_fail(l, op, status, "q8nn concatenation failed (%s)", q8nn_status_string(status));
  }
  return q8nn_status_success;
}

static int is_8bit_quantized(const struct tensor* t) {
  if (t->type == q8nn_model_type_int8) return is_int8_activation(t);
  return t->type == q8nn_model_type_uint8 && t->scales.length == 1 && isfinite(t->scale) && t->scale > 0.0f &&
         t->zero_point >= 0 && t->zero_point <= 255;
}

/* TFLite quantize.cc / dequantize.cc, per-tensor only (as TFLite's QUANTIZE; per-channel
   DEQUANTIZE is refused): QUANTIZE float32 -> int8 (AffineQuantize) or int8/uint8 -> int8/uint8
   (Requantize, multiplier from (double) input_scale / output_scale); DEQUANTIZE int8/uint8 ->
   float32. */
static enum q8nn_status prepare_quantize(struct loader* l, struct op* op) {
  struct tensor* in = in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || in->elements != out->elements) {
    return op_fail(l, op, q8nn_status_invalid_parameter, "input and output differ in size");
  }
  if (op->builtin == OP_DEQUANTIZE) {
    if (!is_8bit_quantized(in) || out->type != q8nn_model_type_float32) {
      return op_fail(l, op, q8nn_status_unsupported_parameter, "only int8/uint8 with one scale -> float32");
    }
    return q8nn_status_success;
  }
  if (in->type == q8nn_model_type_float32 && is_int8_activation(out)) return q8nn_status_success;
  if (!is_8bit_quantized(in) || !is_8bit_quantized(out)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter,
                   "only float32 -> int8 or int8/uint8 -> int8/uint8, with one scale");
  }
  op->requantize = 1;
  const double real = (double) in->scale / (double) out->scale;
  if (!q8nn_model_quantize_multiplier(real, &op->rq_multiplier, &op->rq_shift)) {
    return op_fail(l, op, q8nn_status_unsupported_parameter, "scale ratio %g out of range", real);
  }
  return q8nn_status_success;
}

static enum q8nn_status prepare_op(struct loader* l, struct op* op) {
  op->placement = "cpu";
  switch (op->kind) {
    case K_CONV: return prepare_conv(l, op);
    case K_FC: return prepare_fully_connected(l, op);
    case K_ADD:
    case K_MUL:
    case K_SUB: return prepare_binary(l, op);
    case K_AVERAGE_POOL:
    case K_MAX_POOL: return prepare_pool(l, op);
    case K_SOFTMAX: return prepare_softmax(l, op);
    case K_COPY: return prepare_copy(l, op);
    case K_PAD: return prepare_pad(l, op);
    case K_MEAN: return prepare_mean(l, op);
    case K_CONCAT: return prepare_concat(l, op);
    case K_QUANTIZE:
    case K_DEQUANTIZE: return prepare_quantize(l, op);
    case K_UNARY: return prepare_unary(l, op);
    case K_RESIZE: return prepare_resize(l, op);
    case K_TRANSPOSE_CONV: return prepare_transpose_conv(l, op);
  }
  return q8nn_status_invalid_parameter;
}

/* ---- graph, lifetimes, plan ---------------------------------------------------------------- */

static int kind_of(int32_t builtin, enum kind* kind, size_t* data_inputs) {
  *data_inputs = 1;
  switch (builtin) {
    case OP_CONV_2D:
    case OP_DEPTHWISE_CONV_2D: *kind = K_CONV; return 1;
    case OP_FULLY_CONNECTED: *kind = K_FC; return 1;
    case OP_ADD: *kind = K_ADD; *data_inputs = 2; return 1;
    case OP_MUL: *kind = K_MUL; *data_inputs = 2; return 1;
    case OP_SUB: *kind = K_SUB; *data_inputs = 2; return 1;
    case OP_AVERAGE_POOL_2D: *kind = K_AVERAGE_POOL; return 1;
    case OP_MAX_POOL_2D: *kind = K_MAX_POOL; return 1;
    case OP_RESHAPE:
    case OP_SQUEEZE: *kind = K_COPY; return 1;
    case OP_SOFTMAX: *kind = K_SOFTMAX; return 1;
    case OP_PAD:
    case OP_PADV2: *kind = K_PAD; return 1;
    case OP_MEAN: *kind = K_MEAN; return 1;
    case OP_CONCATENATION: *kind = K_CONCAT; *data_inputs = SIZE_MAX; return 1;
    case OP_QUANTIZE: *kind = K_QUANTIZE; return 1;
    case OP_DEQUANTIZE: *kind = K_DEQUANTIZE; return 1;
    case OP_RELU:
    case OP_RELU6:
    case OP_RELU_N1_TO_1:
    case OP_LOGISTIC:
    case OP_TANH:
    case OP_HARD_SWISH:
    case OP_LEAKY_RELU:
    case OP_ELU: *kind = K_UNARY; return 1;
    case OP_RESIZE_BILINEAR:
    case OP_RESIZE_NEAREST_NEIGHBOR: *kind = K_RESIZE; return 1;
    /* the data input is the third (after the output shape and the filter, both constants) */
    case OP_TRANSPOSE_CONV: *kind = K_TRANSPOSE_CONV; *data_inputs = 3; return 1;
    default: return 0;
  }
}

static enum q8nn_status parse_op(struct loader* l, size_t index, const struct fb_table* t, const int32_t* codes,
                                 size_t num_codes) {
  struct fb_reader* r = &l->r;
  struct q8nn_model* m = l->m;
  struct op* op = &m->ops[index];
  op->index = index;
  op->placement = "cpu";
  op->fused_from = -1;
  op->fused_into = -1;
  const uint32_t opcode = fb_u32(r, t, 0, 0);
  const struct fb_vector inputs = fb_vector_field(r, t, 1, 4);
  const struct fb_vector outputs = fb_vector_field(r, t, 2, 4);
  op->options_type = fb_u8(r, t, 3, 0);
  op->options = fb_table_field(r, t, 4);
  if (fb_failed(r)) return reader_fail(l);
  if (opcode >= num_codes) {
    return fail(l, q8nn_status_invalid_parameter, "operator %zu: opcode index %u out of range", index, opcode);
  }
  op->builtin = codes[opcode];
  if (!kind_of(op->builtin, &op->kind, &op->num_data_inputs)) {
    return fail(l, q8nn_status_unsupported_parameter, "operator %zu: %s (builtin %d) is not supported", index,
                builtin_name(op->builtin), (int) op->builtin);
  }
  if (outputs.length != 1 || inputs.length == 0 || inputs.length > 1024) {
    return fail(l, q8nn_status_unsupported_parameter, "operator %zu (%s): %zu inputs and %zu outputs", index,
                builtin_name(op->builtin), inputs.length, outputs.length);
  }
  op->num_inputs = inputs.length;
  if (op->num_data_inputs > op->num_inputs) op->num_data_inputs = op->num_inputs;
  op->inputs = (int32_t*) malloc(inputs.length * sizeof(int32_t));
  if (op->inputs == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < inputs.length; i++) {
    const int32_t v = fb_vec_i32(r, &inputs, i);
    if (v < -1 || (v >= 0 && (size_t) v >= m->num_tensors) || (v == -1 && i < op->num_data_inputs)) {
      return fail(l, q8nn_status_invalid_parameter, "operator %zu (%s): input %zu is tensor %d of %zu", index,
                  builtin_name(op->builtin), i, (int) v, m->num_tensors);
    }
    op->inputs[i] = v;
  }
  op->table_input = op->inputs[0];
  op->output = fb_vec_i32(r, &outputs, 0);
  if (op->output < 0 || (size_t) op->output >= m->num_tensors) {
    return fail(l, q8nn_status_invalid_parameter, "operator %zu (%s): output is tensor %d of %zu", index,
                builtin_name(op->builtin), (int) op->output, m->num_tensors);
  }
  return q8nn_status_success;
}

/* Two lookups in a row become one: a MUL/SUB by a constant (table_values) whose input is the
   output of another such op, read by nothing else and not a graph output, composes that op's
   table at load (exact: the same bytes, one pass instead of two; MobileNetV2's input
   preprocessing). The producer then does nothing at run time and its output tensor never exists. */
static enum q8nn_status fuse_lookups(struct loader* l) {
  struct q8nn_model* m = l->m;
  int32_t* producer = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  uint32_t* readers = (uint32_t*) calloc(m->num_tensors + 1, sizeof(uint32_t));
  if (producer == NULL || readers == NULL) {
    free(producer);
    free(readers);
    return fail(l, q8nn_status_out_of_memory, "out of memory");
  }
  for (size_t i = 0; i < m->num_tensors; i++) producer[i] = -1;
  for (size_t i = 0; i < m->num_outputs; i++) readers[m->outputs[i]]++;
  for (size_t k = 0; k < m->num_ops; k++) {
    const struct op* op = &m->ops[k];
    for (size_t i = 0; i < op->num_inputs; i++) {
      if (op->inputs[i] >= 0) readers[op->inputs[i]]++;
    }
    if (producer[op->output] == -1) producer[op->output] = (int32_t) k;
  }
  for (size_t k = 0; k < m->num_ops; k++) {
    struct op* op = &m->ops[k];
    const size_t nb = table_values(m, op);
    const int32_t j = nb != 0 ? producer[op->inputs[0]] : -1;
    if (j < 0 || (size_t) j >= k || readers[op->inputs[0]] != 1) continue;
    struct op* first = &m->ops[j];
    const size_t first_nb = table_values(m, first);
    if (first_nb == 0 || (first_nb != nb && first_nb != 1 && nb != 1)) continue;
    first->fused_into = (int32_t) k;
    op->fused_from = j;
    op->table_input = first->table_input;
  }
  free(producer);
  free(readers);
  return q8nn_status_success;
}

static enum q8nn_status compute_lifetimes(struct loader* l) {
  struct q8nn_model* m = l->m;
  const int end = (int) m->num_ops;
  for (size_t i = 0; i < m->num_inputs; i++) {
    struct tensor* t = &m->tensors[m->inputs[i]];
    if (t->constant != NULL) return fail(l, q8nn_status_invalid_parameter, "graph input %zu is a constant", i);
    /* graph inputs stay valid for the whole run, so q8nn_model_input_data can be written once
       and run many times */
    t->first = 0;
    t->last = end;
    t->producer = -2; /* graph input */
  }
  for (size_t k = 0; k < m->num_ops; k++) {
    struct op* op = &m->ops[k];
    for (size_t i = 0; i < op->num_inputs && op->fused_into < 0; i++) {
      const int32_t index = i == 0 ? op->table_input : op->inputs[i]; /* what run reads */
      if (index < 0) continue;
      struct tensor* t = &m->tensors[index];
      if (t->constant != NULL) continue;
      if (i >= op->num_data_inputs) {
        return op_fail(l, op, q8nn_status_unsupported_parameter, "input %zu must be a constant", i);
      }
      if (t->producer == -1) {
        return op_fail(l, op, q8nn_status_invalid_parameter, "input tensor %d is read before it is written",
                       (int) index);
      }
      if (t->last < (int) k) t->last = (int) k;
    }
    struct tensor* out = &m->tensors[op->output];
    if (out->constant != NULL || out->producer != -1) {
      return op_fail(l, op, q8nn_status_invalid_parameter, "output tensor %d is a constant or written twice",
                     (int) op->output);
    }
    out->producer = (int) k;
    if (op->fused_into >= 0) continue; /* never written: not in the arena */
    out->first = (int) k;
    out->last = (int) k;
  }
  for (size_t i = 0; i < m->num_outputs; i++) {
    struct tensor* t = &m->tensors[m->outputs[i]];
    if (t->producer == -1) return fail(l, q8nn_status_invalid_parameter, "graph output %zu is never written", i);
    t->last = end;
  }
  return q8nn_status_success;
}

/* Larger first; ties by index, so the plan is deterministic. */
static int goes_before(const struct tensor* tensors, int32_t a, int32_t b) {
  if (tensors[a].bytes != tensors[b].bytes) return tensors[a].bytes > tensors[b].bytes;
  return a < b;
}

/* Greedy by size, as TFLite Micro's GreedyMemoryPlanner: each tensor, largest first, goes to the
   lowest offset where it overlaps no placed tensor whose lifetime intersects its own. */
static enum q8nn_status plan_arena(struct loader* l) {
  struct q8nn_model* m = l->m;
  int32_t* order = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  int32_t* placed = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  if (order == NULL || placed == NULL) {
    free(order);
    free(placed);
    return fail(l, q8nn_status_out_of_memory, "out of memory");
  }
  size_t n = 0, num_placed = 0, arena = 0;
  for (size_t i = 0; i < m->num_tensors; i++) {
    if (m->tensors[i].first >= 0 && m->tensors[i].constant == NULL) order[n++] = (int32_t) i;
  }
  for (size_t i = 1; i < n; i++) { /* insertion sort: no global comparator context needed */
    const int32_t v = order[i];
    size_t j = i;
    for (; j > 0 && goes_before(m->tensors, v, order[j - 1]); j--) order[j] = order[j - 1];
    order[j] = v;
  }
  for (size_t k = 0; k < n; k++) {
    struct tensor* t = &m->tensors[order[k]];
    size_t offset = 0;
    for (;;) { /* move past every conflicting tensor until a gap fits; at most num_placed moves */
      int moved = 0;
      for (size_t j = 0; j < num_placed; j++) {
        const struct tensor* p = &m->tensors[placed[j]];
        const int overlap_time = p->first <= t->last && t->first <= p->last;
        const int overlap_space = p->offset < offset + t->bytes && offset < p->offset + p->bytes;
        if (overlap_time && overlap_space) {
          offset = (p->offset + p->bytes + ARENA_ALIGNMENT - 1) / ARENA_ALIGNMENT * ARENA_ALIGNMENT;
          moved = 1;
        }
      }
      if (!moved) break;
    }
    t->offset = offset;
    placed[num_placed++] = order[k];
    if (offset + t->bytes > arena) arena = offset + t->bytes;
  }
  free(order);
  free(placed);
  m->arena_size = (arena + ARENA_ALIGNMENT - 1) / ARENA_ALIGNMENT * ARENA_ALIGNMENT;
  if (m->arena_size == 0) m->arena_size = ARENA_ALIGNMENT;
  /* Zeroed by calloc, not by a memset: a large block comes from the kernel's zero pages untouched,
     so a file that declares gigabytes of activations costs no time or memory until it runs (the
     memset took 10-19 s on one such fuzzer input). Aligned by hand inside a block one alignment
     larger. */
  if (m->arena_size > SIZE_MAX - ARENA_ALIGNMENT) {
    return fail(l, q8nn_status_unsupported_parameter, "a %zu-byte arena is too large", m->arena_size);
  }
  m->arena_block = calloc(1, m->arena_size + ARENA_ALIGNMENT);
  if (m->arena_block == NULL) {
    return fail(l, q8nn_status_out_of_memory, "out of memory for a %zu-byte arena", m->arena_size);
  }
  m->arena = m->arena_block + (ARENA_ALIGNMENT - (uintptr_t) m->arena_block % ARENA_ALIGNMENT) % ARENA_ALIGNMENT;
  for (size_t i = 0; i < m->num_tensors; i++) {
    struct tensor* t = &m->tensors[i];
    if (t->first >= 0 && t->constant == NULL) t->data = m->arena + t->offset;
  }
  return q8nn_status_success;
}

/* Copies the constant tensors operators read at run time (operands of ADD/MUL/SUB/CONCAT/RESHAPE...;
   filters and biases are packed by q8nn instead), so the caller's file is not needed after load. */
static enum q8nn_status copy_runtime_constants(struct loader* l) {
  struct q8nn_model* m = l->m;
  size_t total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < m->num_ops; k++) {
      const struct op* op = &m->ops[k];
      /* TRANSPOSE_CONV's first two inputs (shape, filter) are read at load only */
      for (size_t i = op->kind == K_TRANSPOSE_CONV ? 2 : 0; i < op->num_data_inputs; i++) {
        struct tensor* t = &m->tensors[op->inputs[i]];
        if (t->constant == NULL || (pass == 0 ? t->first == -2 : t->data != NULL)) continue;
        if (pass == 0) {
          t->first = -2; /* counted; never in the arena */
          t->offset = total;
          total += (t->bytes + ARENA_ALIGNMENT - 1) / ARENA_ALIGNMENT * ARENA_ALIGNMENT;
        } else {
          t->data = m->constants + t->offset;
          memcpy(t->data, t->constant, t->bytes);
        }
      }
    }
    if (pass == 0 && total != 0) {
      m->constants = (uint8_t*) aligned_alloc(ARENA_ALIGNMENT, total);
      if (m->constants == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
    }
  }
  return q8nn_status_success;
}

static enum q8nn_status read_index_list(struct loader* l, const struct fb_table* subgraph, unsigned id,
                                        int32_t** list, size_t* count, const char* what) {
  const struct fb_vector v = fb_vector_field(&l->r, subgraph, id, 4);
  if (fb_failed(&l->r)) return reader_fail(l);
  if (v.length == 0) return fail(l, q8nn_status_invalid_parameter, "the graph has no %s", what);
  *list = (int32_t*) malloc(v.length * sizeof(int32_t));
  if (*list == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  *count = v.length;
  for (size_t i = 0; i < v.length; i++) {
    const int32_t t = fb_vec_i32(&l->r, &v, i);
    if (t < 0 || (size_t) t >= l->m->num_tensors) {
      return fail(l, q8nn_status_invalid_parameter, "graph %s %zu is tensor %d of %zu", what, i, (int) t,
                  l->m->num_tensors);
    }
    (*list)[i] = t;
  }
  return q8nn_status_success;
}

static enum q8nn_status load(struct loader* l) {
  struct q8nn_model* m = l->m;
  struct fb_reader* r = &l->r;
  fb_init(r, m->file, m->file_size);
  const struct fb_table root = fb_root(r, "TFL3");
  if (fb_failed(r)) return reader_fail(l);
  const uint32_t version = fb_u32(r, &root, 0, 0);
  const struct fb_vector codes = fb_vector_field(r, &root, 1, 4);
  const struct fb_vector subgraphs = fb_vector_field(r, &root, 2, 4);
  const struct fb_vector buffers = fb_vector_field(r, &root, 4, 4);
  if (fb_failed(r)) return reader_fail(l);
  if (version != 3) return fail(l, q8nn_status_unsupported_parameter, "schema version %u, expected 3", version);
  if (subgraphs.length == 0) return fail(l, q8nn_status_invalid_parameter, "the model has no subgraph");
  int32_t* builtin = (int32_t*) calloc(codes.length + 1, sizeof(int32_t));
  if (builtin == NULL) return fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < codes.length; i++) {
    const struct fb_table code = fb_vec_table(r, &codes, i);
    const int32_t deprecated = fb_i8(r, &code, 0, 0);
    const int32_t current = fb_i32(r, &code, 3, 0);
    builtin[i] = current > deprecated ? current : deprecated; /* TFLite GetBuiltinCode */
  }
  const struct fb_table subgraph = fb_vec_table(r, &subgraphs, 0);
  const struct fb_vector tensors = fb_vector_field(r, &subgraph, 0, 4);
  const struct fb_vector operators = fb_vector_field(r, &subgraph, 3, 4);
  enum q8nn_status status = q8nn_status_success;
  if (fb_failed(r)) {
    status = reader_fail(l);
    goto done;
  }
  m->num_tensors = tensors.length;
  m->tensors = (struct tensor*) calloc(tensors.length + 1, sizeof(struct tensor));
  m->num_ops = operators.length;
  m->ops = (struct op*) calloc(operators.length + 1, sizeof(struct op));
  if (m->tensors == NULL || m->ops == NULL) {
    status = fail(l, q8nn_status_out_of_memory, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < tensors.length && status == q8nn_status_success; i++) {
    const struct fb_table t = fb_vec_table(r, &tensors, i);
    status = fb_failed(r) ? reader_fail(l) : parse_tensor(l, i, &t, &buffers);
  }
  if (status == q8nn_status_success) status = read_index_list(l, &subgraph, 1, &m->inputs, &m->num_inputs, "input");
  if (status == q8nn_status_success) status = read_index_list(l, &subgraph, 2, &m->outputs, &m->num_outputs, "output");
  for (size_t i = 0; i < operators.length && status == q8nn_status_success; i++) {
    const struct fb_table t = fb_vec_table(r, &operators, i);
    status = fb_failed(r) ? reader_fail(l) : parse_op(l, i, &t, builtin, codes.length);
  }
  if (status == q8nn_status_success) status = fuse_lookups(l);
  if (status == q8nn_status_success) status = compute_lifetimes(l);
  if (status == q8nn_status_success) status = plan_arena(l);
  if (status == q8nn_status_success) status = copy_runtime_constants(l);
  for (size_t i = 0; i < m->num_ops && status == q8nn_status_success; i++) status = prepare_op(l, &m->ops[i]);
  if (status == q8nn_status_success) {
    m->bound_inputs = (const void**) calloc(m->num_inputs, sizeof(void*));
    m->bound_outputs = (void**) calloc(m->num_outputs, sizeof(void*));
    if (m->bound_inputs == NULL || m->bound_outputs == NULL) status = fail(l, q8nn_status_out_of_memory, "out of memory");
  }
done:
  free(builtin);
  return status;
}

enum q8nn_status q8nn_model_load_memory(const void* data, size_t size, const struct q8nn_model_options* options,
                                        q8nn_model_t* model_out, char* error, size_t error_size) {
  struct loader l = {.m = NULL, .error = error, .error_size = error_size};
  if (error != NULL && error_size > 0) error[0] = '\0';
  if (data == NULL || model_out == NULL) return fail(&l, q8nn_status_invalid_parameter, "NULL data or model pointer");
  struct q8nn_model* m = (struct q8nn_model*) calloc(1, sizeof(struct q8nn_model));
  if (m == NULL) return fail(&l, q8nn_status_out_of_memory, "out of memory");
  l.m = m;
  m->file = (const uint8_t*) data;
  m->file_size = size;
  if (options != NULL) {
    m->backend = options->backend;
    m->profile = options->profile;
    m->numerics = options->numerics;
    if (m->numerics != q8nn_model_numerics_tflite && m->numerics != q8nn_model_numerics_xnnpack_fp32) {
      free(m);
      return fail(&l, q8nn_status_invalid_parameter, "unknown numerics %d", (int) options->numerics);
    }
  }
  const enum q8nn_status status = load(&l);
  m->file = NULL; /* the caller's bytes may go away now */
  for (size_t i = 0; i < m->num_tensors && m->tensors != NULL; i++) m->tensors[i].constant = NULL;
  if (status != q8nn_status_success) {
    q8nn_model_delete(m);
    return status;
  }
  *model_out = m;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_load_file(const char* path, const struct q8nn_model_options* options,
                                      q8nn_model_t* model_out, char* error, size_t error_size) {
  if (error != NULL && error_size > 0) error[0] = '\0';
  if (path == NULL || model_out == NULL) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "NULL path or model pointer");
    return q8nn_status_invalid_parameter;
  }
  FILE* f = fopen(path, "rb");
  long size = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (f == NULL || size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "cannot read %s", path);
    if (f != NULL) fclose(f);
    return q8nn_status_invalid_parameter;
  }
  void* data = malloc((size_t) size + 1);
  if (data == NULL) {
    fclose(f);
    if (error != NULL && error_size > 0) snprintf(error, error_size, "out of memory reading %s", path);
    return q8nn_status_out_of_memory;
  }
  const size_t got = fread(data, 1, (size_t) size, f);
  fclose(f);
  if (got != (size_t) size) {
    free(data);
    if (error != NULL && error_size > 0) snprintf(error, error_size, "short read of %s", path);
    return q8nn_status_invalid_parameter;
  }
  const enum q8nn_status status = q8nn_model_load_memory(data, (size_t) size, options, model_out, error, error_size);
  free(data);
  return status;
}

/* ---- queries, binding, run, delete --------------------------------------------------------- */

size_t q8nn_model_num_inputs(q8nn_model_t m) { return m != NULL ? m->num_inputs : 0; }
size_t q8nn_model_num_outputs(q8nn_model_t m) { return m != NULL ? m->num_outputs : 0; }
size_t q8nn_model_arena_size(q8nn_model_t m) { return m != NULL ? m->arena_size : 0; }
size_t q8nn_model_num_operators(q8nn_model_t m) { return m != NULL ? m->num_ops : 0; }

static void describe(const struct tensor* t, struct q8nn_model_tensor_info* info) {
  memset(info, 0, sizeof(*info));
  info->name = t->name;
  info->type = (enum q8nn_model_type) t->type;
  info->num_dims = t->num_dims;
  for (size_t i = 0; i < t->num_dims; i++) info->dims[i] = t->dims[i];
  info->num_bytes = t->bytes;
  info->scale = t->scale;
  info->zero_point = t->zero_point;
}

enum q8nn_status q8nn_model_input_info(q8nn_model_t m, size_t index, struct q8nn_model_tensor_info* info) {
  if (m == NULL || info == NULL || index >= m->num_inputs) return q8nn_status_invalid_parameter;
  describe(&m->tensors[m->inputs[index]], info);
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_output_info(q8nn_model_t m, size_t index, struct q8nn_model_tensor_info* info) {
  if (m == NULL || info == NULL || index >= m->num_outputs) return q8nn_status_invalid_parameter;
  describe(&m->tensors[m->outputs[index]], info);
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_bind_input(q8nn_model_t m, size_t index, const void* data) {
  if (m == NULL || index >= m->num_inputs) return q8nn_status_invalid_parameter;
  m->bound_inputs[index] = data;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_bind_output(q8nn_model_t m, size_t index, void* data) {
  if (m == NULL || index >= m->num_outputs) return q8nn_status_invalid_parameter;
  m->bound_outputs[index] = data;
  return q8nn_status_success;
}

void* q8nn_model_input_data(q8nn_model_t m, size_t index) {
  return m != NULL && index < m->num_inputs ? m->tensors[m->inputs[index]].data : NULL;
}

const void* q8nn_model_output_data(q8nn_model_t m, size_t index) {
  return m != NULL && index < m->num_outputs ? m->tensors[m->outputs[index]].data : NULL;
}

enum q8nn_status q8nn_model_get_operator_info(q8nn_model_t m, size_t index, struct q8nn_model_operator_info* info) {
  if (m == NULL || info == NULL || index >= m->num_ops) return q8nn_status_invalid_parameter;
  const struct op* op = &m->ops[index];
  const struct tensor* out = &m->tensors[op->output];
  memset(info, 0, sizeof(*info));
  info->type = builtin_name(op->builtin);
  info->placement = op->placement;
  info->num_output_dims = out->num_dims;
  for (size_t i = 0; i < out->num_dims; i++) info->output_dims[i] = out->dims[i];
  info->macs = op->macs;
  info->last_run_ns = op->last_ns;
  info->fused_into = op->fused_into >= 0 ? (size_t) op->fused_into : SIZE_MAX;
  return q8nn_status_success;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* A lookup (MUL/SUB by a constant) over the caller's threads, in tiles of whole rows of
   table_values bytes; small ones stay on the calling thread. */
struct lookup_context {
  const struct op* op;
  const int8_t* input;
  int8_t* output;
};

static void lookup_tile(void* context, size_t start, size_t rows) {
  const struct lookup_context* c = (const struct lookup_context*) context;
  const size_t nb = c->op->table_values;
  q8nn_model_table_s8(rows * nb, nb, c->op->table, c->input + start * nb, c->output + start * nb);
}

#define LOOKUP_TILE_BYTES 16384

/* The threads a run uses: the caller's pthreadpool, the host's parallel-for, or (both NULL) the
   calling thread. */
struct run_threads {
  pthreadpool_t pool;
  const struct q8nn_threadpool* host;
};

static size_t threads_of(const struct run_threads* t) {
  if (t->host != NULL) {
    const size_t n = t->host->threads_count(t->host->context);
    return n != 0 ? n : 1;
  }
  return t->pool != NULL ? pthreadpool_get_threads_count(t->pool) : 1;
}

static enum q8nn_status run_operator(const struct run_threads* t, q8nn_operator_t op) {
  return t->host != NULL ? q8nn_run_operator_on(op, t->host) : q8nn_run_operator(op, t->pool);
}

static void run_lookup(const struct q8nn_model* m, const struct op* op, const struct run_threads* t) {
  const struct tensor* out = &m->tensors[op->output];
  struct lookup_context context = {op, (const int8_t*) m->tensors[op->table_input].data, (int8_t*) out->data};
  const size_t rows = out->elements / op->table_values;
  const size_t tile = LOOKUP_TILE_BYTES / op->table_values + 1;
  if (rows > tile && threads_of(t) > 1) {
    /* lookup_tile takes any number of rows: a host may merge tiles */
    if (t->host != NULL) {
      t->host->parallelize_1d_tile_1d(t->host->context, lookup_tile, &context, rows, tile);
    } else {
      pthreadpool_parallelize_1d_tile_1d(t->pool, lookup_tile, &context, rows, tile, 0);
    }
  } else {
    lookup_tile(&context, 0, rows);
  }
}

static enum q8nn_status run_op(struct q8nn_model* m, struct op* op, const struct run_threads* t) {
  struct tensor* out = &m->tensors[op->output];
  const struct tensor* in = &m->tensors[op->inputs[0]];
  switch (op->kind) {
    case K_CONV:
    case K_FC:
    case K_ADD:
    case K_UNARY: return run_operator(t, op->qop);
    case K_AVERAGE_POOL:
    case K_MAX_POOL: return run_operator(t, op->qop);
    case K_COPY: memmove(out->data, in->data, op->copy_bytes); break;
    case K_SOFTMAX: return run_operator(t, op->qop);
    case K_MUL:
    case K_SUB:
      if (op->table != NULL) {
        run_lookup(m, op, t);
      } else if (op->kind == K_MUL) {
        q8nn_model_mul_s8(&op->binary, (const int8_t*) in->data, (const int8_t*) m->tensors[op->inputs[1]].data,
                        (int8_t*) out->data);
      break;
      } else {
        q8nn_model_sub_s8(&op->binary, (const int8_t*) in->data, (const int8_t*) m->tensors[op->inputs[1]].data,
                          (int8_t*) out->data);
      }
      break;
    case K_PAD:
      q8nn_model_pad_s8(op->pad_rank, op->pad_in, op->pad_before, op->pad_out, op->pad_value,
                        (const int8_t*) in->data, (int8_t*) out->data);
      break;
    case K_MEAN: q8nn_model_mean_s8(&op->mean, (const int8_t*) in->data, (int8_t*) out->data); break;
    case K_CONCAT:
    case K_RESIZE:
    case K_TRANSPOSE_CONV: return run_operator(t, op->qop);
    case K_QUANTIZE:
      if (op->requantize) {
        q8nn_model_requantize_8(out->elements, in->type == q8nn_model_type_uint8, in->zero_point,
                                out->type == q8nn_model_type_uint8, out->zero_point, op->rq_multiplier, op->rq_shift,
                                in->data, out->data);
      } else {
        q8nn_model_quantize_f32_s8(out->elements, out->scale, out->zero_point, (const float*) in->data,
                                   (int8_t*) out->data);
      }
      break;
    case K_DEQUANTIZE:
      q8nn_model_dequantize_8_f32(in->elements, in->type == q8nn_model_type_uint8, in->scale, in->zero_point, in->data,
                                  (float*) out->data);
      break;
  }
  return q8nn_status_success;
}

#define RUN_LIST_MAX 64

/* Runs the `listed` operators collected by q8nn_model_run (if any) as one list and empties it. */
static enum q8nn_status run_list(q8nn_operator_t* list, size_t* listed, const struct run_threads* t) {
  enum q8nn_status status = q8nn_status_success;
  if (*listed != 0) {
    status = t->host != NULL ? q8nn_run_operators_on(*listed, list, t->host) : q8nn_run_operators(*listed, list, t->pool);
  }
  *listed = 0;
  return status;
}

static enum q8nn_status model_run(q8nn_model_t m, const struct run_threads* t) {
  for (size_t i = 0; i < m->num_inputs; i++) {
    const struct tensor* t = &m->tensors[m->inputs[i]];
    if (m->bound_inputs[i] != NULL && m->bound_inputs[i] != t->data) memcpy(t->data, m->bound_inputs[i], t->bytes);
  }
  /* With several threads, consecutive q8nn operators (convolutions, fully connected, adds) run as
     one q8nn_run_operators list: one threadpool call and a barrier per operator instead of a call
     each (docs/performance.md, "Threads and the parallel region"). Profiling and the debug
     callback keep one call per op. */
  const int batch = !m->profile && m->debug == NULL && threads_of(t) > 1;
  q8nn_operator_t list[RUN_LIST_MAX];
  size_t listed = 0;
  for (size_t k = 0; k < m->num_ops; k++) {
    struct op* op = &m->ops[k];
    if (op->fused_into < 0) { /* a fused op's work is done by the op it was fused into */
      if (batch && (op->kind == K_CONV || op->kind == K_FC || op->kind == K_ADD || op->kind == K_UNARY ||
                    op->kind == K_AVERAGE_POOL || op->kind == K_MAX_POOL ||
                    op->kind == K_CONCAT || op->kind == K_RESIZE || op->kind == K_TRANSPOSE_CONV ||
                    op->kind == K_SOFTMAX)) {
        list[listed++] = op->qop;
        if (listed == RUN_LIST_MAX) {
          const enum q8nn_status status = run_list(list, &listed, t);
          if (status != q8nn_status_success) return status;
        }
        continue;
      }
      const enum q8nn_status list_status = run_list(list, &listed, t);
      if (list_status != q8nn_status_success) return list_status;
      const uint64_t start = m->profile ? now_ns() : 0;
      const enum q8nn_status status = run_op(m, op, t);
      if (status != q8nn_status_success) return status;
      if (m->profile) op->last_ns = now_ns() - start;
    }
    if (m->debug != NULL) m->debug(m->debug_context, m, k);
  }
  const enum q8nn_status list_status = run_list(list, &listed, t);
  if (list_status != q8nn_status_success) return list_status;
  for (size_t i = 0; i < m->num_outputs; i++) {
    const struct tensor* t = &m->tensors[m->outputs[i]];
    if (m->bound_outputs[i] != NULL && m->bound_outputs[i] != t->data) memcpy(m->bound_outputs[i], t->data, t->bytes);
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_run(q8nn_model_t m, pthreadpool_t threadpool) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  const struct run_threads t = {threadpool, NULL};
  return model_run(m, &t);
}

enum q8nn_status q8nn_model_run_on(q8nn_model_t m, const struct q8nn_threadpool* pool) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  if (pool != NULL && (pool->threads_count == NULL || pool->parallelize_1d_tile_1d == NULL)) {
    return q8nn_status_invalid_parameter;
  }
  const struct run_threads t = {NULL, pool};
  return model_run(m, &t);
}

enum q8nn_status q8nn_model_set_debug_callback(q8nn_model_t m, q8nn_model_debug_callback callback, void* context) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  m->debug = callback;
  m->debug_context = context;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_debug_tensor(q8nn_model_t m, size_t index, size_t slot, struct q8nn_model_tensor_info* info,
                                         const void** data) {
  if (m == NULL || info == NULL || data == NULL || index >= m->num_ops) return q8nn_status_invalid_parameter;
  const struct op* op = &m->ops[index];
  int32_t t;
  if (slot == Q8NN_MODEL_DEBUG_OUTPUT) t = op->output;
  else if (slot < op->num_inputs) t = op->inputs[slot];
  else return q8nn_status_invalid_parameter;
  if (t < 0) {
    memset(info, 0, sizeof(*info));
    info->name = "";
    *data = NULL;
    return q8nn_status_success;
  }
  describe(&m->tensors[t], info);
  *data = m->tensors[t].data;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_delete(q8nn_model_t m) {
  if (m == NULL) return q8nn_status_success;
  for (size_t k = 0; k < m->num_ops && m->ops != NULL; k++) {
    q8nn_delete_operator(m->ops[k].qop);
    free(m->ops[k].inputs);
    free(m->ops[k].table);
  }
  for (size_t i = 0; i < m->num_tensors && m->tensors != NULL; i++) free(m->tensors[i].name);
  free(m->ops);
  free(m->tensors);
  free(m->inputs);
  free(m->outputs);
  free(m->bound_inputs);
  free(m->bound_outputs);
  free(m->arena_block);
  free(m->constants);
  free(m);
  return q8nn_status_success;
}
