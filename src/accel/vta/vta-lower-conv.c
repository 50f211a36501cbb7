/* Convolution and depthwise convolution on VTA (docs/vta-backend.md).

   DRAM images (element = one VTA element, B = BATCH, bi/bo = BLOCK_IN/OUT):
     input   [N/B][IB][Hp][Wp][B][bi] int8, spatial padding materialized with the input zero point
             (written once at prepare; each run rewrites only the interior, real channels)
     weights [OB][IB][KH][KW][bo][bi] int8 (depthwise: [CB][KH][KW][bo][bi], block-diagonal)
     consts  [OB][7][B][bo] int32: c_bias, lo, hi, s1, m, r2, s2 (vta-requant.h)
     output  [N/B][OB][OH][OW][B][bo] int8
   Tiles: (batch block, output-block group, output rows x cols, input-block chunk); per chunk one
   LOAD INP (+ LOAD WGT unless the whole weight tensor stays resident) on the load module, a GEMM
   whose micro-ops enumerate (tap, pixel) pixel fastest and whose loops run over output blocks and
   input blocks; after the last chunk 8-10 ALU instructions requantize and STOREs write the tile.
   Virtual threads alternate tiles between halves of INP/WGT/ACC with the credit idiom of spec 7.6. */
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-lower-conv.h"

enum { kind_gemm = 1, kind_reset = 2 }; /* 3: Q8NN_VTA_KIND_ALU */

struct conv_shape {
  bool depthwise; /* one input channel per group: output block k reads input block k / dm */
  uint32_t dm;
  uint32_t batch, in_h, in_w, cin, cout, groups, gic, goc;
  uint32_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  uint32_t oh, ow, taps;
};

static void shape_of(const struct q8nn_operator* op, struct conv_shape* s) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  memset(s, 0, sizeof(*s));
  s->groups = (uint32_t) g->groups;
  s->gic = (uint32_t) g->group_input_channels;
  s->goc = (uint32_t) g->group_output_channels;
  s->cin = s->groups * s->gic;
  s->cout = s->groups * s->goc;
  s->depthwise = s->gic == 1 && s->goc == 1;
  s->dm = 1;
  s->kh = g->kernel_height, s->kw = g->kernel_width;
  s->sh = g->stride_height, s->sw = g->stride_width;
  s->dh = g->dilation_height, s->dw = g->dilation_width;
  s->pt = g->padding_top, s->pl = g->padding_left, s->pb = g->padding_bottom, s->pr = g->padding_right;
  s->taps = s->kh * s->kw;
  s->batch = (uint32_t) op->batch_size;
  s->in_h = (uint32_t) op->input_height, s->in_w = (uint32_t) op->input_width;
  s->oh = (uint32_t) op->output_height, s->ow = (uint32_t) op->output_width;
}

/* Depth multiplier dm > 1 (one input channel per group, dm outputs each): when dm divides the
   block and the output blocks (ob = ib * dm then), output block k reads only input block k / dm,
   a banded weight element, instead of dense weights over all input blocks with zero blocks
   (ib times the GEMM work). */
static void banded_shape(struct conv_shape* s, uint32_t bo) {
  if (s->gic != 1 || s->goc <= 1 || bo % s->goc != 0) return;
  if (((s->cout + bo - 1) / bo) % s->goc != 0) return;
  s->depthwise = true;
  s->dm = s->goc;
}

static uint32_t div_up(uint32_t n, uint32_t d) { return (n + d - 1) / d; }
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* A dense convolution with few input channels (the 3-channel first layer: 9 taps x 1 block of 16
   lanes, 3 used) packs its taps into the input blocks instead: the host writes an im2col image
   (per output pixel, lane k = tap * cin + c, padding = the input zero point) and the GEMM is a 1x1
   convolution over ceil(taps * cin / 16) blocks. Returns that GEMM's shape when it issues fewer
   GEMM micro-ops per pixel than the tap loop. */
static bool packed_shape(const struct conv_shape* s, uint32_t bi, struct conv_shape* g) {
  if (s->depthwise || s->groups != 1 || s->taps == 1 || s->cin >= bi) return false;
  const uint32_t blocks = div_up(s->taps * s->cin, bi);
  if (blocks >= s->taps * div_up(s->cin, bi) || blocks > 16) return false;
  *g = *s;
  g->cin = g->gic = blocks * bi;
  g->kh = g->kw = g->sh = g->sw = g->dh = g->dw = g->taps = 1;
  g->pt = g->pl = g->pb = g->pr = 0;
  g->in_h = s->oh, g->in_w = s->ow;
  return true;
}

/* Weight of output channel oc, input channel ic (both global), tap; 0 outside oc's group. */
static int8_t weight_at(const struct q8nn_operator* op, const struct conv_shape* s, uint32_t oc, uint32_t ic,
                        uint32_t tap) {
  if (oc >= s->cout || ic >= s->cin) return 0;
  const uint32_t group = oc / s->goc;
  if (ic < group * s->gic || ic >= (group + 1) * s->gic) return 0;
  return op->kernel[((size_t) oc * s->taps + tap) * s->gic + (ic - group * s->gic)];
}

/* Per output channel: the sum of its weights (folds the input zero point into the bias) and the
   sum of their magnitudes (bounds the GEMM sum: |sum(x*w)| <= 128 * sum|w|). */
static void weight_sums(const struct q8nn_operator* op, size_t per_channel, size_t oc, int64_t* sum,
                        int64_t* sum_abs) {
  const int8_t* w = op->kernel + oc * per_channel;
  int64_t total = 0, total_abs = 0;
  for (size_t i = 0; i < per_channel; i++) {
    total += w[i];
    total_abs += w[i] < 0 ? -w[i] : w[i];
  }
  *sum = total;
  *sum_abs = total_abs;
}

bool q8nn_vta_conv_requant_table(const struct q8nn_operator* op, size_t padded_channels,
                                 struct q8nn_vta_conv_requant* requant) {
  struct conv_shape s;
  shape_of(op, &s);
  const size_t per_channel = (size_t) s.taps * s.gic;
  for (size_t oc = 0; oc < padded_channels; oc++) {
    if (oc >= s.cout) {
      memset(&requant[oc], 0, sizeof(requant[oc]));
      continue;
    }
    int64_t sum, sum_abs;
    weight_sums(op, per_channel, oc, &sum, &sum_abs);
    const int64_t bias_prime = (int64_t) op->bias[oc] - (int64_t) op->input_zero_point * sum;
    if (!q8nn_vta_conv_requant_derive(op->multiplier[oc], op->shift[oc], bias_prime, sum_abs,
                                      op->conv_params.output_zero_point, op->conv_params.output_min,
                                      op->conv_params.output_max, &requant[oc])) {
      return false;
    }
  }
  return true;
}

bool q8nn_vta_conv_exact_table(const struct q8nn_operator* op, size_t padded_channels, bool linear_allowed,
                               struct q8nn_vta_conv_exact* exact) {
  struct conv_shape s;
  shape_of(op, &s);
  const size_t per_channel = (size_t) s.taps * s.gic;
  struct q8nn_vta_exact_channel* ch = malloc((s.cout ? s.cout : 1) * sizeof(*ch));
  struct q8nn_vta_conv_linear* lin = malloc((s.cout ? s.cout : 1) * sizeof(*lin));
  const bool allocated = ch != NULL && lin != NULL;
  for (size_t oc = 0; oc < padded_channels && allocated; oc++) {
    /* padded channels: all constants 0 (their output is never copied back) */
    memset(&exact[oc], 0, sizeof(exact[oc]));
    if (oc >= s.cout) continue;
    int64_t sum, sum_abs;
    weight_sums(op, per_channel, oc, &sum, &sum_abs);
    const int64_t bias_prime = (int64_t) op->bias[oc] - (int64_t) op->input_zero_point * sum;
    ch[oc] = (struct q8nn_vta_exact_channel){op->multiplier[oc], op->shift[oc], op->rounding == q8nn_rounding_single,
                                             op->conv_params.output_zero_point, op->conv_params.output_min,
                                             op->conv_params.output_max, bias_prime, sum_abs};
    exact[oc].limb_ok = q8nn_vta_conv_exact_derive(ch[oc].multiplier, ch[oc].shift, ch[oc].rounding, bias_prime,
                                                   sum_abs, ch[oc].zero_point, ch[oc].out_min, ch[oc].out_max,
                                                   &exact[oc]);
  }
  bool ok = allocated;
  if (allocated && s.cout > 0 && linear_allowed && q8nn_vta_conv_linear_derive(ch, s.cout, lin)) {
    /* the linear form: its program is the layer's (padded channels keep constant rows of 0) */
    for (size_t oc = 0; oc < padded_channels; oc++) {
      exact[oc].linear = 1;
      exact[oc].lin = lin[oc < s.cout ? oc : 0];
      if (oc >= s.cout) {
        struct q8nn_vta_conv_linear* l = &exact[oc].lin;
        l->c_bias = l->lo = l->hi = l->neg_t0 = l->dl = l->m0 = l->c0 = l->m1 = l->m2 = l->m3 = l->q = 0;
      }
    }
  } else {
    for (size_t oc = 0; oc < s.cout && ok; oc++) ok = exact[oc].limb_ok;
  }
  free(ch);
  free(lin);
  return ok;
}

/* ---- planning ------------------------------------------------------------------------------ */

struct budgets {
  uint32_t inp, wgt, acc_total, uop;
  uint32_t const_rows, regions; /* constant rows per output block, ACC rows per pixel-block */
};

static uint32_t in_cols_of(const struct conv_shape* s, uint32_t wp, uint32_t cols) {
  return cols == s->ow ? wp : (cols - 1) * s->sw + s->dw * (s->kw - 1) + 1;
}
static uint32_t in_rows_of(const struct conv_shape* s, uint32_t rows) {
  return (rows - 1) * s->sh + s->dh * (s->kh - 1) + 1;
}

/* Largest tile (rows, cols) for obg output blocks and `blocks` input blocks per chunk; false if
   not even one pixel fits. */
static bool fit_tile(const struct conv_shape* s, const struct budgets* b, uint32_t wp, uint32_t vt, uint32_t obg,
                     uint32_t blocks, uint32_t* rows_out, uint32_t* cols_out) {
  if (b->const_rows * obg >= b->acc_total) return false;
  const uint32_t acc_half = (b->acc_total - b->const_rows * obg) / vt;
  const uint32_t max_pix = min_u32(acc_half / (obg * b->regions), b->uop / s->taps);
  if (max_pix < 3) return false;
  const uint32_t inp_rows_max = b->inp / blocks; /* in_rows * in_cols per block */
  /* Full-width tiles first. */
  uint32_t cols = s->ow;
  uint32_t in_cols = wp;
  if (in_rows_of(s, 1) * in_cols > inp_rows_max || cols > max_pix) {
    const uint32_t by_inp_cols = inp_rows_max / in_rows_of(s, 1);
    const uint32_t need = s->dw * (s->kw - 1) + 1;
    if (by_inp_cols < need) return false;
    cols = min_u32(min_u32((by_inp_cols - need) / s->sw + 1, max_pix), s->ow - (s->ow > 1 ? 1 : 0));
    if (cols == 0) return false;
    in_cols = in_cols_of(s, wp, cols);
    if (in_rows_of(s, 1) * in_cols > inp_rows_max) return false;
    *rows_out = 1;
    *cols_out = cols;
    return true;
  }
  const uint32_t in_rows_max = inp_rows_max / in_cols;
  uint32_t rows = (in_rows_max - (s->dh * (s->kh - 1) + 1)) / s->sh + 1;
  rows = min_u32(rows, max_pix / cols);
  rows = min_u32(rows, s->oh);
  if (rows == 0) return false;
  *rows_out = rows;
  *cols_out = cols;
  return true;
}

/* ALU micro-ops per pixel row of the requantization (planner estimate). */
static uint32_t alu_steps(const struct q8nn_vta_conv_plan* p) {
  if (!p->exact) return 10;
  if (p->linear) return q8nn_vta_linear_alu_steps(p->limbs, p->sign_needed, p->final_clamp);
  return 19 + (p->clamp_needed ? 2 : 0) + p->ls_needed + (p->sign_needed ? 3 + p->sign_mixed : 0) +
         (p->final_clamp ? 2 : 0);
}

/* The planner's cycle estimate: the three modules of one candidate tiling run through the
   program's token protocol (vt credits between load and compute per chunk, vt between compute and
   store per tile) for the first few tiles, and the steady-state time per tile extrapolates the
   rest. A max(load, compute, store) estimate assumed perfect overlap; with the ALU phase at the end
   of each tile and only vt chunks of prefetch, load-heavy GEMM phases and compute-heavy ALU phases
   alternate and the slower one shows (the 7x7 and 14x14 layers lost 1.3-1.5x to this). */
struct pipe_costs {
  uint64_t load, reset, gemm, alu, store; /* cycles per chunk (load, gemm) or per tile */
};
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t simulate_pipeline(const struct pipe_costs* k, uint64_t tiles, uint64_t chunks, uint32_t vt) {
  enum { max_vt = 2, sim_tiles = 12 };
  uint64_t gemm_done[max_vt] = {0, 0}, store_done[max_vt] = {0, 0};
  uint64_t t_load = 0, t_comp = 0, t_store = 0, at_half = 0;
  const uint64_t n = tiles < sim_tiles ? tiles : sim_tiles;
  uint64_t g = 0;
  for (uint64_t t = 0; t < n; t++) {
    if (t == n / 2) at_half = t_store;
    for (uint64_t ch = 0; ch < chunks; ch++, g++) {
      t_load = max_u64(t_load, gemm_done[g % vt]) + k->load;
      uint64_t start = max_u64(t_comp, t_load);
      if (ch == 0) start = max_u64(start, store_done[t % vt]) + k->reset;
      t_comp = start + k->gemm;
      gemm_done[g % vt] = t_comp;
    }
    t_comp += k->alu;
    t_store = max_u64(t_store, t_comp) + k->store;
    store_done[t % vt] = t_store;
  }
  if (n == tiles) return t_store;
  /* steady state: the second half of the simulated tiles */
  const uint64_t per_tile = (t_store - at_half) / (n - n / 2);
  return t_store + (tiles - n) * per_tile;
}

/* best arrives with the requantization fields set (exact, flags, const_rows, regions). */
static bool plan_conv(const struct q8nn_vta_hw_config* cfg, const struct conv_shape* s,
                      struct q8nn_vta_conv_plan* best) {
  const uint32_t bi = cfg->block_in, bo = cfg->block_out, vt = cfg->virtual_threads;
  struct q8nn_vta_conv_plan p = *best;
  p.depthwise = s->depthwise && bi == bo;
  p.vt = vt;
  p.ib = div_up(s->cin, bi);
  p.ob = div_up(s->cout, bo);
  if (p.depthwise) p.ib = p.ob / s->dm;
  p.dm = p.depthwise ? s->dm : 1;
  /* Groups of whole blocks (Cin/G and Cout/G multiples of 16) run as per-group convolutions: an
     output block reads only its group's input blocks. Otherwise dense weights with zero blocks. */
  const bool grouped = !p.depthwise && s->groups > 1 && s->gic % bi == 0 && s->goc % bo == 0;
  p.wib = grouped ? s->gic / bi : p.ib;
  p.gob = grouped ? s->goc / bo : p.ob;
  p.nb = div_up(s->batch, cfg->batch);
  p.hp = s->in_h + s->pt + s->pb;
  p.wp = s->in_w + s->pl + s->pr;
  p.oh = s->oh, p.ow = s->ow;
  const uint64_t total_wgt = (uint64_t) p.ob * (p.depthwise ? 1 : p.wib) * s->taps;
  p.weights_resident = total_wgt <= cfg->wgt_depth;
  struct budgets b = {cfg->inp_depth / vt, p.weights_resident ? cfg->wgt_depth : cfg->wgt_depth / vt,
                      cfg->acc_depth, cfg->uop_depth / 4, p.const_rows, p.regions};
  const uint64_t inp_elem = cfg->inp_elem_bytes, out_elem = cfg->out_elem_bytes, wgt_elem = cfg->wgt_elem_bytes;
  const uint64_t bw = cfg->dram_bytes_per_cycle, lat = cfg->dram_latency_cycles;
  bool found = false;
  const uint32_t ibc_max = p.depthwise ? 1 : p.wib;
  for (uint32_t obg = 1; obg <= p.ob; obg++) {
    /* Only group sizes that split the blocks evenly or leave the fewest groups matter. */
    if (grouped ? p.gob % obg != 0 : obg != p.ob && div_up(p.ob, obg) == div_up(p.ob, obg + 1)) continue;
    if (obg % p.dm != 0) continue; /* banded: whole input blocks per group */
    for (uint32_t ibc = 1; ibc <= ibc_max; ibc++) {
      if (ibc != p.wib && !p.depthwise && div_up(p.wib, ibc) == div_up(p.wib, ibc + 1)) continue;
      const uint32_t blocks = p.depthwise ? obg / p.dm : ibc;
      const uint64_t chunk_wgt = (uint64_t) obg * (p.depthwise ? 1 : ibc) * s->taps;
      if (!p.weights_resident && chunk_wgt > b.wgt) continue;
      uint32_t rows, cols;
      if (!fit_tile(s, &b, p.wp, vt, obg, blocks, &rows, &cols)) continue;
      const uint64_t pix = (uint64_t) rows * cols, ppix = pix < 3 ? 3 : pix;
      const uint64_t tiles = (uint64_t) p.nb * div_up(p.ob, obg) * div_up(s->oh, rows) * div_up(s->ow, cols);
      const uint64_t chunks = p.depthwise ? 1 : div_up(p.wib, ibc);
      const uint64_t in_bytes = (uint64_t) blocks * in_rows_of(s, rows) * in_cols_of(s, p.wp, cols) * inp_elem;
      const uint64_t load = lat + in_bytes / bw + (p.weights_resident ? 0 : lat + chunk_wgt * wgt_elem / bw);
      const uint64_t gemm = chunk_wgt * ppix + 2;
      const uint64_t steps = alu_steps(&p);
      const struct pipe_costs k = {load, (uint64_t) p.regions * obg * ppix + 1, gemm,
                                   2 * steps * obg * ppix + steps, lat + obg * pix * out_elem / bw};
      const uint64_t l = tiles * chunks * load, cc = tiles * (chunks * gemm + k.reset + k.alu), st = tiles * k.store;
      const uint64_t overlap = max_u64(max_u64(l, cc), st) + (l + cc + st) / tiles;
      const uint64_t est = max_u64(simulate_pipeline(&k, tiles, chunks, vt), vt > 1 ? overlap : l + cc + st);
      if (!found || est < best->est_cycles) {
        p.obg = obg, p.ibc = p.depthwise ? obg : ibc, p.rows = rows, p.cols = cols, p.est_cycles = est;
        *best = p;
        found = true;
      }
    }
  }
  return found;
}

/* ---- support check ------------------------------------------------------------------------- */

bool q8nn_vta_conv_supports(const struct q8nn_vta_target* vta, const struct q8nn_operator* op) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  if (op->kernel == NULL || op->bias == NULL || op->multiplier == NULL || op->shift == NULL) return false;
  if (op->transposed) return false; /* the lowering computes a convolution's input windows */
  /* VTA's requantization derives from TFLite's fixed-point multipliers; XNNPACK's fp32 has none */
  if (op->rounding == q8nn_rounding_fp32) return false;
  if (cfg->block_in != cfg->block_out) return false;
  struct conv_shape s, g;
  shape_of(op, &s);
  /* The smallest tile of the GEMM's shape (packed taps where prepare packs them) must fit: one
     output block, one input block, 3 pixels of one column. */
  if (!packed_shape(&s, cfg->block_in, &g)) g = s;
  const uint32_t vt = cfg->virtual_threads;
  const uint64_t in_rows = (uint64_t) g.dh * (g.kh - 1) + 1, in_cols = (uint64_t) g.dw * (g.kw - 1) + 1;
  const uint32_t const_rows = vta->exact ? Q8NN_VTA_CONV_EXACT_ROWS : Q8NN_VTA_CONV_REQUANT_ROWS;
  const uint32_t regions = vta->exact ? 5 : 1;
  if (in_rows * in_cols > cfg->inp_depth / vt || g.taps * 3 > cfg->uop_depth / 4 ||
      g.taps > cfg->wgt_depth / vt || const_rows + 3 * vt * regions > cfg->acc_depth) {
    return false;
  }
  const size_t padded = (size_t) div_up(s.cout, cfg->block_out) * cfg->block_out;
  bool ok;
  if (vta->exact) {
    struct q8nn_vta_conv_exact* r = malloc(padded * sizeof(*r));
    if (r == NULL) return false;
    /* a limb form for every channel is enough to run; the linear form (the costlier derivation)
       is only needed where it is not */
    ok = q8nn_vta_conv_exact_table(op, padded, false, r) ||
         (!vta->limb_form && q8nn_vta_conv_exact_table(op, padded, true, r));
    free(r);
  } else {
    struct q8nn_vta_conv_requant* r = malloc(padded * sizeof(*r));
    if (r == NULL) return false;
    ok = q8nn_vta_conv_requant_table(op, padded, r);
    free(r);
  }
  return ok;
}

/* ---- recording ----------------------------------------------------------------------------- */

struct lower {
  struct q8nn_vta_cmd* cmd;
  struct q8nn_vta_ktable kernels;
  enum q8nn_status status;
  uint32_t const_rows; /* per output block */
};

/* A loop of one iteration never applies its factors: record them as 0, so that a factor that is
   only meaningful for longer loops (e.g. a weight stride equal to a small WGT depth) cannot
   overflow its instruction field. */
static enum q8nn_status loop_begin(struct q8nn_vta_cmd* cmd, uint32_t extent, uint32_t dst_factor,
                                   uint32_t src_factor, uint32_t wgt_factor) {
  if (extent <= 1) dst_factor = src_factor = wgt_factor = 0;
  return q8nn_vta_uop_loop_begin(cmd, extent, dst_factor, src_factor, wgt_factor);
}

static enum q8nn_status record_kernel(struct q8nn_vta_cmd* cmd, void* context) {
  const struct q8nn_vta_kdesc* d = context;
  const uint32_t* v = d->v;
  enum q8nn_status st = q8nn_status_success;
  switch (d->kind) {
    case kind_gemm: {
      const uint32_t dst = v[0], src = v[1], wgt = v[2], pix = v[3], ppix = v[4], cols = v[5], in_cols = v[6],
                     in_rows = v[7], sh = v[8], sw = v[9], dh = v[10], dw = v[11], kh = v[12], kw = v[13],
                     obg = v[14], ibc = v[15], wf_ob = v[16], depthwise = v[17], dm = v[18];
      const uint32_t block = in_rows * in_cols;
      if (depthwise && dm > 1) {
        /* banded: input blocks outer (dm output blocks each), their dm output blocks inner */
        st = loop_begin(cmd, obg / dm, dm * ppix, block, dm * wf_ob);
        if (st == q8nn_status_success) st = loop_begin(cmd, dm, ppix, 0, wf_ob);
      } else {
        st = loop_begin(cmd, obg, ppix, depthwise ? block : 0, wf_ob);
        if (st == q8nn_status_success && !depthwise) st = loop_begin(cmd, ibc, 0, block, kh * kw);
      }
      for (uint32_t y = 0; y < kh && st == q8nn_status_success; y++) {
        for (uint32_t x = 0; x < kw && st == q8nn_status_success; x++) {
          for (uint32_t p = 0; p < ppix && st == q8nn_status_success; p++) {
            /* Pixels beyond the tile (tiles of 1-2 pixels) repeat pixel 0 into spare ACC rows so no
               two micro-ops within 2 positions write one row. */
            const uint32_t r = p < pix ? p / cols : 0, c = p < pix ? p % cols : 0;
            st = q8nn_vta_uop_push(cmd, 0, 0, dst + p, src + (r * sh + y * dh) * in_cols + c * sw + x * dw,
                                   wgt + y * kw + x, 0, 0, 0);
          }
        }
      }
      if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
      if (st == q8nn_status_success && (!depthwise || dm > 1)) st = q8nn_vta_uop_loop_end(cmd);
      return st;
    }
    case kind_reset:
      st = loop_begin(cmd, v[2], v[1], 0, 0);
      if (st == q8nn_status_success) st = loop_begin(cmd, v[1], 1, 0, 0);
      if (st == q8nn_status_success) st = q8nn_vta_uop_push(cmd, 0, 1, v[0], 0, 0, 0, 0, 0);
      if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
      if (st == q8nn_status_success) st = q8nn_vta_uop_loop_end(cmd);
      return st;
  }
  return q8nn_status_backend_error;
}

static void push_kernel(struct lower* lw, bool gemm, const struct q8nn_vta_kdesc* d) {
  if (lw->status != q8nn_status_success) return;
  const uint64_t key = q8nn_vta_ktable_key(&lw->kernels, d);
  if (key == UINT64_MAX) {
    lw->status = q8nn_status_out_of_memory;
    return;
  }
  lw->status = gemm ? q8nn_vta_push_gemm_op(lw->cmd, key, record_kernel, (void*) d)
                    : q8nn_vta_push_alu_op(lw->cmd, key, record_kernel, (void*) d);
}

/* One requantization step over obg blocks x ppix pixel rows at dst: with the constant row k of
   each block (k + 7*block) or with an immediate. */
static void alu(struct lower* lw, uint32_t opcode, bool use_imm, int32_t imm, uint32_t dst, uint32_t k,
                uint32_t obg, uint32_t ppix) {
  if (lw->status != q8nn_status_success) return;
  const struct q8nn_vta_alu_op a = {opcode, use_imm, imm, dst, k, obg, ppix, lw->const_rows, ppix, 0};
  lw->status = q8nn_vta_push_alu(lw->cmd, &lw->kernels, &a);
}

/* The exact requantization of one tile (vta-requant.h): regions X (the accumulators), A, B, C, D
   of obg*ppix rows each, zeroed by the GEMM reset; constants k of block j at row k + 12*j. */
static void requantize_exact(struct lower* lw, const struct q8nn_vta_conv_plan* p, const struct q8nn_operator* op,
                             uint32_t x, uint32_t obg, uint32_t ppix) {
  if (lw->status != q8nn_status_success) return;
  if (p->linear) {
    const struct q8nn_vta_linear_steps lin = {p->limbs, p->exact_w, p->sign_needed, p->final_clamp,
                                              op->conv_params.output_min, op->conv_params.output_max,
                                              lw->const_rows};
    lw->status = q8nn_vta_push_linear_requant(lw->cmd, &lw->kernels, &lin, x, x + obg * ppix, obg, ppix);
    return;
  }
  const struct q8nn_vta_exact_steps steps = {true, p->clamp_needed, p->ls_needed, p->sign_needed, p->sign_mixed,
                                             p->final_clamp, op->conv_params.output_min,
                                             op->conv_params.output_max, lw->const_rows, false};
  lw->status = q8nn_vta_push_exact_requant(lw->cmd, &lw->kernels, &steps, x, x + obg * ppix, obg, ppix);
}

#define CHECK_CMD(call)                                       \
  do {                                                        \
    if (lw.status == q8nn_status_success) lw.status = (call); \
  } while (0)

static enum q8nn_status record_program(struct q8nn_vta_target* vta, const struct q8nn_operator* op,
                                       const struct conv_shape* s, struct q8nn_vta_op_state* st) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  const struct q8nn_vta_conv_plan* p = &st->plan;
  const uint32_t vt = p->vt, taps = s->taps;
  const uint32_t inp_half = cfg->inp_depth / vt;
  const uint32_t wgt_half = p->weights_resident ? 0 : cfg->wgt_depth / vt;
  const uint32_t R = p->const_rows;
  const uint32_t const_rows = R * p->obg;
  const uint32_t acc_half = (cfg->acc_depth - const_rows) / vt;
  const uint32_t n_groups = div_up(p->ob, p->obg);
  struct lower lw = {NULL, {NULL, 0, 0}, q8nn_status_success, R};
  enum q8nn_status status = q8nn_vta_cmd_create(vta->device, &lw.cmd);
  if (status != q8nn_status_success) return status;

  if (n_groups == 1) {
    CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->const_addr, 0, const_rows, 1, const_rows, 0, 0, 0, 0, 0,
                                      q8nn_vta_mem_acc));
  }
  for (uint32_t i = 0; i < vt; i++) {
    CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_load));
    CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute));
  }
  const uint32_t plane = p->hp * p->wp;
  const bool merged_ok = plane <= 0xFFFF;
  const bool group_store_ok = p->oh * p->ow <= 0xFFFF;
  uint64_t chunk_index = 0, tile_index = 0;
  for (uint32_t nb = 0; nb < p->nb && lw.status == q8nn_status_success; nb++) {
    for (uint32_t og = 0; og < n_groups && lw.status == q8nn_status_success; og++) {
      const uint32_t ob0 = og * p->obg, obg_t = min_u32(p->obg, p->ob - ob0);
      if (n_groups > 1) {
        CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->const_addr, ob0 * R, obg_t * R, 1, obg_t * R, 0, 0, 0, 0, 0,
                                          q8nn_vta_mem_acc));
      }
      for (uint32_t r0 = 0; r0 < p->oh && lw.status == q8nn_status_success; r0 += p->rows) {
        const uint32_t rows_t = min_u32(p->rows, p->oh - r0);
        for (uint32_t c0 = 0; c0 < p->ow && lw.status == q8nn_status_success; c0 += p->cols) {
          const uint32_t cols_t = min_u32(p->cols, p->ow - c0);
          const uint32_t pix = rows_t * cols_t, ppix = max_u32(pix, 3);
          const uint32_t in_rows = in_rows_of(s, rows_t);
          const uint32_t in_cols = p->cols == p->ow ? p->wp : (cols_t - 1) * s->sw + s->dw * (s->kw - 1) + 1;
          const uint32_t y0 = r0 * s->sh, x0 = c0 * s->sw;
          const uint32_t acc_base = const_rows + (uint32_t) (tile_index % vt) * acc_half;
          const uint32_t chunks = p->depthwise ? 1 : div_up(p->wib, p->ibc);
          for (uint32_t ch = 0; ch < chunks && lw.status == q8nn_status_success; ch++) {
            const uint32_t h = (uint32_t) (chunk_index % vt);
            /* cib: the chunk's first block within an output block's weights; ib0: in the image */
            const uint32_t cib = ch * p->ibc;
            const uint32_t ib0 = p->depthwise ? ob0 / p->dm : (ob0 / p->gob) * p->wib + cib;
            const uint32_t blocks = p->depthwise ? obg_t / p->dm : min_u32(p->ibc, p->wib - cib);
            const uint32_t inp_base = h * inp_half;
            /* load module */
            CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_load));
            const uint32_t img_off = ((nb * p->ib + ib0) * p->hp + y0) * p->wp + x0;
            if (in_cols == p->wp && (merged_ok || blocks == 1) && in_rows * in_cols <= 0xFFFF) {
              CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->in_addr, img_off, in_rows * in_cols, blocks,
                                                blocks == 1 ? in_rows * in_cols : plane, 0, 0, 0, 0, inp_base,
                                                q8nn_vta_mem_inp));
            } else {
              for (uint32_t j = 0; j < blocks; j++) {
                CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->in_addr, img_off + j * plane, in_cols, in_rows,
                                                  p->wp, 0, 0, 0, 0, inp_base + j * in_rows * in_cols,
                                                  q8nn_vta_mem_inp));
              }
            }
            uint32_t wgt_base, wf_ob;
            if (p->weights_resident) {
              /* Resident weights stay in WGT for the whole program, laid out [group][chunk][obg][blocks]
                 [taps], and each (group, chunk) part is loaded by the first tile that uses it: the
                 first GEMM waits for its own weights only, not for the whole tensor (on the 7x7
                 layers that load was most of the cycles). */
              wgt_base = p->depthwise ? ob0 * taps : (ob0 * p->wib + cib * obg_t) * taps;
              wf_ob = p->depthwise ? taps : blocks * taps;
              if (nb == 0 && r0 == 0 && c0 == 0) {
                if (p->depthwise) {
                  CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->wgt_addr, ob0 * taps, obg_t * taps, 1, obg_t * taps,
                                                    0, 0, 0, 0, wgt_base, q8nn_vta_mem_wgt));
                } else {
                  CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->wgt_addr, (ob0 * p->wib + cib) * taps, blocks * taps,
                                                    obg_t, p->wib * taps, 0, 0, 0, 0, wgt_base, q8nn_vta_mem_wgt));
                }
              }
            } else {
              wgt_base = h * wgt_half;
              if (p->depthwise) {
                wf_ob = taps;
                CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->wgt_addr, ob0 * taps, obg_t * taps, 1, obg_t * taps,
                                                  0, 0, 0, 0, wgt_base, q8nn_vta_mem_wgt));
              } else {
                wf_ob = blocks * taps;
                CHECK_CMD(q8nn_vta_load_buffer_2d(lw.cmd, st->wgt_addr, (ob0 * p->wib + cib) * taps, blocks * taps,
                                                  obg_t, p->wib * taps, 0, 0, 0, 0, wgt_base, q8nn_vta_mem_wgt));
              }
            }
            CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_load, q8nn_vta_stage_compute));
            /* compute module */
            CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_load, q8nn_vta_stage_compute));
            struct q8nn_vta_kdesc d;
            if (ch == 0) {
              CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute));
              memset(&d, 0, sizeof(d));
              d.kind = kind_reset;
              /* the accumulators and, in exact mode, the scratch regions behind them */
              d.v[0] = acc_base, d.v[1] = ppix, d.v[2] = obg_t * p->regions;
              push_kernel(&lw, true, &d);
            }
            memset(&d, 0, sizeof(d));
            d.kind = kind_gemm;
            const uint32_t g[19] = {acc_base, inp_base, wgt_base, pix, ppix, cols_t, in_cols, in_rows,
                                    s->sh, s->sw, s->dh, s->dw, s->kh, s->kw, obg_t,
                                    p->depthwise ? 0 : blocks, wf_ob, p->depthwise, p->dm};
            memcpy(d.v, g, sizeof(g));
            push_kernel(&lw, true, &d);
            CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_load));
            chunk_index++;
            if (ch + 1 != chunks) continue;
            /* requantize (vta-requant.h) */
            if (p->exact) {
              requantize_exact(&lw, p, op, acc_base, obg_t, ppix);
            } else {
            alu(&lw, q8nn_vta_alu_add, false, 0, acc_base, 0, obg_t, ppix);
            if (p->clamp_needed) {
              alu(&lw, q8nn_vta_alu_max, false, 0, acc_base, 1, obg_t, ppix);
              alu(&lw, q8nn_vta_alu_min, false, 0, acc_base, 2, obg_t, ppix);
            }
            if (p->s1_needed) alu(&lw, q8nn_vta_alu_shr, false, 0, acc_base, 3, obg_t, ppix);
            alu(&lw, q8nn_vta_alu_mul, false, 0, acc_base, 4, obg_t, ppix);
            alu(&lw, q8nn_vta_alu_add, false, 0, acc_base, 5, obg_t, ppix);
            alu(&lw, q8nn_vta_alu_shr, false, 0, acc_base, 6, obg_t, ppix);
            if (p->final_clamp) {
              alu(&lw, q8nn_vta_alu_max, true, op->conv_params.output_min, acc_base, 0, obg_t, ppix);
              alu(&lw, q8nn_vta_alu_min, true, op->conv_params.output_max, acc_base, 0, obg_t, ppix);
            }
            }
            CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store));
            /* store module */
            CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_store));
            const uint32_t out_off = ((nb * p->ob + ob0) * p->oh + r0) * p->ow + c0;
            if (cols_t == p->ow && ppix == pix && group_store_ok && pix <= 0xFFFF) {
              CHECK_CMD(q8nn_vta_store_buffer_2d(lw.cmd, acc_base, q8nn_vta_mem_out, st->out_addr, out_off, pix,
                                                 obg_t, obg_t == 1 ? pix : p->oh * p->ow));
            } else {
              for (uint32_t k = 0; k < obg_t; k++) {
                CHECK_CMD(q8nn_vta_store_buffer_2d(lw.cmd, acc_base + k * ppix, q8nn_vta_mem_out, st->out_addr,
                                                   out_off + k * p->oh * p->ow, cols_t, rows_t, p->ow));
              }
            }
            CHECK_CMD(q8nn_vta_dep_push(lw.cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute));
            tile_index++;
          }
        }
      }
    }
  }
  for (uint32_t i = 0; i < vt; i++) {
    CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_compute, q8nn_vta_stage_load));
    CHECK_CMD(q8nn_vta_dep_pop(lw.cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute));
  }
  /* finalize reports the first recording error too (errors are sticky per command buffer) */
  status = q8nn_vta_cmd_finalize(lw.cmd, &st->program);
  if (status == q8nn_status_success && lw.status != q8nn_status_success) {
    q8nn_vta_program_release(vta->device, &st->program);
    status = lw.status;
  }
  if (status == q8nn_status_success) st->has_program = true;
  q8nn_vta_cmd_delete(lw.cmd);
  q8nn_vta_ktable_free(&lw.kernels);
  return status;
}

/* ---- prepare / run ------------------------------------------------------------------------- */

static enum q8nn_status alloc_image(struct q8nn_vta_target* vta, size_t bytes, uint32_t* addr) {
  if (bytes == 0 || bytes > (size_t) 1 << 31) return q8nn_status_unsupported_parameter;
  return q8nn_vta_dram_alloc(vta->device, bytes, addr);
}

enum q8nn_status q8nn_vta_conv_prepare(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                       struct q8nn_vta_op_state* st) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  struct conv_shape s;
  shape_of(op, &s);
  banded_shape(&s, cfg->block_out);
  struct q8nn_vta_conv_plan* p = &st->plan;
  const uint32_t B = cfg->batch, bi = cfg->block_in, bo = cfg->block_out, taps = s.taps;
  const size_t padded_out = (size_t) div_up(s.cout, bo) * bo;
  memset(p, 0, sizeof(*p));
  p->exact = vta->exact;
  p->const_rows = p->exact ? Q8NN_VTA_CONV_EXACT_ROWS : Q8NN_VTA_CONV_REQUANT_ROWS;
  p->regions = 1;
  if (p->exact) {
    st->exact = malloc(padded_out * sizeof(*st->exact));
    if (st->exact == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "VTA requantization table");
    if (!q8nn_vta_conv_exact_table(op, padded_out, !vta->limb_form, st->exact)) {
      return Q8NN_ERROR(q8nn_status_unsupported_parameter, "exact requantization does not fit VTA's 32-bit ACC");
    }
    if (st->exact[0].linear) {
      const struct q8nn_vta_conv_linear* l = &st->exact[0].lin;
      p->linear = true;
      p->limbs = (uint32_t) l->limbs;
      p->exact_w = l->w;
      p->clamp_needed = true;
      p->sign_needed = l->sign != 0;
      p->final_clamp = l->final_clamp != 0;
      p->regions = q8nn_vta_linear_regions(p->limbs, p->sign_needed);
    }
  }
  if (p->exact && !p->linear) {
    /* Optional steps: skipped only when they are no-ops for every channel. */
    const size_t per_channel = (size_t) taps * s.gic;
    uint32_t signs = 0;
    for (uint32_t oc = 0; oc < s.cout; oc++) {
      int64_t sum, sum_abs;
      weight_sums(op, per_channel, oc, &sum, &sum_abs);
      const struct q8nn_vta_conv_exact* r = &st->exact[oc];
      const int64_t bound = 128 * sum_abs + (r->c_bias < 0 ? -(int64_t) r->c_bias : r->c_bias);
      if (r->hi < bound || r->lo > -bound) p->clamp_needed = true;
      if (r->neg_ls != 0) p->ls_needed = true;
      if (r->final_clamp) p->final_clamp = true;
      signs += r->sign != 0;
    }
    p->sign_needed = signs != 0;
    p->sign_mixed = signs != 0 && signs != s.cout;
    p->regions = p->sign_needed ? 5 : 4;
  }
  /* g: the shape the GEMM runs (s itself, or the 1x1 convolution over packed taps) */
  struct conv_shape g = s;
  p->packed = packed_shape(&s, bi, &g);
  bool planned = plan_conv(cfg, &g, p);
  if (!planned && s.dm > 1) {
    /* the banded mapping needs dm output blocks per tile; a small configuration may fit only one:
       the dense mapping then */
    shape_of(op, &s);
    g = s;
    p->packed = packed_shape(&s, bi, &g);
    planned = plan_conv(cfg, &g, p);
  }
  if (!planned) {
    st->on_cpu = true;
    return q8nn_status_success;
  }
  if (!p->exact) {
  st->requant = malloc(padded_out * sizeof(*st->requant));
  if (st->requant == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "VTA requantization table");
  if (!q8nn_vta_conv_requant_table(op, padded_out, st->requant)) {
    return Q8NN_ERROR(q8nn_status_unsupported_parameter, "requantization does not fit VTA's 32-bit ACC");
  }
  /* Which of the optional ALU steps some channel needs (skipping a no-op changes no result). */
  {
    const size_t per_channel = (size_t) taps * s.gic;
    for (uint32_t oc = 0; oc < s.cout; oc++) {
      int64_t sum, sum_abs;
      weight_sums(op, per_channel, oc, &sum, &sum_abs);
      const struct q8nn_vta_conv_requant* r = &st->requant[oc];
      const int64_t r1 = r->s1 ? INT64_C(1) << (r->s1 - 1) : 0;
      const int64_t bias_prime = (int64_t) r->c_bias - r1;
      const int64_t bound = 128 * sum_abs + (bias_prime < 0 ? -bias_prime : bias_prime);
      if ((int64_t) r->hi - r1 < bound || (int64_t) r->lo - r1 > -bound) p->clamp_needed = true;
      if (r->s1 != 0) p->s1_needed = true;
      if (r->final_clamp) p->final_clamp = true;
    }
  }
  }
  const size_t in_bytes = (size_t) p->nb * p->ib * p->hp * p->wp * B * bi;
  const size_t wgt_elems = (size_t) p->ob * (p->depthwise ? 1 : p->wib) * g.taps;
  const size_t wgt_bytes = wgt_elems * bo * bi;
  const uint32_t R = p->const_rows;
  const size_t const_bytes = (size_t) p->ob * R * B * bo * sizeof(int32_t);
  const size_t out_bytes = (size_t) p->nb * p->ob * p->oh * p->ow * B * bo;
  if (alloc_image(vta, in_bytes, &st->in_addr) != q8nn_status_success ||
      alloc_image(vta, wgt_bytes, &st->wgt_addr) != q8nn_status_success ||
      alloc_image(vta, const_bytes, &st->const_addr) != q8nn_status_success ||
      alloc_image(vta, out_bytes, &st->out_addr) != q8nn_status_success) {
    st->on_cpu = true; /* the images do not fit the simulated 32-bit DRAM */
    return q8nn_status_success;
  }
  st->in_bytes = in_bytes;
  st->out_bytes = out_bytes;
  /* Input image: everything the input zero point (spatial padding, padded lanes); padded channels 0
     (their weights are 0 anyway). Runs overwrite only the interior's real channels. */
  int8_t* img = (int8_t*) q8nn_vta_dram_ptr(vta->device, st->in_addr, in_bytes);
  memset(img, (int8_t) op->input_zero_point, in_bytes);
  /* Weights */
  int8_t* w = (int8_t*) q8nn_vta_dram_ptr(vta->device, st->wgt_addr, wgt_bytes);
  for (uint32_t ob = 0; ob < p->ob; ob++) {
    /* an output block's weights: its group's wib input blocks (all IB when dense) */
    const uint32_t ib_first = p->depthwise ? 0 : (ob / p->gob) * p->wib;
    for (uint32_t ib = 0; ib < (p->depthwise ? 1 : p->wib); ib++) {
      for (uint32_t t = 0; t < g.taps; t++) {
        int8_t* e = w + (((size_t) ob * (p->depthwise ? 1 : p->wib) + ib) * g.taps + t) * bo * bi;
        for (uint32_t o = 0; o < bo; o++) {
          const uint32_t oc = ob * bo + o;
          if (p->depthwise) {
            /* output channel oc reads input channel oc / dm: lane (oc / dm) mod bi of block ob / dm */
            if (oc < s.cout) e[o * bi + (oc / p->dm) % bi] = op->kernel[(size_t) oc * taps + t];
          } else if (p->packed) {
            /* lane k of the packed input holds tap k / cin, channel k % cin */
            for (uint32_t i = 0; i < bi; i++) {
              const uint32_t k = ib * bi + i;
              e[o * bi + i] = k < taps * s.cin ? weight_at(op, &s, oc, k % s.cin, k / s.cin) : 0;
            }
          } else {
            for (uint32_t i = 0; i < bi; i++) e[o * bi + i] = weight_at(op, &s, oc, (ib_first + ib) * bi + i, t);
          }
        }
      }
    }
  }
  /* Constants, replicated over the batch lanes */
  int32_t* c = (int32_t*) q8nn_vta_dram_ptr(vta->device, st->const_addr, const_bytes);
  for (uint32_t ob = 0; ob < p->ob; ob++) {
    for (uint32_t o = 0; o < bo; o++) {
      int32_t values[Q8NN_VTA_CONV_EXACT_ROWS];
      if (p->exact && p->linear) {
        /* the first 11 fields of struct q8nn_vta_conv_linear are its constant rows, in order */
        memset(values, 0, sizeof(values));
        memcpy(values, &st->exact[ob * bo + o].lin, Q8NN_VTA_LINEAR_ROWS * sizeof(int32_t));
      } else if (p->exact) {
        /* the first 12 fields of struct q8nn_vta_conv_exact are the constant rows, in order */
        memcpy(values, &st->exact[ob * bo + o], sizeof(values));
      } else {
        const struct q8nn_vta_conv_requant* r = &st->requant[ob * bo + o];
        const int32_t v7[Q8NN_VTA_CONV_REQUANT_ROWS] = {r->c_bias, r->lo, r->hi, r->s1, r->m, r->r2, r->s2};
        memcpy(values, v7, sizeof(v7));
      }
      for (uint32_t k = 0; k < R; k++) {
        for (uint32_t b = 0; b < B; b++) c[(((size_t) ob * R + k) * B + b) * bo + o] = values[k];
      }
    }
  }
  const enum q8nn_status status = record_program(vta, op, &g, st);
  if (status != q8nn_status_success) {
    return Q8NN_ERROR(q8nn_status_backend_error, "VTA conv lowering failed: %s",
                      q8nn_vta_device_last_error(vta->device));
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_conv_run(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                   struct q8nn_vta_op_state* st) {
  const struct q8nn_vta_hw_config* cfg = &vta->config;
  const struct q8nn_vta_conv_plan* p = &st->plan;
  struct conv_shape s;
  shape_of(op, &s);
  const uint32_t B = cfg->batch, bi = cfg->block_in, bo = cfg->block_out;
  int8_t* img = (int8_t*) q8nn_vta_dram_ptr(vta->device, st->in_addr, st->in_bytes);
  const int8_t* out_img = (const int8_t*) q8nn_vta_dram_ptr(vta->device, st->out_addr, st->out_bytes);
  if (img == NULL || out_img == NULL) return Q8NN_ERROR(q8nn_status_backend_error, "VTA DRAM images missing");
  if (p->packed) {
    /* im2col: per output pixel, lane k = tap * cin + c of block k / bi; out-of-image taps read the
       input zero point, as the padding of the unpacked image does */
    const int8_t zx = (int8_t) op->input_zero_point;
    for (uint32_t n = 0; n < s.batch; n++) {
      const uint32_t nb = n / B, lane = n % B;
      for (uint32_t oy = 0; oy < p->oh; oy++) {
        for (uint32_t ox = 0; ox < p->ow; ox++) {
          for (uint32_t t = 0; t < s.taps; t++) {
            const int64_t iy = (int64_t) oy * s.sh - s.pt + (int64_t) (t / s.kw) * s.dh;
            const int64_t ix = (int64_t) ox * s.sw - s.pl + (int64_t) (t % s.kw) * s.dw;
            const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
            const int8_t* src =
                inside ? op->input + (((size_t) n * s.in_h + (size_t) iy) * s.in_w + (size_t) ix) * op->input_pixel_stride
                       : NULL;
            for (uint32_t ch = 0; ch < s.cin; ch++) {
              const uint32_t k = t * s.cin + ch;
              img[((((size_t) nb * p->ib + k / bi) * p->hp + oy) * p->wp + ox) * B * bi + (size_t) lane * bi + k % bi] =
                  inside ? src[ch] : zx;
            }
          }
        }
      }
    }
  }
  /* NHWC (pixel stride) -> [N/B][IB][Hp][Wp][B][bi], interior only */
  for (uint32_t n = 0; n < s.batch && !p->packed; n++) {
    const uint32_t nb = n / B, lane = n % B;
    for (uint32_t y = 0; y < s.in_h; y++) {
      for (uint32_t x = 0; x < s.in_w; x++) {
        const int8_t* src = op->input + (((size_t) n * s.in_h + y) * s.in_w + x) * op->input_pixel_stride;
        for (uint32_t ib = 0; ib < p->ib; ib++) {
          const uint32_t c0 = ib * bi, len = min_u32(bi, s.cin - c0);
          int8_t* dst = img + ((((size_t) nb * p->ib + ib) * p->hp + y + s.pt) * p->wp + x + s.pl) * B * bi +
                        (size_t) lane * bi;
          memcpy(dst, src + c0, len);
        }
      }
    }
  }
  const enum q8nn_status status = q8nn_vta_run_program(vta, st);
  if (status != q8nn_status_success) return status;
  /* [N/B][OB][OH][OW][B][bo] -> NHWC, real channels only */
  for (uint32_t n = 0; n < s.batch; n++) {
    const uint32_t nb = n / B, lane = n % B;
    for (uint32_t y = 0; y < p->oh; y++) {
      for (uint32_t x = 0; x < p->ow; x++) {
        int8_t* dst = op->output + (((size_t) n * p->oh + y) * p->ow + x) * op->output_pixel_stride;
        for (uint32_t ob = 0; ob < p->ob; ob++) {
          const uint32_t c0 = ob * bo, len = min_u32(bo, s.cout - c0);
          const int8_t* src = out_img + ((((size_t) nb * p->ob + ob) * p->oh + y) * p->ow + x) * B * bo +
                              (size_t) lane * bo;
          memcpy(dst + c0, src, len);
        }
      }
    }
  }
  return q8nn_status_success;
}
