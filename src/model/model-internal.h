/*
 * q8nn-model's internals: the loaded model, its tensors and operators, and the functions the
 * loader's rooms share. Load = parse (parse.c over the bounds-checked reader, flatbuffer.c) ->
 * fuse lookups, lifetimes, greedy arena plan, runtime constants (plan.c) -> per operator:
 * validate shapes/types/options, create the q8nn operator or fill the portable operator's params,
 * set up with arena pointers (prepare.c dispatches to prepare-*.c, one file per family). Run =
 * copy bound inputs in, run every operator in order, copy bound outputs out, no allocation
 * (execute.c). model.c holds the public entry points of q8nn-model.h.
 *
 * Calls go one way: model.c -> parse.c, plan.c, prepare.c, execute.c; parse.c and execute.c ->
 * prepare.c (the table) -> prepare-*.c; plan.c -> prepare-elementwise.c (model_table_values); all
 * of them -> loader.c (errors, shared checks) -> model-ops.c, flatbuffer.c.
 */
#ifndef Q8NN_MODEL_INTERNAL_H
#define Q8NN_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

enum kind {
  K_CONV, K_FC, K_ADD, K_AVERAGE_POOL, K_MAX_POOL, K_COPY, K_SOFTMAX, K_MUL, K_SUB, K_PAD, K_MEAN,
  K_CONCAT, K_QUANTIZE, K_DEQUANTIZE, K_UNARY, K_RESIZE, K_TRANSPOSE_CONV,
  K_COUNT
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

/* ---- errors (loader.c): write the message when the caller gave an error buffer; return status */
enum q8nn_status model_fail(struct loader* l, enum q8nn_status status, const char* format, ...);
/* "operator <index> (<builtin name>): " + the message */
enum q8nn_status model_op_fail(struct loader* l, const struct op* op, enum q8nn_status status, const char* format, ...);
enum q8nn_status model_reader_fail(struct loader* l);
/* The operator carries options of another type than its builtin's (model_expect_options). */
enum q8nn_status model_options_fail(struct loader* l, const struct op* op);
/* A q8nn call (`call`: "create", "setup", ...) failed with status: "q8nn <call> failed (<status>)". */
enum q8nn_status model_q8nn_fail(struct loader* l, const struct op* op, const char* call, enum q8nn_status status);
const char* model_builtin_name(int32_t code);

/* ---- parse.c: fills m->tensors, m->ops (builtin, kind, inputs, output, options), m->inputs, m->outputs */
enum q8nn_status model_parse(struct loader* l);

/* ---- plan.c, in the order load runs them */
enum q8nn_status model_fuse_lookups(struct loader* l);
enum q8nn_status model_compute_lifetimes(struct loader* l);
enum q8nn_status model_plan_arena(struct loader* l);
enum q8nn_status model_copy_runtime_constants(struct loader* l);

/* ---- prepare.c: the one table of builtins and kinds */
/* The kind of a builtin and how many of its inputs are data (read as activations); 0: unsupported. */
int model_kind_of(int32_t builtin, enum kind* kind, size_t* data_inputs);
/* The kind runs as a q8nn operator (op->qop), so it can join a q8nn_run_operators list. */
bool model_kind_is_q8nn_operator(enum kind kind);
enum q8nn_status model_prepare_op(struct loader* l, struct op* op);

/* ---- loader.c: what every preparation shares */
int model_is_int8_activation(const struct tensor* t);
/* TFLite CalculateActivationRangeQuantized for int8; 0: unknown activation or an empty range. */
int model_activation_range(int activation, const struct tensor* out, int32_t* min, int32_t* max);
int model_try_backend(const struct q8nn_model* m, struct op* op);
int model_retry_on_cpu(struct op* op, enum q8nn_status status, int* on_backend);
const char* model_placement_of(const struct op* op);
int model_conv_dim(int padding, size_t in, size_t k, size_t stride, size_t dilation, size_t* out, uint32_t* before,
                   uint32_t* after);
int model_shape_is(const struct tensor* t, size_t n, const size_t* dims);

static inline struct tensor* model_in_tensor(struct loader* l, const struct op* op, size_t i) {
  return i < op->num_inputs && op->inputs[i] >= 0 ? &l->m->tensors[op->inputs[i]] : NULL;
}

static inline int model_expect_options(const struct op* op, uint8_t type) {
  return op->options.pos == 0 || op->options_type == type;
}

/* ---- one preparation per family of operators */
/* prepare-conv.c: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED */
enum q8nn_status model_prepare_conv(struct loader* l, struct op* op);
enum q8nn_status model_prepare_transpose_conv(struct loader* l, struct op* op);
enum q8nn_status model_prepare_fully_connected(struct loader* l, struct op* op);
/* prepare-elementwise.c: ADD, MUL, SUB, SOFTMAX, the unary table operators, QUANTIZE, DEQUANTIZE */
enum q8nn_status model_prepare_binary(struct loader* l, struct op* op);
enum q8nn_status model_prepare_softmax(struct loader* l, struct op* op);
enum q8nn_status model_prepare_unary(struct loader* l, struct op* op);
enum q8nn_status model_prepare_quantize(struct loader* l, struct op* op);
/* Values of the constant of a MUL/SUB that runs as a 256-entry table per value; 0: not a table. */
size_t model_table_values(const struct q8nn_model* m, const struct op* op);
/* prepare-pooling.c: AVERAGE_POOL_2D, MAX_POOL_2D, MEAN, RESIZE_* (windows over spatial dimensions) */
enum q8nn_status model_prepare_pool(struct loader* l, struct op* op);
enum q8nn_status model_prepare_mean(struct loader* l, struct op* op);
enum q8nn_status model_prepare_resize(struct loader* l, struct op* op);
/* prepare-movement.c: RESHAPE, SQUEEZE, PAD, PADV2, CONCATENATION */
enum q8nn_status model_prepare_copy(struct loader* l, struct op* op);
enum q8nn_status model_prepare_pad(struct loader* l, struct op* op);
enum q8nn_status model_prepare_concat(struct loader* l, struct op* op);

#endif
