/*
 * The graph after parsing: lookup fusion, tensor lifetimes, the greedy arena plan and the copies
 * of the constants operators read at run time.
 */
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

/* Two lookups in a row become one: a MUL/SUB by a constant (table_values) whose input is the
   output of another such op, read by nothing else and not a graph output, composes that op's
   table at load (exact: the same bytes, one pass instead of two; MobileNetV2's input
   preprocessing). The producer then does nothing at run time and its output tensor never exists. */
enum q8nn_status model_fuse_lookups(struct loader* l) {
  struct q8nn_model* m = l->m;
  int32_t* producer = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  uint32_t* readers = (uint32_t*) calloc(m->num_tensors + 1, sizeof(uint32_t));
  if (producer == NULL || readers == NULL) {
    free(producer);
    free(readers);
    return model_fail(l, q8nn_status_out_of_memory, "out of memory");
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
    const size_t nb = model_table_values(m, op);
    const int32_t j = nb != 0 ? producer[op->inputs[0]] : -1;
    if (j < 0 || (size_t) j >= k || readers[op->inputs[0]] != 1) continue;
    struct op* first = &m->ops[j];
    const size_t first_nb = model_table_values(m, first);
    if (first_nb == 0 || (first_nb != nb && first_nb != 1 && nb != 1)) continue;
    first->fused_into = (int32_t) k;
    op->fused_from = j;
    op->table_input = first->table_input;
  }
  free(producer);
  free(readers);
  return q8nn_status_success;
}

enum q8nn_status model_compute_lifetimes(struct loader* l) {
  struct q8nn_model* m = l->m;
  const int end = (int) m->num_ops;
  for (size_t i = 0; i < m->num_inputs; i++) {
    struct tensor* t = &m->tensors[m->inputs[i]];
    if (t->constant != NULL) return model_fail(l, q8nn_status_invalid_parameter, "graph input %zu is a constant", i);
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
        return model_op_fail(l, op, q8nn_status_unsupported_parameter, "input %zu must be a constant", i);
      }
      if (t->producer == -1) {
        return model_op_fail(l, op, q8nn_status_invalid_parameter, "input tensor %d is read before it is written",
                       (int) index);
      }
      if (t->last < (int) k) t->last = (int) k;
    }
    struct tensor* out = &m->tensors[op->output];
    if (out->constant != NULL || out->producer != -1) {
      return model_op_fail(l, op, q8nn_status_invalid_parameter, "output tensor %d is a constant or written twice",
                     (int) op->output);
    }
    out->producer = (int) k;
    if (op->fused_into >= 0) continue; /* never written: not in the arena */
    out->first = (int) k;
    out->last = (int) k;
  }
  for (size_t i = 0; i < m->num_outputs; i++) {
    struct tensor* t = &m->tensors[m->outputs[i]];
    if (t->producer == -1) return model_fail(l, q8nn_status_invalid_parameter, "graph output %zu is never written", i);
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
enum q8nn_status model_plan_arena(struct loader* l) {
  struct q8nn_model* m = l->m;
  int32_t* order = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  int32_t* placed = (int32_t*) malloc((m->num_tensors + 1) * sizeof(int32_t));
  if (order == NULL || placed == NULL) {
    free(order);
    free(placed);
    return model_fail(l, q8nn_status_out_of_memory, "out of memory");
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
    return model_fail(l, q8nn_status_unsupported_parameter, "a %zu-byte arena is too large", m->arena_size);
  }
  m->arena_block = calloc(1, m->arena_size + ARENA_ALIGNMENT);
  if (m->arena_block == NULL) {
    return model_fail(l, q8nn_status_out_of_memory, "out of memory for a %zu-byte arena", m->arena_size);
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
enum q8nn_status model_copy_runtime_constants(struct loader* l) {
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
      if (m->constants == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
    }
  }
  return q8nn_status_success;
}
