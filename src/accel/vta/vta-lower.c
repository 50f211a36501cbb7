/* What the VTA lowerings share (vta-lower.h): the micro-op kernel table, the one-instruction ALU
   helper and running a recorded program. */
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-lower.h"

uint64_t q8nn_vta_ktable_key(struct q8nn_vta_ktable* table, const struct q8nn_vta_kdesc* desc) {
  for (size_t i = 0; i < table->count; i++) {
    if (memcmp(&table->items[i], desc, sizeof(*desc)) == 0) return i;
  }
  if (table->count == table->capacity) {
    const size_t capacity = table->capacity == 0 ? 16 : 2 * table->capacity;
    struct q8nn_vta_kdesc* items = realloc(table->items, capacity * sizeof(*items));
    if (items == NULL) return UINT64_MAX;
    table->items = items;
    table->capacity = capacity;
  }
  table->items[table->count] = *desc;
  return table->count++;
}

void q8nn_vta_ktable_free(struct q8nn_vta_ktable* table) {
  free(table->items);
  memset(table, 0, sizeof(*table));
}

static enum q8nn_status record_alu(struct q8nn_vta_cmd* cmd, void* context) {
  const struct q8nn_vta_kdesc* d = context;
  const uint32_t* v = d->v;
  enum q8nn_status st = q8nn_vta_uop_loop_begin(cmd, v[5], v[6], v[7], 0);
  if (st == q8nn_status_success) st = q8nn_vta_uop_loop_begin(cmd, v[8], 1, v[9], 0);
  if (st == q8nn_status_success) st = q8nn_vta_uop_push(cmd, 1, 0, v[3], v[4], 0, v[0], v[1], (int32_t) v[2]);
  if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
  if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
  return st;
}

enum q8nn_status q8nn_vta_push_alu(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                   const struct q8nn_vta_alu_op* alu) {
  struct q8nn_vta_kdesc d;
  memset(&d, 0, sizeof(d));
  d.kind = Q8NN_VTA_KIND_ALU;
  /* With an immediate the source index is never read: use dst so it is in range. */
  const uint32_t v[10] = {alu->opcode, alu->use_imm, (uint32_t) alu->imm, alu->dst, alu->use_imm ? alu->dst : alu->src,
                          alu->outer, alu->dst_outer, alu->use_imm ? 0 : alu->src_outer, alu->inner,
                          alu->use_imm ? 0 : alu->src_inner};
  memcpy(d.v, v, sizeof(v));
  const uint64_t key = q8nn_vta_ktable_key(table, &d);
  if (key == UINT64_MAX) return q8nn_status_out_of_memory;
  return q8nn_vta_push_alu_op(cmd, key, record_alu, &d);
}

enum q8nn_status q8nn_vta_run_program(struct q8nn_vta_target* vta, struct q8nn_vta_op_state* state) {
  struct q8nn_vta_run_info info;
  memset(&info, 0, sizeof(info));
  const enum q8nn_status status = q8nn_vta_program_run(vta->device, &state->program, &info);
  if (status != q8nn_status_success) {
    return Q8NN_ERROR(q8nn_status_backend_error, "VTA program fault: %s", q8nn_vta_device_last_error(vta->device));
  }
  vta->last_run = info; /* the device accumulates the counters of successful runs */
  return q8nn_status_success;
}
