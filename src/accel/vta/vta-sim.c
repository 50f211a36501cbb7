/* Execution of a VTA instruction stream (VTA-SPEC §4-§6), functional simulator semantics.

   Scheduling is deterministic: the modules are visited load -> compute -> store, each running
   instructions until its head waits for a token, until nothing can run. Results of race-free
   programs do not depend on this order, and neither does the cycle estimate: every instruction
   starts when its module is free and the tokens it pops are ready, which is a pure function of
   the token FIFOs. Tokens also carry a vector clock (how many instructions of each module
   happened before the push) so FINISH can be checked to be ordered after every load and store. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-sim.h"

enum module { module_load = 0, module_compute = 1, module_store = 2, module_count = 3 };
enum queue { queue_l2g = 0, queue_g2l = 1, queue_g2s = 2, queue_s2g = 3, queue_count = 4, queue_none = 0xFF };

static const char* const module_names[module_count] = {"load", "compute", "store"};
static const char* const queue_names[queue_count] = {"l2g", "g2l", "g2s", "s2g"};

struct token {
  uint64_t ready;
  uint32_t clock[module_count];
  uint32_t pusher;
};

struct token_queue {
  struct token* items; /* sized for every push of the program: no wrap-around needed */
  size_t head, tail;
};

struct slot {
  struct q8nn_vta_insn insn;
  uint8_t module;
  uint8_t pop[2], push[2]; /* queue ids or queue_none */
};

struct run {
  struct q8nn_vta_device* dev;
  const struct q8nn_vta_hw_config* cfg;
  struct slot* slots;
  uint32_t* order[module_count]; /* instruction indices of each module, in stream order */
  uint32_t count[module_count], head[module_count];
  struct token_queue queues[queue_count];
  uint64_t module_time[module_count];
  uint32_t clock[module_count][module_count];
  struct q8nn_vta_run_info info;
};

#define FAIL(r, index, ...) fail_insn((r), (index), __VA_ARGS__)

static enum q8nn_status fail_insn(struct run* r, uint32_t index, const char* format, ...) Q8NN_PRINTF(3, 4);

static enum q8nn_status fail_insn(struct run* r, uint32_t index, const char* format, ...) {
  char detail[384];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return q8nn_vta_device_fail(r->dev, q8nn_status_backend_error, "instruction %u (%s): %s", index,
                              q8nn_vta_insn_name(&r->slots[index].insn), detail);
}

/* ---- decoding and static checks ------------------------------------------------------ */

static enum q8nn_status classify(struct run* r, uint32_t index) {
  struct slot* s = &r->slots[index];
  const struct q8nn_vta_insn* in = &s->insn;
  const struct q8nn_vta_hw_config* cfg = r->cfg;
  switch (in->opcode) {
    case q8nn_vta_op_load:
      if (in->memory_type == q8nn_vta_mem_out || in->memory_type > q8nn_vta_mem_acc_8bit) {
        return FAIL(r, index, "memory_type %u cannot be loaded", in->memory_type);
      }
      s->module = in->memory_type == q8nn_vta_mem_inp || in->memory_type == q8nn_vta_mem_wgt
                      ? module_load : module_compute;
      break;
    case q8nn_vta_op_store:
      if (in->x_size != 0 && in->memory_type != q8nn_vta_mem_out) {
        return FAIL(r, index, "STORE memory_type %u (must be OUT = 4)", in->memory_type);
      }
      if (in->x_size != 0 && (in->y_pad_0 | in->y_pad_1 | in->x_pad_0 | in->x_pad_1) != 0) {
        return FAIL(r, index, "STORE with padding");
      }
      s->module = module_store;
      break;
    case q8nn_vta_op_gemm:
    case q8nn_vta_op_alu:
      if (in->opcode == q8nn_vta_op_alu && in->alu_opcode > q8nn_vta_alu_mul) {
        return FAIL(r, index, "invalid ALU opcode %u", in->alu_opcode);
      }
      if (in->uop_end > in->uop_bgn && in->uop_end > cfg->uop_depth) {
        return FAIL(r, index, "micro-op range [%u, %u) exceeds the micro-op buffer (%u)", in->uop_bgn,
                    in->uop_end, cfg->uop_depth);
      }
      s->module = module_compute;
      break;
    case q8nn_vta_op_finish:
      s->module = module_compute;
      break;
    default:
      return FAIL(r, index, "invalid opcode %u", in->opcode);
  }
  /* Spec §4.2: prev/next flags per module; the "must be 0" ones would crash fsim. */
  static const uint8_t pop_map[module_count][2] = {
      {queue_none, queue_g2l}, {queue_l2g, queue_s2g}, {queue_g2s, queue_none}};
  static const uint8_t push_map[module_count][2] = {
      {queue_none, queue_l2g}, {queue_g2l, queue_g2s}, {queue_s2g, queue_none}};
  const uint32_t pops[2] = {in->pop_prev, in->pop_next};
  const uint32_t pushes[2] = {in->push_prev, in->push_next};
  for (int k = 0; k < 2; k++) {
    s->pop[k] = pops[k] ? pop_map[s->module][k] : queue_none;
    s->push[k] = pushes[k] ? push_map[s->module][k] : queue_none;
    if ((pops[k] && pop_map[s->module][k] == queue_none) ||
        (pushes[k] && push_map[s->module][k] == queue_none)) {
      return FAIL(r, index, "%s_%s_dep set on the %s module (must be 0)", pops[k] ? "pop" : "push",
                  k == 0 ? "prev" : "next", module_names[s->module]);
    }
  }
  return q8nn_status_success;
}

/* ---- LOAD / STORE --------------------------------------------------------------------- */

static uint64_t transfer_cycles(const struct q8nn_vta_hw_config* cfg, uint64_t bytes) {
  return cfg->dram_latency_cycles + (bytes + cfg->dram_bytes_per_cycle - 1) / cfg->dram_bytes_per_cycle;
}

/* DRAM bytes of a 2D access: rows of x_size elements, x_stride elements apart. */
static const uint8_t* dram_rows(struct run* r, uint32_t index, const struct q8nn_vta_insn* in, uint32_t elem) {
  const uint64_t first = (uint64_t) in->dram_base * elem;
  const uint64_t end = ((uint64_t) in->dram_base + (uint64_t) (in->y_size - 1) * in->x_stride + in->x_size) * elem;
  const uint8_t* p = q8nn_vta_dram_ptr(r->dev, first, end - first);
  if (p == NULL) {
    FAIL(r, index, "DRAM bytes [0x%llx, 0x%llx) (dram_base %u, x_size %u, y_size %u, x_stride %u) are "
         "not inside one allocated region", (unsigned long long) first, (unsigned long long) end,
         in->dram_base, in->x_size, in->y_size, in->x_stride);
  }
  return p;
}

static enum q8nn_status exec_load(struct run* r, uint32_t index, uint64_t* cycles) {
  const struct q8nn_vta_insn* in = &r->slots[index].insn;
  const struct q8nn_vta_hw_config* cfg = r->cfg;
  struct q8nn_vta_device* dev = r->dev;
  if (in->x_size == 0) return q8nn_status_success;
  const uint32_t type = in->memory_type;
  const uint32_t dram_elem = q8nn_vta_dram_elem_bytes(cfg, type);
  uint32_t depth, sram_elem;
  uint8_t* sram;
  switch (type) {
    case q8nn_vta_mem_uop: depth = cfg->uop_depth; sram_elem = 4; sram = (uint8_t*) dev->uop_word; break;
    case q8nn_vta_mem_wgt: depth = cfg->wgt_depth; sram_elem = cfg->wgt_elem_bytes; sram = (uint8_t*) dev->wgt; break;
    case q8nn_vta_mem_inp: depth = cfg->inp_depth; sram_elem = cfg->inp_elem_bytes; sram = (uint8_t*) dev->inp; break;
    default: depth = cfg->acc_depth; sram_elem = cfg->acc_elem_bytes; sram = (uint8_t*) dev->acc; break;
  }
  const uint64_t row_len = (uint64_t) in->x_pad_0 + in->x_size + in->x_pad_1;
  const uint64_t rows = (uint64_t) in->y_pad_0 + in->y_size + in->y_pad_1;
  if (in->sram_base + row_len * rows > depth) {
    return FAIL(r, index, "SRAM rows [%u, %llu) exceed the buffer depth %u", in->sram_base,
                (unsigned long long) (in->sram_base + row_len * rows), depth);
  }
  const uint8_t* src = NULL;
  if (in->y_size != 0) {
    src = dram_rows(r, index, in, dram_elem);
    if (src == NULL) return q8nn_status_backend_error;
  }
  if (type == q8nn_vta_mem_uop || type == q8nn_vta_mem_wgt) {
    if ((in->x_pad_0 | in->x_pad_1 | in->y_pad_0 | in->y_pad_1) != 0 ||
        (type == q8nn_vta_mem_uop && in->y_size != 1)) {
      r->info.warnings |= q8nn_vta_warn_pad_wgt_uop;
    }
  }
  uint8_t* dst = sram + (size_t) in->sram_base * sram_elem;
  const size_t pad_rows_bytes = (size_t) in->y_pad_0 * row_len * sram_elem;
  memset(dst, 0, pad_rows_bytes);
  dst += pad_rows_bytes;
  for (uint32_t y = 0; y < in->y_size; y++) {
    memset(dst, 0, (size_t) in->x_pad_0 * sram_elem);
    dst += (size_t) in->x_pad_0 * sram_elem;
    const uint8_t* row = src + (size_t) y * in->x_stride * dram_elem;
    if (type == q8nn_vta_mem_acc_8bit) {
      int32_t* acc = (int32_t*) dst;
      const size_t n = (size_t) in->x_size * cfg->acc_lanes;
      for (size_t i = 0; i < n; i++) acc[i] = (int8_t) row[i];
    } else {
      memcpy(dst, row, (size_t) in->x_size * sram_elem);
    }
    dst += (size_t) in->x_size * sram_elem;
    memset(dst, 0, (size_t) in->x_pad_1 * sram_elem);
    dst += (size_t) in->x_pad_1 * sram_elem;
  }
  memset(dst, 0, (size_t) in->y_pad_1 * row_len * sram_elem);

  const uint64_t elems = (uint64_t) in->x_size * in->y_size;
  const uint64_t written = row_len * rows;
  switch (type) {
    case q8nn_vta_mem_uop:
      r->info.stats.uop_load_nbytes += elems * 4;
      for (uint64_t i = in->sram_base; i < in->sram_base + written; i++) {
        struct q8nn_vta_uop uop;
        q8nn_vta_decode_uop(cfg, dev->uop_word[i], &uop);
        dev->uop_dst[i] = uop.dst;
        dev->uop_src[i] = uop.src;
        dev->uop_wgt[i] = uop.wgt;
      }
      break;
    case q8nn_vta_mem_wgt: r->info.stats.wgt_load_nbytes += elems * cfg->wgt_elem_bytes; break;
    case q8nn_vta_mem_inp: r->info.stats.inp_load_nbytes += elems * cfg->inp_elem_bytes; break;
    default:
      /* ACC_8BIT counts ACC-sized elements, as fsim does. */
      r->info.stats.acc_load_nbytes += elems * cfg->acc_elem_bytes;
      memset(dev->acc_out_valid + in->sram_base, 0, (size_t) written);
      break;
  }
  /* Zero padding is written one SRAM element per cycle after the DRAM transfer. */
  *cycles += transfer_cycles(cfg, elems * dram_elem) + (written - elems);
  return q8nn_status_success;
}

static enum q8nn_status exec_store(struct run* r, uint32_t index, uint64_t* cycles) {
  const struct q8nn_vta_insn* in = &r->slots[index].insn;
  const struct q8nn_vta_hw_config* cfg = r->cfg;
  struct q8nn_vta_device* dev = r->dev;
  if (in->x_size == 0 || in->y_size == 0) return q8nn_status_success;
  const uint64_t elems = (uint64_t) in->x_size * in->y_size;
  if (in->sram_base + elems > cfg->acc_depth) {
    return FAIL(r, index, "ACC rows [%u, %llu) exceed the buffer depth %u", in->sram_base,
                (unsigned long long) (in->sram_base + elems), cfg->acc_depth);
  }
  const uint32_t elem = cfg->out_elem_bytes;
  uint8_t* dram = (uint8_t*) dram_rows(r, index, in, elem);
  if (dram == NULL) return q8nn_status_backend_error;
  const uint32_t lanes = cfg->acc_lanes;
  for (uint32_t y = 0; y < in->y_size; y++) {
    const uint32_t sram_row = in->sram_base + y * in->x_size;
    const int32_t* src = dev->acc + (size_t) sram_row * lanes;
    uint8_t* dst = dram + (size_t) y * in->x_stride * elem;
    /* Truncation, not saturation (spec §5.2): the low 8 bits of each lane. */
    for (size_t i = 0; i < (size_t) in->x_size * lanes; i++) dst[i] = (uint8_t) (uint32_t) src[i];
    for (uint32_t x = 0; x < in->x_size; x++) {
      if (!dev->acc_out_valid[sram_row + x]) r->info.warnings |= q8nn_vta_warn_stale_out;
    }
  }
  r->info.stats.out_store_nbytes += elems * elem;
  *cycles += transfer_cycles(cfg, elems * elem);
  return q8nn_status_success;
}

/* ---- GEMM / ALU ----------------------------------------------------------------------- */

/* Largest index a micro-op field reaches over the two loops; 64-bit so nothing wraps. */
static uint64_t max_index(const uint32_t* field, const struct q8nn_vta_insn* in, uint32_t factor_out,
                          uint32_t factor_in) {
  uint32_t m = 0;
  for (uint32_t u = in->uop_bgn; u < in->uop_end; u++) m = field[u] > m ? field[u] : m;
  return m + (uint64_t) (in->iter_out - 1) * factor_out + (uint64_t) (in->iter_in - 1) * factor_in;
}

/* One micro-op: acc[b][o] += sum_k inp[b][k] * wgt[o][k]. |sum| <= block * 2^14 < 2^31 for
   block <= 64, so only the accumulation itself can wrap (done in uint32: defined wrap-around). */
static inline __attribute__((always_inline)) void gemm_tile(int32_t* restrict acc, const int8_t* restrict inp,
                                                           const int8_t* restrict wgt, uint32_t batch,
                                                           uint32_t block) {
  for (uint32_t b = 0; b < batch; b++) {
    const int8_t* x = inp + b * block;
    for (uint32_t o = 0; o < block; o++) {
      const int8_t* w = wgt + o * block;
      int32_t sum = 0;
      for (uint32_t k = 0; k < block; k++) sum += (int32_t) x[k] * (int32_t) w[k];
      acc[b * block + o] = (int32_t) ((uint32_t) acc[b * block + o] + (uint32_t) sum);
    }
  }
}

static inline __attribute__((always_inline)) void gemm_loops(struct q8nn_vta_device* dev,
                                                            const struct q8nn_vta_insn* in,
                                                            uint32_t batch, uint32_t block) {
  const size_t lanes = (size_t) batch * block, inp_elem = (size_t) batch * block,
               wgt_elem = (size_t) block * block;
  for (uint32_t io = 0; io < in->iter_out; io++) {
    for (uint32_t ii = 0; ii < in->iter_in; ii++) {
      const uint32_t dofs = io * in->dst_factor_out + ii * in->dst_factor_in;
      const uint32_t sofs = io * in->src_factor_out + ii * in->src_factor_in;
      const uint32_t wofs = io * in->wgt_factor_out + ii * in->wgt_factor_in;
      for (uint32_t u = in->uop_bgn; u < in->uop_end; u++) {
        const uint32_t row = dev->uop_dst[u] + dofs;
        gemm_tile(dev->acc + row * lanes, dev->inp + (dev->uop_src[u] + sofs) * inp_elem,
                  dev->wgt + (dev->uop_wgt[u] + wofs) * wgt_elem, batch, block);
        dev->acc_out_valid[row] = 1;
      }
    }
  }
}

static enum q8nn_status exec_gemm(struct run* r, uint32_t index, uint64_t* cycles) {
  const struct q8nn_vta_insn* in = &r->slots[index].insn;
  const struct q8nn_vta_hw_config* cfg = r->cfg;
  struct q8nn_vta_device* dev = r->dev;
  if (in->uop_end <= in->uop_bgn || in->iter_out == 0 || in->iter_in == 0) return q8nn_status_success;
  const uint64_t dst_max = max_index(dev->uop_dst, in, in->dst_factor_out, in->dst_factor_in);
  if (dst_max >= cfg->acc_depth) {
    return FAIL(r, index, "ACC row %llu out of range (depth %u)", (unsigned long long) dst_max, cfg->acc_depth);
  }
  const uint64_t uops = (uint64_t) in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  *cycles += uops;
  if (in->reset) {
    /* Reset reads only dst; on hardware OUT keeps the un-reset sum (spec §2.2). */
    const size_t bytes = (size_t) cfg->acc_elem_bytes;
    for (uint32_t io = 0; io < in->iter_out; io++) {
      for (uint32_t ii = 0; ii < in->iter_in; ii++) {
        const uint32_t dofs = io * in->dst_factor_out + ii * in->dst_factor_in;
        for (uint32_t u = in->uop_bgn; u < in->uop_end; u++) {
          const uint32_t row = dev->uop_dst[u] + dofs;
          memset(dev->acc + (size_t) row * cfg->acc_lanes, 0, bytes);
          dev->acc_out_valid[row] = 0;
        }
      }
    }
    return q8nn_status_success;
  }
  const uint64_t src_max = max_index(dev->uop_src, in, in->src_factor_out, in->src_factor_in);
  const uint64_t wgt_max = max_index(dev->uop_wgt, in, in->wgt_factor_out, in->wgt_factor_in);
  if (src_max >= cfg->inp_depth) {
    return FAIL(r, index, "INP row %llu out of range (depth %u)", (unsigned long long) src_max, cfg->inp_depth);
  }
  if (wgt_max >= cfg->wgt_depth) {
    return FAIL(r, index, "WGT row %llu out of range (depth %u)", (unsigned long long) wgt_max, cfg->wgt_depth);
  }
  r->info.stats.gemm_counter += uops;
  /* Constant block sizes let the compiler unroll and vectorize the dot products. */
  const uint32_t batch = cfg->batch;
  switch (cfg->block_in) {
    case 8: gemm_loops(dev, in, batch, 8); break;
    case 16: gemm_loops(dev, in, batch, 16); break;
    case 32: gemm_loops(dev, in, batch, 32); break;
    default: gemm_loops(dev, in, batch, cfg->block_in); break;
  }
  return q8nn_status_success;
}

/* fsim SHR: b >= 0 arithmetic right shift, b < 0 left shift by -b (low 32 bits). Amounts of 32
   or more are undefined in fsim; the model extends the shift (sign fill / zero). */
static inline int32_t alu_shift(int32_t a, int32_t b) {
  if (b >= 0) return b >= 32 ? (a < 0 ? -1 : 0) : a >> b;
  if (b <= -32) return 0;
  return (int32_t) ((uint32_t) a << (uint32_t) -b);
}

/* Lanes are processed one at a time, so src == dst is an element-wise op with itself. */
static inline void alu_row(uint32_t op, int32_t* dst, const int32_t* src, int32_t imm, uint32_t lanes,
                           uint32_t* warnings) {
  switch (op) {
    case q8nn_vta_alu_min:
      for (uint32_t l = 0; l < lanes; l++) {
        const int32_t b = src != NULL ? src[l] : imm;
        dst[l] = dst[l] < b ? dst[l] : b;
      }
      break;
    case q8nn_vta_alu_max:
      for (uint32_t l = 0; l < lanes; l++) {
        const int32_t b = src != NULL ? src[l] : imm;
        dst[l] = dst[l] > b ? dst[l] : b;
      }
      break;
    case q8nn_vta_alu_add:
      for (uint32_t l = 0; l < lanes; l++) {
        const int32_t b = src != NULL ? src[l] : imm;
        dst[l] = (int32_t) ((uint32_t) dst[l] + (uint32_t) b);
      }
      break;
    case q8nn_vta_alu_shr:
      for (uint32_t l = 0; l < lanes; l++) {
        const int32_t b = src != NULL ? src[l] : imm;
        /* Portable: immediate in [-16, 15] (checked once per instruction), tensor in [0, 15]. */
        if (src != NULL && (uint32_t) b > 15) *warnings |= q8nn_vta_warn_shift_range;
        dst[l] = alu_shift(dst[l], b);
      }
      break;
    default: /* MUL */
      for (uint32_t l = 0; l < lanes; l++) {
        const int32_t b = src != NULL ? src[l] : imm;
        dst[l] = (int32_t) ((uint32_t) dst[l] * (uint32_t) b);
      }
      break;
  }
}

static enum q8nn_status exec_alu(struct run* r, uint32_t index, uint64_t* cycles) {
  const struct q8nn_vta_insn* in = &r->slots[index].insn;
  const struct q8nn_vta_hw_config* cfg = r->cfg;
  struct q8nn_vta_device* dev = r->dev;
  if (in->alu_opcode == q8nn_vta_alu_mul) r->info.warnings |= q8nn_vta_warn_mul;
  if (in->alu_opcode == q8nn_vta_alu_shr && in->use_imm && (in->imm < -16 || in->imm > 15)) {
    r->info.warnings |= q8nn_vta_warn_shift_range;
  }
  if (in->uop_end <= in->uop_bgn || in->iter_out == 0 || in->iter_in == 0) return q8nn_status_success;
  const uint64_t dst_max = max_index(dev->uop_dst, in, in->dst_factor_out, in->dst_factor_in);
  if (dst_max >= cfg->acc_depth) {
    return FAIL(r, index, "destination ACC row %llu out of range (depth %u)", (unsigned long long) dst_max,
                cfg->acc_depth);
  }
  /* With an immediate the source row is not read (spec §5.4), but TVM's functional simulator forms
     its SRAM pointer anyway and checks the index against the depth (SRAM::BeginPtr's CHECK_LT), so
     it rejects such a program: so does this model, whatever the flags. */
  const uint64_t src_max = max_index(dev->uop_src, in, in->src_factor_out, in->src_factor_in);
  if (src_max >= cfg->acc_depth) {
    return FAIL(r, index, "source ACC row %llu out of range (depth %u)%s", (unsigned long long) src_max,
                cfg->acc_depth, in->use_imm ? " (checked with an immediate too, as TVM's simulator does)" : "");
  }
  const uint32_t lanes = cfg->acc_lanes;
  for (uint32_t io = 0; io < in->iter_out; io++) {
    for (uint32_t ii = 0; ii < in->iter_in; ii++) {
      const uint32_t dofs = io * in->dst_factor_out + ii * in->dst_factor_in;
      const uint32_t sofs = io * in->src_factor_out + ii * in->src_factor_in;
      for (uint32_t u = in->uop_bgn; u < in->uop_end; u++) {
        const uint32_t row = dev->uop_dst[u] + dofs;
        const int32_t* src = in->use_imm ? NULL : dev->acc + (size_t) (dev->uop_src[u] + sofs) * lanes;
        alu_row(in->alu_opcode, dev->acc + (size_t) row * lanes, src, in->imm, lanes, &r->info.warnings);
        dev->acc_out_valid[row] = 1;
      }
    }
  }
  const uint64_t uops = (uint64_t) in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  r->info.stats.alu_counter += uops;
  *cycles += 2 * uops; /* one vector op every two cycles (read-modify-write of ACC) */
  return q8nn_status_success;
}

/* ---- scheduler ------------------------------------------------------------------------ */

/* Executes the head of module m if its tokens are available. Returns 1 if it ran, 0 if it waits,
   -1 on error. */
static int step(struct run* r, uint32_t m, enum q8nn_status* status) {
  const uint32_t index = r->order[m][r->head[m]];
  const struct slot* s = &r->slots[index];
  for (int k = 0; k < 2; k++) {
    if (s->pop[k] != queue_none && r->queues[s->pop[k]].head == r->queues[s->pop[k]].tail) return 0;
  }
  uint64_t start = r->module_time[m];
  for (int k = 0; k < 2; k++) {
    if (s->pop[k] == queue_none) continue;
    struct token_queue* q = &r->queues[s->pop[k]];
    const struct token* t = &q->items[q->head++];
    if (t->ready > start) start = t->ready;
    for (uint32_t j = 0; j < module_count; j++) {
      if (t->clock[j] > r->clock[m][j]) r->clock[m][j] = t->clock[j];
    }
  }
  uint64_t cycles = r->cfg->insn_overhead_cycles;
  enum q8nn_status st = q8nn_status_success;
  switch (s->insn.opcode) {
    case q8nn_vta_op_load: st = exec_load(r, index, &cycles); break;
    case q8nn_vta_op_store: st = exec_store(r, index, &cycles); break;
    case q8nn_vta_op_gemm: st = exec_gemm(r, index, &cycles); break;
    case q8nn_vta_op_alu: st = exec_alu(r, index, &cycles); break;
    default: /* FINISH */
      for (uint32_t j = 0; j < module_count; j++) {
        if (j != module_compute && r->clock[m][j] < r->count[j]) {
          const uint32_t other = r->order[j][r->clock[m][j]];
          st = FAIL(r, index, "not ordered after instruction %u (%s) of the %s module by dependency "
                    "tokens: the host could see the program as done before it ran", other,
                    q8nn_vta_insn_name(&r->slots[other].insn), module_names[j]);
          break;
        }
      }
      break;
  }
  if (st != q8nn_status_success) {
    *status = st;
    return -1;
  }
  const uint64_t end = start + cycles;
  r->module_time[m] = end;
  r->info.busy_cycles[m] += cycles;
  r->info.stats.instructions++;
  r->clock[m][m]++;
  r->head[m]++;
  for (int k = 0; k < 2; k++) {
    if (s->push[k] == queue_none) continue;
    struct token_queue* q = &r->queues[s->push[k]];
    struct token* t = &q->items[q->tail++];
    t->ready = end;
    memcpy(t->clock, r->clock[m], sizeof(t->clock));
    t->pusher = index;
    const uint32_t outstanding = (uint32_t) (q->tail - q->head);
    if (outstanding > r->info.max_tokens) r->info.max_tokens = outstanding;
  }
  if (s->insn.opcode == q8nn_vta_op_finish) r->info.stats.cycles = end;
  return 1;
}

static enum q8nn_status report_deadlock(struct run* r) {
  char text[400];
  size_t used = 0;
  uint32_t first = UINT32_MAX;
  for (uint32_t m = 0; m < module_count; m++) {
    if (r->head[m] == r->count[m]) continue;
    const uint32_t index = r->order[m][r->head[m]];
    const struct slot* s = &r->slots[index];
    if (first == UINT32_MAX) first = index;
    for (int k = 0; k < 2; k++) {
      if (s->pop[k] == queue_none || r->queues[s->pop[k]].head != r->queues[s->pop[k]].tail) continue;
      used += (size_t) snprintf(text + used, sizeof(text) - used, "%s%s module stuck at instruction %u (%s) "
                                "waiting for a %s token", used ? "; " : "", module_names[m], index,
                                q8nn_vta_insn_name(&s->insn), queue_names[s->pop[k]]);
      if (used >= sizeof(text)) used = sizeof(text) - 1;
      break;
    }
  }
  return fail_insn(r, first, "deadlock: %s", text);
}

static void release(struct run* r) {
  free(r->slots);
  for (uint32_t m = 0; m < module_count; m++) free(r->order[m]);
  for (uint32_t q = 0; q < queue_count; q++) free(r->queues[q].items);
}

enum q8nn_status q8nn_vta_device_run(struct q8nn_vta_device* dev, const uint64_t* insns, size_t count,
                                     struct q8nn_vta_run_info* info) {
  struct run r;
  memset(&r, 0, sizeof(r));
  r.dev = dev;
  r.cfg = &dev->config;
  dev->message[0] = '\0';
  if (count == 0 || count > UINT32_MAX / 2) {
    return q8nn_vta_device_fail(dev, q8nn_status_backend_error, "program of %zu instructions", count);
  }
  r.slots = calloc(count, sizeof(*r.slots));
  for (uint32_t m = 0; m < module_count; m++) r.order[m] = malloc(count * sizeof(uint32_t));
  if (r.slots == NULL || r.order[0] == NULL || r.order[1] == NULL || r.order[2] == NULL) {
    release(&r);
    return q8nn_vta_device_fail(dev, q8nn_status_out_of_memory, "program of %zu instructions", count);
  }
  enum q8nn_status status = q8nn_status_success;
  size_t pushes[queue_count] = {0};
  uint32_t finish = UINT32_MAX;
  for (uint32_t i = 0; i < (uint32_t) count; i++) {
    q8nn_vta_decode_insn(r.cfg, &insns[2 * (size_t) i], &r.slots[i].insn);
    status = classify(&r, i);
    if (status != q8nn_status_success) goto done;
    const struct slot* s = &r.slots[i];
    /* FINISH ends the program: fsim stops at the first FINISH it executes. */
    if (finish != UINT32_MAX && s->module == module_compute) {
      status = FAIL(&r, i, "follows FINISH (instruction %u) in the compute queue", finish);
      goto done;
    }
    if (s->insn.opcode == q8nn_vta_op_finish) finish = i;
    r.order[s->module][r.count[s->module]++] = i;
    for (int k = 0; k < 2; k++) {
      if (s->push[k] != queue_none) pushes[s->push[k]]++;
    }
  }
  if (finish == UINT32_MAX) {
    status = fail_insn(&r, (uint32_t) count - 1, "the program has no FINISH (fsim would spin forever)");
    goto done;
  }
  for (uint32_t q = 0; q < queue_count; q++) {
    r.queues[q].items = malloc((pushes[q] + 1) * sizeof(struct token));
    if (r.queues[q].items == NULL) {
      status = q8nn_vta_device_fail(dev, q8nn_status_out_of_memory, "token queues");
      goto done;
    }
  }
  for (;;) {
    int progress = 0;
    for (uint32_t m = 0; m < module_count; m++) {
      while (r.head[m] < r.count[m]) {
        const int ran = step(&r, m, &status);
        if (ran < 0) goto done;
        if (ran == 0) break;
        progress = 1;
      }
    }
    if (!progress) break;
  }
  if (r.head[0] < r.count[0] || r.head[1] < r.count[1] || r.head[2] < r.count[2]) {
    status = report_deadlock(&r);
    goto done;
  }
  for (uint32_t q = 0; q < queue_count; q++) {
    const struct token_queue* tq = &r.queues[q];
    if (tq->head != tq->tail) {
      status = fail_insn(&r, tq->items[tq->tail - 1].pusher,
                         "%zu token(s) left in the %s queue at FINISH (last pushed by this instruction)",
                         tq->tail - tq->head, queue_names[q]);
      goto done;
    }
  }
  if (r.info.max_tokens > 8) r.info.warnings |= q8nn_vta_warn_many_tokens;
  struct q8nn_vta_stats* a = &dev->stats;
  const struct q8nn_vta_stats* b = &r.info.stats;
  a->inp_load_nbytes += b->inp_load_nbytes;
  a->wgt_load_nbytes += b->wgt_load_nbytes;
  a->acc_load_nbytes += b->acc_load_nbytes;
  a->uop_load_nbytes += b->uop_load_nbytes;
  a->out_store_nbytes += b->out_store_nbytes;
  a->gemm_counter += b->gemm_counter;
  a->alu_counter += b->alu_counter;
  a->instructions += b->instructions;
  a->cycles += b->cycles;
done:
  if (info != NULL) *info = r.info;
  release(&r);
  return status;
}
