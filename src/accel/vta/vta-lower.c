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
  state->last_run = info;
  return q8nn_status_success;
}

static enum q8nn_status record_reset(struct q8nn_vta_cmd* cmd, void* context) {
  const struct q8nn_vta_kdesc* d = context;
  enum q8nn_status st = q8nn_vta_uop_loop_begin(cmd, d->v[1], 1, 0, 0);
  if (st == q8nn_status_success) st = q8nn_vta_uop_push(cmd, 0, 1, d->v[0], 0, 0, 0, 0, 0);
  if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
  return st;
}

enum q8nn_status q8nn_vta_push_reset(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table, uint32_t dst,
                                     uint32_t rows) {
  struct q8nn_vta_kdesc d;
  memset(&d, 0, sizeof(d));
  d.kind = Q8NN_VTA_KIND_RESET;
  d.v[0] = dst;
  d.v[1] = rows;
  const uint64_t key = q8nn_vta_ktable_key(table, &d);
  if (key == UINT64_MAX) return q8nn_status_out_of_memory;
  return q8nn_vta_push_gemm_op(cmd, key, record_reset, &d);
}

/* The steps' state: the first failure sticks, later steps are skipped. */
struct steps {
  struct q8nn_vta_cmd* cmd;
  struct q8nn_vta_ktable* table;
  enum q8nn_status status;
  uint32_t blocks, rows, const_stride;
};

/* dst op= constant row k of each block (k + const_stride*block), or op= imm. */
static void alu(struct steps* s, uint32_t opcode, bool use_imm, int32_t imm, uint32_t dst, uint32_t k) {
  if (s->status != q8nn_status_success) return;
  const struct q8nn_vta_alu_op a = {opcode, use_imm, imm, dst, k, s->blocks, s->rows, s->const_stride, s->rows, 0};
  s->status = q8nn_vta_push_alu(s->cmd, s->table, &a);
}

/* dst region op= src region, element by element. */
static void alu_rr(struct steps* s, uint32_t opcode, uint32_t dst, uint32_t src) {
  if (s->status != q8nn_status_success) return;
  const struct q8nn_vta_alu_op a = {opcode, false, 0, dst, src, s->blocks, s->rows, s->rows, s->rows, 1};
  s->status = q8nn_vta_push_alu(s->cmd, s->table, &a);
}

enum { ex_c_bias, ex_lo, ex_hi, ex_neg_ls, ex_half, ex_mh, ex_ml, ex_mh2, ex_cm, ex_sg, ex_hh, ex_rs };

enum q8nn_status q8nn_vta_push_exact_requant(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                             const struct q8nn_vta_exact_steps* p, uint32_t x, uint32_t scratch,
                                             uint32_t blocks, uint32_t rows) {
  struct steps s = {cmd, table, q8nn_status_success, blocks, rows, p->const_stride};
  const uint32_t n = blocks * rows, a = scratch, b = scratch + n, c = scratch + 2 * n, d = scratch + 3 * n;
  if (p->bias) alu(&s, q8nn_vta_alu_add, false, 0, x, ex_c_bias);
  if (p->clamp) {
    alu(&s, q8nn_vta_alu_max, false, 0, x, ex_lo);
    alu(&s, q8nn_vta_alu_min, false, 0, x, ex_hi);
  }
  if (p->ls) alu(&s, q8nn_vta_alu_shr, false, 0, x, ex_neg_ls);
  alu_rr(&s, q8nn_vta_alu_add, a, x);                  /* A = t */
  alu(&s, q8nn_vta_alu_shr, true, -16, a, 0);
  alu(&s, q8nn_vta_alu_shr, true, 16, a, 0);           /* A = tl */
  alu(&s, q8nn_vta_alu_add, false, 0, x, ex_half);
  alu(&s, q8nn_vta_alu_shr, true, 16, x, 0);           /* X = th */
  if (!p->no_low) alu_rr(&s, q8nn_vta_alu_add, b, a); /* B = tl */
  alu_rr(&s, q8nn_vta_alu_add, c, x);                  /* C = th */
  if (!p->no_low) {
    alu(&s, q8nn_vta_alu_mul, false, 0, b, ex_ml);
    alu(&s, q8nn_vta_alu_shr, true, 16, b, 0);         /* B = floor(tl*Ml / 2^16) */
  }
  alu(&s, q8nn_vta_alu_mul, false, 0, a, ex_mh);
  if (!p->no_low) alu_rr(&s, q8nn_vta_alu_add, a, b);
  alu(&s, q8nn_vta_alu_mul, false, 0, c, ex_ml);
  alu_rr(&s, q8nn_vta_alu_add, a, c);
  alu(&s, q8nn_vta_alu_add, false, 0, a, ex_cm);
  alu(&s, q8nn_vta_alu_shr, true, 15, a, 0);
  alu(&s, q8nn_vta_alu_mul, false, 0, x, ex_mh2);
  alu_rr(&s, q8nn_vta_alu_add, x, a);                  /* X = Y */
  if (p->sign) {
    alu_rr(&s, q8nn_vta_alu_add, d, x);
    alu(&s, q8nn_vta_alu_shr, true, 31, d, 0);
    if (p->sign_mixed) alu(&s, q8nn_vta_alu_mul, false, 0, d, ex_sg);
    alu_rr(&s, q8nn_vta_alu_add, x, d);
  }
  alu(&s, q8nn_vta_alu_add, false, 0, x, ex_hh);
  alu(&s, q8nn_vta_alu_shr, false, 0, x, ex_rs);
  if (p->final_clamp) {
    alu(&s, q8nn_vta_alu_max, true, p->out_min, x, 0);
    alu(&s, q8nn_vta_alu_min, true, p->out_max, x, 0);
  }
  return s.status;
}

enum { lin_c_bias, lin_lo, lin_hi, lin_neg_t0, lin_dl, lin_m0, lin_c0, lin_m1, lin_m2, lin_m3, lin_q };

enum q8nn_status q8nn_vta_push_linear_requant(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                              const struct q8nn_vta_linear_steps* p, uint32_t x, uint32_t scratch,
                                              uint32_t blocks, uint32_t rows) {
  struct steps s = {cmd, table, q8nn_status_success, blocks, rows, p->const_stride};
  const uint32_t n = blocks * rows, limbs = p->limbs, d = scratch + (limbs - 1) * n;
  const uint32_t m_row[Q8NN_VTA_LINEAR_MAX_LIMBS] = {lin_m0, lin_m1, lin_m2, lin_m3};
  if (limbs < 1 || limbs > Q8NN_VTA_LINEAR_MAX_LIMBS) return q8nn_status_invalid_parameter;
  alu(&s, q8nn_vta_alu_add, false, 0, x, lin_c_bias);
  alu(&s, q8nn_vta_alu_max, false, 0, x, lin_lo);
  alu(&s, q8nn_vta_alu_min, false, 0, x, lin_hi);     /* X = t */
  if (p->sign) {
    alu_rr(&s, q8nn_vta_alu_add, d, x);
    alu(&s, q8nn_vta_alu_add, false, 0, d, lin_neg_t0);
    alu(&s, q8nn_vta_alu_shr, true, 31, d, 0);
    alu(&s, q8nn_vta_alu_mul, false, 0, d, lin_dl);   /* D = -dl*[t < t0] */
  }
  if (limbs == 1) {
    alu(&s, q8nn_vta_alu_mul, false, 0, x, lin_m0);
    alu(&s, q8nn_vta_alu_add, false, 0, x, lin_c0);
  } else {
    for (uint32_t i = 0; i + 1 < limbs; i++) alu_rr(&s, q8nn_vta_alu_add, scratch + i * n, x);
    alu(&s, q8nn_vta_alu_mul, false, 0, scratch, lin_m0);
    alu(&s, q8nn_vta_alu_add, false, 0, scratch, lin_c0);
    alu(&s, q8nn_vta_alu_shr, true, p->w, scratch, 0);
    for (uint32_t i = 1; i + 1 < limbs; i++) {
      alu(&s, q8nn_vta_alu_mul, false, 0, scratch + i * n, m_row[i]);
      alu_rr(&s, q8nn_vta_alu_add, scratch + i * n, scratch + (i - 1) * n);
      alu(&s, q8nn_vta_alu_shr, true, p->w, scratch + i * n, 0);
    }
    alu(&s, q8nn_vta_alu_mul, false, 0, x, m_row[limbs - 1]);
    alu_rr(&s, q8nn_vta_alu_add, x, scratch + (limbs - 2) * n);
  }
  if (p->sign) alu_rr(&s, q8nn_vta_alu_add, x, d);
  alu(&s, q8nn_vta_alu_shr, false, 0, x, lin_q);
  if (p->final_clamp) {
    alu(&s, q8nn_vta_alu_max, true, p->out_min, x, 0);
    alu(&s, q8nn_vta_alu_min, true, p->out_max, x, 0);
  }
  return s.status;
}
