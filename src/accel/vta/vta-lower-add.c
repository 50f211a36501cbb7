/* Add with broadcasting on VTA (docs/vta-backend.md "Add", "Exact add").

   The host materializes each operand at the output shape (numpy broadcasting) into an int8 DRAM
   image of whole ACC_8BIT elements (B*BLOCK_OUT bytes; the tail of the last element stays 0), so
   no LOAD reads and no STORE writes past an image, and only the output's bytes are copied back.
   Per chunk of Q rows: LOAD ACC_8BIT of the operands (sign-extended into ACC), ALU steps, STORE.
   16-bit mode (vta-requant.h): a and b loaded once, 15 ALU instructions (A = (a*ma + ca) >> sa,
   B likewise, S = clamp(A + B), q = (S*mo + ro) >> so, out = clamp(q + zo)); constants ca, cb, ro
   in 3 ACC rows. Exact mode (q8nn_vta_add_exact): the short form when one was found and verified
   on all input pairs (the 16-bit program's 15 steps with multipliers and offsets in 9 constant
   rows), else the limb form: each operand loaded into up to 3 regions (P, U, W), 3-10 ALU
   instructions per operand, S = Za + Zb, then the exact requantization of the convolution
   (vta-lower.h) on 4 scratch regions zeroed by a GEMM reset; 20 constant rows. With
   two virtual threads chunks alternate between two ACC halves so the STORE of one overlaps the
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

bool q8nn_vta_add_exact_of(const struct q8nn_operator* op, bool limbs_only, struct q8nn_vta_add_exact* r) {
  const struct q8nn_qs8_add_params* a = &op->add_params;
  return q8nn_vta_add_exact_derive(a->a_zero_point, a->a_multiplier, a->a_shift, a->b_zero_point, a->b_multiplier,
                                   a->b_shift, a->output_multiplier, a->output_shift, a->left_shift,
                                   a->output_zero_point, a->output_min, a->output_max, limbs_only, r);
}

/* ACC layout: constant rows, then per virtual thread chunks of regions x Q rows. */
#define CONST_ROWS_16BIT 3
#define REGIONS_16BIT 2
#define REGIONS_EXACT 10 /* Pa Ua Wa Pb Ub Wb, then X's scratch A B C D */

static uint32_t const_rows_of(bool exact) { return exact ? Q8NN_VTA_ADD_EXACT_ROWS : CONST_ROWS_16BIT; }
static uint32_t regions_of(bool exact) { return exact ? REGIONS_EXACT : REGIONS_16BIT; }

bool q8nn_vta_add_supports(const struct q8nn_vta_target* vta, const struct q8nn_operator* op) {
  /* the VTA add derives from TFLite's add parameters, not XNNPACK's; no multiplication */
  if (op->add_arithmetic != q8nn_add_arithmetic_tflite || op->add_multiply) return false;
  if (vta->config.acc_depth < const_rows_of(vta->exact) + regions_of(vta->exact) * vta->config.virtual_threads) {
    return false;
  }
  if (vta->exact) {
    struct q8nn_vta_add_exact r;
    return q8nn_vta_add_exact_of(op, vta->limb_form, &r);
  }
  struct q8nn_vta_add_requant r;
  return q8nn_vta_add_requant_of(op, &r);
}

/* One ALU instruction over n rows: dst op= imm, or op= src (a constant row, or a region when
   src_inner is 1). */
struct add_step {
  uint32_t op;
  bool imm_mode;
  int32_t imm;
  uint32_t dst, src, src_inner;
};
static enum q8nn_status push_steps(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* kernels,
                                   const struct add_step* steps, size_t count, uint32_t n) {
  enum q8nn_status s = q8nn_status_success;
  for (size_t i = 0; i < count && s == q8nn_status_success; i++) {
    const struct q8nn_vta_alu_op a = {steps[i].op, steps[i].imm_mode, steps[i].imm, steps[i].dst, steps[i].src,
                                      1, 0, 0, n, steps[i].src_inner};
    s = q8nn_vta_push_alu(cmd, kernels, &a);
  }
  return s;
}

/* The 16-bit steps on a at da and b at db (n rows each); constant rows 0-2. */
static enum q8nn_status push_16bit(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* kernels,
                                   const struct q8nn_vta_add_requant* r, uint32_t da, uint32_t db, uint32_t n) {
  const struct add_step steps[15] = {
      {q8nn_vta_alu_mul, true, r->ma, da, 0, 0},  {q8nn_vta_alu_add, false, 0, da, 0, 0},
      {q8nn_vta_alu_shr, true, r->sa, da, 0, 0},  {q8nn_vta_alu_mul, true, r->mb, db, 0, 0},
      {q8nn_vta_alu_add, false, 0, db, 1, 0},     {q8nn_vta_alu_shr, true, r->sb, db, 0, 0},
      {q8nn_vta_alu_add, false, 0, da, db, 1},    {q8nn_vta_alu_max, true, -r->lim, da, 0, 0},
      {q8nn_vta_alu_min, true, r->lim, da, 0, 0}, {q8nn_vta_alu_mul, true, r->mo, da, 0, 0},
      {q8nn_vta_alu_add, false, 0, da, 2, 0},     {q8nn_vta_alu_shr, true, r->so, da, 0, 0},
      {q8nn_vta_alu_add, true, r->zo, da, 0, 0},  {q8nn_vta_alu_max, true, r->out_min, da, 0, 0},
      {q8nn_vta_alu_min, true, r->out_max, da, 0, 0},
  };
  return push_steps(cmd, kernels, steps, 15, n);
}

/* The short exact form's 15 steps on a at da and b at db (n rows each); constant rows in the order
   of struct q8nn_vta_add_short. */
static enum q8nn_status push_short(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* kernels,
                                   const struct q8nn_vta_add_short* r, uint32_t da, uint32_t db, uint32_t n) {
  enum { k_ma, k_ca, k_mb, k_cb, k_neg_lim, k_lim, k_mo, k_ro, k_zo };
  const struct add_step steps[15] = {
      {q8nn_vta_alu_mul, false, 0, da, k_ma, 0},         {q8nn_vta_alu_add, false, 0, da, k_ca, 0},
      {q8nn_vta_alu_shr, true, r->sa, da, 0, 0},         {q8nn_vta_alu_mul, false, 0, db, k_mb, 0},
      {q8nn_vta_alu_add, false, 0, db, k_cb, 0},         {q8nn_vta_alu_shr, true, r->sb, db, 0, 0},
      {q8nn_vta_alu_add, false, 0, da, db, 1},           {q8nn_vta_alu_max, false, 0, da, k_neg_lim, 0},
      {q8nn_vta_alu_min, false, 0, da, k_lim, 0},        {q8nn_vta_alu_mul, false, 0, da, k_mo, 0},
      {q8nn_vta_alu_add, false, 0, da, k_ro, 0},         {q8nn_vta_alu_shr, true, r->so, da, 0, 0},
      {q8nn_vta_alu_add, false, 0, da, k_zo, 0},         {q8nn_vta_alu_max, true, r->out_min, da, 0, 0},
      {q8nn_vta_alu_min, true, r->out_max, da, 0, 0},
  };
  return push_steps(cmd, kernels, steps, 15, n);
}

/* The exact steps (vta-requant.h "Exact add") on chunk regions from d (n rows each): operand i
   loaded at P = d + 3i*n, U = P + n, W = P + 2n; its constants at rows 12 + 4i ... 15 + 4i. */
static enum q8nn_status push_exact(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* kernels,
                                   const struct q8nn_vta_add_exact* r, uint32_t d, uint32_t n) {
  enum q8nn_status s = q8nn_vta_push_reset(cmd, kernels, d + 6 * n, 4 * n);
  for (uint32_t i = 0; i < 2; i++) {
    const struct q8nn_vta_add_exact_input* in = &r->in[i];
    const uint32_t p = d + 3 * i * n, u = p + n, w = p + 2 * n, k = 12 + 4 * i;
    const struct q8nn_vta_alu_op steps[10] = {
        {q8nn_vta_alu_mul, false, 0, u, k, 1, 0, 0, n, 0},     /* U *= Ml */
        {q8nn_vta_alu_add, false, 0, u, k + 1, 1, 0, 0, n, 0}, /* U += c1 */
        {q8nn_vta_alu_shr, true, in->k, u, 0, 1, 0, 0, n, 0},  /* U >>= k */
        {q8nn_vta_alu_mul, false, 0, p, k + 2, 1, 0, 0, n, 0}, /* P *= Mh */
        {q8nn_vta_alu_add, false, 0, p, u, 1, 0, 0, n, 1},     /* P += U */
        {q8nn_vta_alu_add, false, 0, p, k + 3, 1, 0, 0, n, 0}, /* P += c */
        {q8nn_vta_alu_add, true, in->sign_imm, w, 0, 1, 0, 0, n, 0}, /* W += 256 - z */
        {q8nn_vta_alu_shr, true, 8, w, 0, 1, 0, 0, n, 0},       /* W = [x >= 0] */
        {q8nn_vta_alu_add, false, 0, p, w, 1, 0, 0, n, 1},       /* P += W */
        {q8nn_vta_alu_shr, true, in->e, p, 0, 1, 0, 0, n, 0},   /* P >>= e */
    };
    for (size_t j = 0; j < 10 && s == q8nn_status_success; j++) {
      if (!in->sign && j >= 6 && j <= 8) continue;
      if (!in->low && (j <= 2 || j == 4)) continue;
      if (in->e == 0 && j == 9) continue;
      s = q8nn_vta_push_alu(cmd, kernels, &steps[j]);
    }
  }
  if (s == q8nn_status_success) {
    const struct q8nn_vta_alu_op sum = {q8nn_vta_alu_add, false, 0, d, d + 3 * n, 1, 0, 0, n, 1};
    s = q8nn_vta_push_alu(cmd, kernels, &sum); /* X = S = Za + Zb */
  }
  if (s == q8nn_status_success) {
    /* X at d, its scratch regions A..D at d + 6n .. d + 9n */
    const struct q8nn_vta_conv_exact* o = &r->out;
    const struct q8nn_vta_exact_steps steps = {false, true, false, o->sign != 0, false, o->final_clamp != 0,
                                               o->out_min, o->out_max, 0, o->no_low != 0};
    s = q8nn_vta_push_exact_requant(cmd, kernels, &steps, d, d + 6 * n, 1, n);
  }
  if (s == q8nn_status_success && r->late_zp) {
    const struct q8nn_vta_alu_op zp = {q8nn_vta_alu_add, true, r->zp, d, 0, 1, 0, 0, n, 0};
    s = q8nn_vta_push_alu(cmd, kernels, &zp);
  }
  return s;
}

enum q8nn_status q8nn_vta_add_prepare(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                      struct q8nn_vta_op_state* st) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  if (vta->exact ? !q8nn_vta_add_exact_of(op, vta->limb_form, &st->add_exact) : !q8nn_vta_add_requant_of(op, &st->add)) {
    return Q8NN_ERROR(q8nn_status_unsupported_parameter, "add parameters do not fit VTA's requantization");
  }
  /* exact: the limb form; the short exact form has the 16-bit mode's layout with its own rows */
  const bool is_short = vta->exact && st->add_exact.is_short, exact = vta->exact && !is_short;
  size_t total = 1;
  for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) total *= op->add_out_shape[i];
  const uint32_t lanes = cfg->acc_lanes, vt = cfg->virtual_threads;
  const uint32_t const_rows = is_short ? Q8NN_VTA_ADD_SHORT_ROWS : const_rows_of(exact), regions = regions_of(exact);
  const size_t rows = q8nn_divide_round_up(total, lanes);
  const size_t bytes = rows * lanes;
  if (rows > UINT32_MAX / 2 || q8nn_vta_dram_alloc(vta->device, bytes, &st->in_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, bytes, &st->b_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, bytes, &st->out_addr) != q8nn_status_success ||
      q8nn_vta_dram_alloc(vta->device, const_rows * lanes * sizeof(int32_t), &st->const_addr) !=
          q8nn_status_success) {
    st->on_cpu = true;
    return q8nn_status_success;
  }
  st->add_rows = rows;
  st->add_elements = total;
  st->in_bytes = st->b_bytes = st->out_bytes = bytes;
  int32_t* c = (int32_t*) q8nn_vta_dram_ptr(vta->device, st->const_addr, const_rows * lanes * sizeof(int32_t));
  int32_t row[Q8NN_VTA_ADD_EXACT_ROWS];
  if (exact) {
    const struct q8nn_vta_conv_exact* o = &st->add_exact.out;
    const int32_t out_rows[12] = {o->c_bias, o->lo, o->hi, o->neg_ls, o->half, o->mh, o->ml, o->mh2,
                                  o->cm, o->sg, o->hh, o->rs};
    memcpy(row, out_rows, sizeof(out_rows));
    for (int i = 0; i < 2; i++) {
      const struct q8nn_vta_add_exact_input* in = &st->add_exact.in[i];
      row[12 + 4 * i] = in->ml, row[13 + 4 * i] = in->c1, row[14 + 4 * i] = in->mh, row[15 + 4 * i] = in->c;
    }
  } else if (is_short) {
    /* the first 9 fields of struct q8nn_vta_add_short are its constant rows, in order */
    memcpy(row, &st->add_exact.short_form, Q8NN_VTA_ADD_SHORT_ROWS * sizeof(int32_t));
  } else {
    row[0] = st->add.ca, row[1] = st->add.cb, row[2] = st->add.ro;
  }
  for (uint32_t k = 0; k < const_rows; k++) {
    for (uint32_t l = 0; l < lanes; l++) c[k * lanes + l] = row[k];
  }

  /* Per virtual thread a region of regions*Q rows. Loop extents are 14-bit fields (the exact
     mode's reset spans 4Q rows). */
  uint32_t q = (cfg->acc_depth - const_rows) / (regions * vt);
  const uint32_t q_max = exact ? ((1u << 14) - 1) / 4 : (1u << 14) - 1;
  if (q > q_max) q = q_max;
  struct q8nn_vta_cmd* cmd = NULL;
  enum q8nn_status status = q8nn_vta_cmd_create(vta->device, &cmd);
  if (status != q8nn_status_success) return status;
  struct q8nn_vta_ktable kernels = {NULL, 0, 0};
  enum q8nn_status s = q8nn_vta_load_buffer_2d(cmd, st->const_addr, 0, const_rows, 1, const_rows, 0, 0, 0, 0, 0,
                                               q8nn_vta_mem_acc);
  for (uint32_t i = 0; i < vt && s == q8nn_status_success; i++) {
    s = q8nn_vta_dep_push(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  }
  const size_t chunks = q8nn_divide_round_up(rows, q);
  for (size_t k = 0; k < chunks && s == q8nn_status_success; k++) {
    const uint32_t n = (uint32_t) (rows - k * q < q ? rows - k * q : q);
    const uint32_t d = const_rows + (uint32_t) (k % vt) * regions * q;
    const uint32_t offset = (uint32_t) (k * q);
    s = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
    /* 16-bit: a at d, b at d + Q. Exact: a at d, d + n, d + 2n (P U W), b at d + 3n ... */
    uint32_t loads = 0, dst[6];
    uint32_t src[6];
    if (exact) {
      for (uint32_t i = 0; i < 2; i++) {
        const struct q8nn_vta_add_exact_input* in = &st->add_exact.in[i];
        for (uint32_t j = 0; j < 3; j++) {
          if ((j == 1 && !in->low) || (j == 2 && !in->sign)) continue; /* P always, U, W when their steps run */
          dst[loads] = d + (3 * i + j) * n;
          src[loads++] = i == 0 ? st->in_addr : st->b_addr;
        }
      }
    } else {
      dst[0] = d, src[0] = st->in_addr, dst[1] = d + q, src[1] = st->b_addr, loads = 2;
    }
    for (uint32_t i = 0; i < loads && s == q8nn_status_success; i++) {
      s = q8nn_vta_load_buffer_2d(cmd, src[i], offset, n, 1, n, 0, 0, 0, 0, dst[i], q8nn_vta_mem_acc_8bit);
    }
    if (s == q8nn_status_success) {
      s = exact      ? push_exact(cmd, &kernels, &st->add_exact, d, n)
          : is_short ? push_short(cmd, &kernels, &st->add_exact.short_form, d, d + q, n)
                     : push_16bit(cmd, &kernels, &st->add, d, d + q, n);
    }
    if (s == q8nn_status_success) s = q8nn_vta_dep_push(cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store);
    if (s == q8nn_status_success) s = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store);
    if (s == q8nn_status_success) {
      s = q8nn_vta_store_buffer_2d(cmd, d, q8nn_vta_mem_out, st->out_addr, offset, n, 1, n);
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
