/* Add with broadcasting on VTA (docs/vta-backend.md "Add").

   The host materializes each operand at the output shape (numpy broadcasting) into an int8 DRAM
   image of whole ACC_8BIT elements (B*BLOCK_OUT bytes; the tail of the last element stays 0), so
   no LOAD reads and no STORE writes past an image, and only the output's bytes are copied back.
   Per chunk of Q rows: LOAD ACC_8BIT a and b (sign-extended into ACC), 15 ALU instructions
   (vta-requant.h: A = (a*ma + ca) >> sa, B likewise, S = clamp(A + B), q = (S*mo + ro) >> so,
   out = clamp(q + zo)), STORE. Constants ca, cb, ro sit in 3 ACC rows loaded once. With two
   virtual threads chunks alternate between two ACC regions so the STORE of one overlaps the
   loads and ALU work of the next (the ACC loads run on the compute module, spec §4.1). */
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-lower-add.h"

bool q8nn_vta_add_requant_of(const struct q8nn_operator* op, struct q8nn_vta_add_requant* r) {
  const struct q8nn_qs8_add_params* a = &op->add_params;
  return q8nn_vta_add_requant_derive(a->a_zero_point, a->a_multiplier, a->a_shift, a->b_zero_point, a->b_multiplier,
                                     a->b_shift, a->output_multiplier, a->output_shift, a->left_shift,
                                     a->output_zero_point, a->output_min, a->output_max, r);
}

bool q8nn_vta_add_supports(const struct q8nn_vta_target* vta, const struct q8nn_operator* op) {
  struct q8nn_vta_add_requant r;
  /* the VTA add derives from TFLite's add parameters, not XNNPACK's */
  if (op->add_arithmetic != q8nn_add_arithmetic_tflite) return false;
  /* exact mode: no exact add lowering yet, so the add stays on the CPU (exact) */
  if (vta->exact) return false;
  return vta->config.acc_depth >= 3 + 2 * vta->config.virtual_threads && q8nn_vta_add_requant_of(op, &r);
}

#define CONST_ROWS 3

enum q8nn_status q8nn_vta_add_prepare(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                      struct q8nn_vta_op_state* st) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  if (!q8nn_vta_add_requant_of(op, &st->add)) {
    return Q8NN_ERROR(q8nn_status_unsupported_parameter, "add parameters do not fit VTA's 16-bit scheme");
  }
  const struct q8nn_vta_add_requant* r = &st->add;
  size_t total = 1;
  for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) total *= op->add_out_shape[i];
  const uint32_t lanes = cfg->acc_lanes, vt = cfg->virtual_threads;
  const size_t rows = q8nn_divide_round_up(total, lanes);
  const size_t bytes = rows * lanes;
  if (rows > UINT32_MAX / 2 || q8nn_vta_dram_alloc(vta->device, bytes, &st->in_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, bytes, &st->b_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, bytes, &st->out_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, CONST_ROWS * lanes * sizeof(int32_t), &st->const_addr) != q8nn_status_success) {
    st->on_cpu = true;
    return q8nn_status_success;
  }
  st->add_rows = rows;
  st->add_elements = total;
  st->in_bytes = st->b_bytes = st->out_bytes = bytes;
  int32_t* c = (int32_t*) q8nn_vta_dram_ptr(vta->device, st->const_addr, CONST_ROWS * lanes * sizeof(int32_t));
  for (uint32_t l = 0; l < lanes; l++) {
    c[l] = r->ca;
    c[lanes + l] = r->cb;
    c[2 * lanes + l] = r->ro;
  }

  /* ACC: constants, then per virtual thread a region of 2Q rows (a at +0, b at +Q). Loop extents
     are 14-bit fields. */
  uint32_t q = (cfg->acc_depth - CONST_ROWS) / (2 * vt);
  if (q > (1u << 14) - 1) q = (1u << 14) - 1;
  struct q8nn_vta_cmd* cmd = NULL;
  enum q8nn_status status = q8nn_vta_cmd_create(vta->device, &cmd);
  if (status != q8nn_status_success) return status;
  struct q8nn_vta_ktable kernels = {NULL, 0, 0};
  enum q8nn_status s = q8nn_vta_load_buffer_2d(cmd, st->const_addr, 0, CONST_ROWS, 1, CONST_ROWS, 0, 0, 0, 0, 0,
                                               q8nn_vta_mem_acc);
  for (uint32_t i = 0; i < vt && s == q8nn_status_success; i++) {
    s = q8nn_vta_dep_push(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  }
  const size_t chunks = q8nn_divide_round_up(rows, q);
  for (size_t k = 0; k < chunks && s == q8nn_status_success; k++) {
    const uint32_t n = (uint32_t) (rows - k * q < q ? rows - k * q : q);
    const uint32_t da = CONST_ROWS + (uint32_t) (k % vt) * 2 * q, db = da + q;
    const uint32_t offset = (uint32_t) (k * q);
    s = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
    if (s == q8nn_status_success) {
      s = q8nn_vta_load_buffer_2d(cmd, st->in_addr, offset, n, 1, n, 0, 0, 0, 0, da, q8nn_vta_mem_acc_8bit);
    }
    if (s == q8nn_status_success) {
      s = q8nn_vta_load_buffer_2d(cmd, st->b_addr, offset, n, 1, n, 0, 0, 0, 0, db, q8nn_vta_mem_acc_8bit);
    }
    /* opcode, use_imm, imm, dst, src (constant row or b), src inner factor */
    const struct {
      uint32_t op;
      bool imm_mode;
      int32_t imm;
      uint32_t dst, src, src_inner;
    } steps[15] = {
        {q8nn_vta_alu_mul, true, r->ma, da, 0, 0},  {q8nn_vta_alu_add, false, 0, da, 0, 0},
        {q8nn_vta_alu_shr, true, r->sa, da, 0, 0},  {q8nn_vta_alu_mul, true, r->mb, db, 0, 0},
        {q8nn_vta_alu_add, false, 0, db, 1, 0},     {q8nn_vta_alu_shr, true, r->sb, db, 0, 0},
        {q8nn_vta_alu_add, false, 0, da, db, 1},    {q8nn_vta_alu_max, true, -r->lim, da, 0, 0},
        {q8nn_vta_alu_min, true, r->lim, da, 0, 0}, {q8nn_vta_alu_mul, true, r->mo, da, 0, 0},
        {q8nn_vta_alu_add, false, 0, da, 2, 0},     {q8nn_vta_alu_shr, true, r->so, da, 0, 0},
        {q8nn_vta_alu_add, true, r->zo, da, 0, 0},  {q8nn_vta_alu_max, true, r->out_min, da, 0, 0},
        {q8nn_vta_alu_min, true, r->out_max, da, 0, 0},
    };
    for (size_t i = 0; i < 15 && s == q8nn_status_success; i++) {
      const struct q8nn_vta_alu_op a = {steps[i].op, steps[i].imm_mode, steps[i].imm, steps[i].dst, steps[i].src,
                                        1, 0, 0, n, steps[i].src_inner};
      s = q8nn_vta_push_alu(cmd, &kernels, &a);
    }
    if (s == q8nn_status_success) s = q8nn_vta_dep_push(cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store);
    if (s == q8nn_status_success) s = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store);
    if (s == q8nn_status_success) {
      s = q8nn_vta_store_buffer_2d(cmd, da, q8nn_vta_mem_out, st->out_addr, offset, n, 1, n);
    }
    if (s == q8nn_status_success) s = q8nn_vta_dep_push(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  }
  for (uint32_t i = 0; i < vt && s == q8nn_status_success; i++) {
    s = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  }
  status = q8nn_vta_cmd_finalize(cmd, &st->program);
  if (status == q8nn_status_success && s != q8nn_status_success) {
    q8nn_vta_program_release(vta->device, &st->program);
    status = s;
  }
  if (status == q8nn_status_success) st->has_program = true;
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_ktable_free(&kernels);
  if (status != q8nn_status_success) {
    return Q8NN_ERROR(q8nn_status_backend_error, "VTA add lowering failed: %s",
                      q8nn_vta_device_last_error(vta->device));
  }
  return q8nn_status_success;
}

/* Operand x (right-aligned 6-d shape xs) at output shape os, densely into dst. */
static void materialize(const int8_t* x, const size_t* xs, const size_t* os, int8_t* dst) {
  size_t stride[Q8NN_MAX_DIMS];
  size_t s = 1;
  for (size_t d = Q8NN_MAX_DIMS; d-- > 0;) {
    stride[d] = xs[d] == 1 ? 0 : s;
    s *= xs[d];
  }
  const size_t inner = os[Q8NN_MAX_DIMS - 1];
  const size_t inner_stride = stride[Q8NN_MAX_DIMS - 1];
  size_t idx[Q8NN_MAX_DIMS - 1] = {0};
  size_t outer = 1;
  for (size_t d = 0; d + 1 < Q8NN_MAX_DIMS; d++) outer *= os[d];
  for (size_t o = 0; o < outer; o++) {
    size_t base = 0;
    for (size_t d = 0; d + 1 < Q8NN_MAX_DIMS; d++) base += idx[d] * stride[d];
    if (inner_stride == 1) {
      memcpy(dst, x + base, inner);
    } else {
      memset(dst, x[base], inner);
    }
    dst += inner;
    for (size_t d = Q8NN_MAX_DIMS - 1; d-- > 0;) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
}

enum q8nn_status q8nn_vta_add_run(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                  struct q8nn_vta_op_state* st) {
  int8_t* a = (int8_t*) q8nn_vta_dram_ptr(vta->device, st->in_addr, st->in_bytes);
  int8_t* b = (int8_t*) q8nn_vta_dram_ptr(vta->device, st->b_addr, st->b_bytes);
  const int8_t* y = (const int8_t*) q8nn_vta_dram_ptr(vta->device, st->out_addr, st->out_bytes);
  if (a == NULL || b == NULL || y == NULL) return Q8NN_ERROR(q8nn_status_backend_error, "VTA DRAM images missing");
  materialize(op->add_a, op->add_a_shape, op->add_out_shape, a);
  materialize(op->add_b, op->add_b_shape, op->add_out_shape, b);
  const enum q8nn_status status = q8nn_vta_run_program(vta, st);
  if (status != q8nn_status_success) return status;
  memcpy(op->add_y, y, st->add_elements);
  return q8nn_status_success;
}
