/*
 * The table of the model layer's operators: each supported builtin's kind, and each kind's
 * preparation (in the prepare-*.c of its family) and way of running. Above the prepare-*.c files,
 * which never call back into it.
 */
#include "model-internal.h"

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
