/* Command-buffer recording with TVM's runtime rules (VTA-SPEC §7.3-7.5). Instructions are kept
   decoded until finalize so dependency flags can still be attached to the last one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-runtime.h"

struct loop_entry {
  uint32_t extent, dst_factor, src_factor, wgt_factor;
};

struct uop_kernel {
  uint64_t key;
  uint32_t* words; /* encoded micro-ops */
  uint32_t* dst;   /* dst index of each micro-op, for the hazard rule */
  uint32_t size;
  size_t capacity;
  struct loop_entry loops[2];
  uint32_t loop_count, open_loops;
  int64_t mode, reset, alu_opcode; /* -1 until the first micro-op */
  uint32_t use_imm;
  int32_t imm;
  uint32_t sram_begin, sram_end; /* resident in micro-op SRAM when end > begin */
  uint64_t staged_generation;    /* micro-ops already in this program's staging when equal */
  uint32_t staged_offset;
};

struct q8nn_vta_cmd {
  struct q8nn_vta_device* dev;
  const struct q8nn_vta_hw_config* cfg;
  struct q8nn_vta_insn* insns;
  size_t insn_count, insn_capacity;
  uint32_t* uop_relative; /* indices of LOAD UOP whose dram_base is an offset in the staging */
  size_t uop_relative_count, uop_relative_capacity;
  uint32_t* staging;
  size_t staging_count, staging_capacity;
  uint32_t pending_pop_prev[4], pending_pop_next[4];
  /* Kernel cache: open addressing on key. */
  struct uop_kernel** table;
  size_t table_capacity, kernel_count;
  /* Resident kernels (ring order) and the end of the last placement. */
  struct uop_kernel** resident;
  size_t resident_count, resident_capacity;
  uint32_t ring_end;
  uint64_t generation;
  struct uop_kernel* recording;
  enum q8nn_status error;
};

static enum q8nn_status cmd_fail(struct q8nn_vta_cmd* cmd, enum q8nn_status status, const char* format, ...)
    Q8NN_PRINTF(3, 4);

static enum q8nn_status cmd_fail(struct q8nn_vta_cmd* cmd, enum q8nn_status status, const char* format, ...) {
  char text[400];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  if (cmd->error == q8nn_status_success) cmd->error = status;
  return q8nn_vta_device_fail(cmd->dev, status, "runtime: %s", text);
}

/* Grows *array (element size elem) to hold at least need elements. */
static int reserve(void** array, size_t* capacity, size_t need, size_t elem) {
  if (need <= *capacity) return 1;
  size_t c = *capacity == 0 ? 64 : *capacity;
  while (c < need) c *= 2;
  void* p = realloc(*array, c * elem);
  if (p == NULL) return 0;
  *array = p;
  *capacity = c;
  return 1;
}

enum q8nn_status q8nn_vta_cmd_create(struct q8nn_vta_device* device, struct q8nn_vta_cmd** cmd_out) {
  struct q8nn_vta_cmd* cmd = calloc(1, sizeof(*cmd));
  if (cmd == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "vta command buffer");
  cmd->dev = device;
  cmd->cfg = &device->config;
  cmd->generation = 1;
  *cmd_out = cmd;
  return q8nn_status_success;
}

static void kernel_free(struct uop_kernel* k) {
  if (k == NULL) return;
  free(k->words);
  free(k->dst);
  free(k);
}

void q8nn_vta_cmd_delete(struct q8nn_vta_cmd* cmd) {
  if (cmd == NULL) return;
  for (size_t i = 0; i < cmd->table_capacity; i++) kernel_free(cmd->table[i]);
  kernel_free(cmd->recording);
  free(cmd->table);
  free(cmd->resident);
  free(cmd->insns);
  free(cmd->uop_relative);
  free(cmd->staging);
  free(cmd);
}

size_t q8nn_vta_cmd_insn_count(const struct q8nn_vta_cmd* cmd) { return cmd->insn_count; }

const struct q8nn_vta_insn* q8nn_vta_cmd_insn(const struct q8nn_vta_cmd* cmd, size_t i) {
  return i < cmd->insn_count ? &cmd->insns[i] : NULL;
}

/* ---- instruction queue (InsnQueue) ------------------------------------------------------ */

static uint32_t mem_stage(uint32_t memory_type) {
  return memory_type == q8nn_vta_mem_inp || memory_type == q8nn_vta_mem_wgt ? q8nn_vta_stage_load
                                                                             : q8nn_vta_stage_compute;
}

/* Stage of an instruction for attaching pushes; 0 for a LOAD NOP (TVM's kNoneStage). */
static uint32_t insn_stage(const struct q8nn_vta_insn* in) {
  switch (in->opcode) {
    case q8nn_vta_op_gemm:
    case q8nn_vta_op_alu: return q8nn_vta_stage_compute;
    case q8nn_vta_op_load: return in->x_size == 0 ? 0 : mem_stage(in->memory_type);
    case q8nn_vta_op_store: return q8nn_vta_stage_store;
  }
  return 0;
}

/* Appends an instruction for `stage`, taking (and clearing) that stage's pending pops. */
static struct q8nn_vta_insn* create(struct q8nn_vta_cmd* cmd, uint32_t stage) {
  if (!reserve((void**) &cmd->insns, &cmd->insn_capacity, cmd->insn_count + 1, sizeof(*cmd->insns))) {
    cmd_fail(cmd, q8nn_status_out_of_memory, "instruction buffer");
    return NULL;
  }
  struct q8nn_vta_insn* in = &cmd->insns[cmd->insn_count++];
  memset(in, 0, sizeof(*in));
  in->pop_prev = cmd->pending_pop_prev[stage];
  in->pop_next = cmd->pending_pop_next[stage];
  cmd->pending_pop_prev[stage] = 0;
  cmd->pending_pop_next[stage] = 0;
  return in;
}

static enum q8nn_status push_noop(struct q8nn_vta_cmd* cmd, uint32_t stage, uint32_t push_prev,
                                  uint32_t push_next, uint32_t pop_prev, uint32_t pop_next) {
  if (!reserve((void**) &cmd->insns, &cmd->insn_capacity, cmd->insn_count + 1, sizeof(*cmd->insns))) {
    return cmd_fail(cmd, q8nn_status_out_of_memory, "instruction buffer");
  }
  struct q8nn_vta_insn* in = &cmd->insns[cmd->insn_count++];
  memset(in, 0, sizeof(*in));
  in->opcode = stage == q8nn_vta_stage_store ? q8nn_vta_op_store : q8nn_vta_op_load;
  in->memory_type = stage == q8nn_vta_stage_load ? q8nn_vta_mem_inp : q8nn_vta_mem_uop;
  in->push_prev = push_prev;
  in->push_next = push_next;
  in->pop_prev = pop_prev;
  in->pop_next = pop_next;
  return q8nn_status_success;
}

static enum q8nn_status commit_pending_pop(struct q8nn_vta_cmd* cmd, uint32_t stage) {
  if (cmd->pending_pop_prev[stage] || cmd->pending_pop_next[stage]) {
    const uint32_t prev = cmd->pending_pop_prev[stage], next = cmd->pending_pop_next[stage];
    cmd->pending_pop_prev[stage] = cmd->pending_pop_next[stage] = 0;
    return push_noop(cmd, stage, 0, 0, prev, next);
  }
  return q8nn_status_success;
}

static bool legal_pair(uint32_t from, uint32_t to) {
  return (from == 1 && to == 2) || (from == 2 && to == 1) || (from == 2 && to == 3) || (from == 3 && to == 2);
}

enum q8nn_status q8nn_vta_dep_pop(struct q8nn_vta_cmd* cmd, uint32_t from, uint32_t to) {
  if (!legal_pair(from, to)) return cmd_fail(cmd, q8nn_status_backend_error, "DepPop(%u, %u): illegal queue pair", from, to);
  uint32_t* pending = from < to ? cmd->pending_pop_prev : cmd->pending_pop_next;
  if (pending[to]) {
    const enum q8nn_status status = commit_pending_pop(cmd, to);
    if (status != q8nn_status_success) return status;
  }
  pending[to] = 1;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_dep_push(struct q8nn_vta_cmd* cmd, uint32_t from, uint32_t to) {
  if (!legal_pair(from, to)) return cmd_fail(cmd, q8nn_status_backend_error, "DepPush(%u, %u): illegal queue pair", from, to);
  enum q8nn_status status = commit_pending_pop(cmd, from);
  if (status != q8nn_status_success) return status;
  if (cmd->insn_count != 0) {
    struct q8nn_vta_insn* last = &cmd->insns[cmd->insn_count - 1];
    if (insn_stage(last) == from) {
      if (from < to && !last->push_next) {
        last->push_next = 1;
        return q8nn_status_success;
      }
      if (from > to && !last->push_prev) {
        last->push_prev = 1;
        return q8nn_status_success;
      }
    }
  }
  return from < to ? push_noop(cmd, from, 0, 1, 0, 0) : push_noop(cmd, from, 1, 0, 0, 0);
}

/* ---- LOAD / STORE ----------------------------------------------------------------------- */

static enum q8nn_status dram_element(struct q8nn_vta_cmd* cmd, const char* what, uint32_t addr,
                                     uint32_t elem_offset, uint32_t memory_type, uint32_t* dram_base) {
  const uint32_t elem = q8nn_vta_dram_elem_bytes(cmd->cfg, memory_type);
  if (elem == 0 || addr % elem != 0) {
    return cmd_fail(cmd, q8nn_status_backend_error, "%s: DRAM address 0x%x not aligned to the %u-byte element of "
                    "memory type %u", what, addr, elem, memory_type);
  }
  const uint64_t base = (uint64_t) addr / elem + elem_offset;
  if (base > UINT32_MAX) {
    return cmd_fail(cmd, q8nn_status_backend_error, "%s: DRAM element %llu beyond the 32-bit dram_base", what,
                    (unsigned long long) base);
  }
  *dram_base = (uint32_t) base;
  return q8nn_status_success;
}

static enum q8nn_status check_mem_fields(struct q8nn_vta_cmd* cmd, const char* what, uint32_t sram, uint32_t x_size,
                                         uint32_t y_size, uint32_t x_stride, uint32_t pads_or) {
  if (sram > 0xFFFF || x_size > 0xFFFF || y_size > 0xFFFF || x_stride > 0xFFFF || pads_or > 15) {
    return cmd_fail(cmd, q8nn_status_backend_error, "%s: sram %u, x_size %u, y_size %u, x_stride %u or a pad "
                    "exceeds its field (16 bits; pads 4 bits)", what, sram, x_size, y_size, x_stride);
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_load_buffer_2d(struct q8nn_vta_cmd* cmd, uint32_t src_addr, uint32_t src_elem_offset,
                                         uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                                         uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after,
                                         uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type) {
  if (dst_memory_type == q8nn_vta_mem_out || dst_memory_type > q8nn_vta_mem_acc_8bit) {
    return cmd_fail(cmd, q8nn_status_backend_error, "LoadBuffer2D: memory type %u cannot be loaded", dst_memory_type);
  }
  const uint32_t pads = x_pad_before > 15 || y_pad_before > 15 || x_pad_after > 15 || y_pad_after > 15 ? 16 : 0;
  uint32_t dram_base = 0;
  enum q8nn_status status = check_mem_fields(cmd, "LoadBuffer2D", dst_sram_index, x_size, y_size, x_stride, pads);
  if (status == q8nn_status_success) {
    status = dram_element(cmd, "LoadBuffer2D", src_addr, src_elem_offset, dst_memory_type, &dram_base);
  }
  if (status != q8nn_status_success) return status;
  struct q8nn_vta_insn* in = create(cmd, mem_stage(dst_memory_type));
  if (in == NULL) return q8nn_status_out_of_memory;
  in->opcode = q8nn_vta_op_load;
  in->memory_type = dst_memory_type;
  in->sram_base = dst_sram_index;
  in->dram_base = dram_base;
  in->x_size = x_size;
  in->y_size = y_size;
  in->x_stride = x_stride;
  in->x_pad_0 = x_pad_before;
  in->y_pad_0 = y_pad_before;
  in->x_pad_1 = x_pad_after;
  in->y_pad_1 = y_pad_after;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_store_buffer_2d(struct q8nn_vta_cmd* cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                                          uint32_t dst_addr, uint32_t dst_elem_offset, uint32_t x_size,
                                          uint32_t y_size, uint32_t x_stride) {
  if (src_memory_type != q8nn_vta_mem_out) {
    return cmd_fail(cmd, q8nn_status_backend_error, "StoreBuffer2D: memory type %u (only OUT = 4 is stored)",
                    src_memory_type);
  }
  uint32_t dram_base = 0;
  enum q8nn_status status = check_mem_fields(cmd, "StoreBuffer2D", src_sram_index, x_size, y_size, x_stride, 0);
  if (status == q8nn_status_success) {
    status = dram_element(cmd, "StoreBuffer2D", dst_addr, dst_elem_offset, src_memory_type, &dram_base);
  }
  if (status != q8nn_status_success) return status;
  struct q8nn_vta_insn* in = create(cmd, q8nn_vta_stage_store);
  if (in == NULL) return q8nn_status_out_of_memory;
  in->opcode = q8nn_vta_op_store;
  in->memory_type = src_memory_type;
  in->sram_base = src_sram_index;
  in->dram_base = dram_base;
  in->x_size = x_size;
  in->y_size = y_size;
  in->x_stride = x_stride;
  return q8nn_status_success;
}

/* ---- micro-op kernels (UopKernel, UopQueue) ---------------------------------------------- */

static struct uop_kernel** table_slot(struct q8nn_vta_cmd* cmd, uint64_t key) {
  /* splitmix64 finalizer: caller keys are often small consecutive integers. */
  uint64_t h = key + UINT64_C(0x9E3779B97F4A7C15);
  h = (h ^ (h >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  h = (h ^ (h >> 27)) * UINT64_C(0x94D049BB133111EB);
  h ^= h >> 31;
  for (size_t i = (size_t) h & (cmd->table_capacity - 1);; i = (i + 1) & (cmd->table_capacity - 1)) {
    if (cmd->table[i] == NULL || cmd->table[i]->key == key) return &cmd->table[i];
  }
}

static enum q8nn_status table_insert(struct q8nn_vta_cmd* cmd, struct uop_kernel* k) {
  if (2 * (cmd->kernel_count + 1) > cmd->table_capacity) {
    const size_t old_capacity = cmd->table_capacity;
    struct uop_kernel** old = cmd->table;
    const size_t capacity = old_capacity == 0 ? 64 : 2 * old_capacity;
    cmd->table = calloc(capacity, sizeof(*cmd->table));
    if (cmd->table == NULL) {
      cmd->table = old;
      return cmd_fail(cmd, q8nn_status_out_of_memory, "kernel cache");
    }
    cmd->table_capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++) {
      if (old[i] != NULL) *table_slot(cmd, old[i]->key) = old[i];
    }
    free(old);
  }
  *table_slot(cmd, k->key) = k;
  cmd->kernel_count++;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_uop_loop_begin(struct q8nn_vta_cmd* cmd, uint32_t extent, uint32_t dst_factor,
                                         uint32_t src_factor, uint32_t wgt_factor) {
  struct uop_kernel* k = cmd->recording;
  if (k == NULL) return cmd_fail(cmd, q8nn_status_backend_error, "UopLoopBegin outside a kernel recording");
  if (k->size != 0 || k->loop_count == 2) {
    return cmd_fail(cmd, q8nn_status_backend_error, "UopLoopBegin: at most 2 loops, all before the first micro-op");
  }
  k->loops[k->loop_count++] = (struct loop_entry){extent, dst_factor, src_factor, wgt_factor};
  k->open_loops++;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_uop_loop_end(struct q8nn_vta_cmd* cmd) {
  struct uop_kernel* k = cmd->recording;
  if (k == NULL || k->open_loops == 0) {
    return cmd_fail(cmd, q8nn_status_backend_error, "UopLoopEnd without a matching UopLoopBegin");
  }
  k->open_loops--;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_uop_push(struct q8nn_vta_cmd* cmd, uint32_t mode, uint32_t reset, uint32_t dst_index,
                                   uint32_t src_index, uint32_t wgt_index, uint32_t alu_opcode, uint32_t use_imm,
                                   int32_t imm) {
  struct uop_kernel* k = cmd->recording;
  if (k == NULL) return cmd_fail(cmd, q8nn_status_backend_error, "UopPush outside a kernel recording");
  for (uint32_t i = k->size >= 2 ? k->size - 2 : 0; i < k->size; i++) {
    if (k->dst[i] == dst_index) {
      return cmd_fail(cmd, q8nn_status_backend_error, "UopPush: micro-op %u writes ACC row %u like micro-op %u "
                      "(the pipeline needs 2 micro-ops between writes of one row)", k->size, dst_index, i);
    }
  }
  if (k->mode < 0) {
    k->mode = mode;
    k->reset = reset;
  } else if (k->mode != (int64_t) mode || k->reset != (int64_t) reset) {
    return cmd_fail(cmd, q8nn_status_backend_error, "UopPush: mode/reset differ within one kernel");
  }
  if (mode == 1) {
    if (k->alu_opcode < 0) {
      k->alu_opcode = alu_opcode;
      k->use_imm = use_imm;
      k->imm = imm;
    } else if (k->alu_opcode != (int64_t) alu_opcode || k->use_imm != use_imm || k->imm != imm) {
      return cmd_fail(cmd, q8nn_status_backend_error, "UopPush: ALU opcode/immediate differ within one kernel");
    }
  }
  const struct q8nn_vta_uop uop = {dst_index, src_index, wgt_index};
  uint32_t word;
  if (q8nn_vta_encode_uop(cmd->cfg, &uop, &word) != q8nn_status_success) {
    return cmd_fail(cmd, q8nn_status_backend_error, "UopPush: dst %u / src %u / wgt %u exceed the micro-op fields",
                    dst_index, src_index, wgt_index);
  }
  /* words and dst grow in lockstep: one capacity serves both. */
  size_t words_capacity = k->capacity;
  if (!reserve((void**) &k->words, &words_capacity, k->size + 1, sizeof(uint32_t)) ||
      !reserve((void**) &k->dst, &k->capacity, k->size + 1, sizeof(uint32_t))) {
    return cmd_fail(cmd, q8nn_status_out_of_memory, "micro-op kernel");
  }
  k->words[k->size] = word;
  k->dst[k->size] = dst_index;
  k->size++;
  return q8nn_status_success;
}

static enum q8nn_status get_kernel(struct q8nn_vta_cmd* cmd, uint64_t key, q8nn_vta_kernel_fn record,
                                   void* context, struct uop_kernel** out) {
  if (cmd->table_capacity != 0) {
    struct uop_kernel* k = *table_slot(cmd, key);
    if (k != NULL) {
      *out = k;
      return q8nn_status_success;
    }
  }
  if (cmd->recording != NULL || record == NULL) {
    return cmd_fail(cmd, q8nn_status_backend_error, "kernel %llu: %s", (unsigned long long) key,
                    record == NULL ? "no recording function" : "nested kernel recording");
  }
  struct uop_kernel* k = calloc(1, sizeof(*k));
  if (k == NULL) return cmd_fail(cmd, q8nn_status_out_of_memory, "micro-op kernel");
  k->key = key;
  k->mode = k->reset = k->alu_opcode = -1;
  cmd->recording = k;
  enum q8nn_status status = record(cmd, context);
  cmd->recording = NULL;
  if (status == q8nn_status_success && (k->size == 0 || k->size > cmd->cfg->uop_depth || k->open_loops != 0)) {
    status = cmd_fail(cmd, q8nn_status_backend_error, "kernel %llu: %u micro-ops (1..%u), %u unclosed loops",
                      (unsigned long long) key, k->size, cmd->cfg->uop_depth, k->open_loops);
  }
  if (status == q8nn_status_success) status = table_insert(cmd, k);
  if (status != q8nn_status_success) {
    kernel_free(k);
    if (cmd->error == q8nn_status_success) cmd->error = status;
    return status;
  }
  *out = k;
  return q8nn_status_success;
}

/* Places a kernel in the micro-op SRAM ring (wrapping to 0 and evicting what it overlaps) and
   stages its micro-ops for DRAM once per program. Returns the LOAD UOP to emit. */
static enum q8nn_status make_resident(struct q8nn_vta_cmd* cmd, struct uop_kernel* k) {
  const uint32_t n = k->size;
  const uint32_t begin = cmd->ring_end + n > cmd->cfg->uop_depth ? 0 : cmd->ring_end;
  size_t kept = 0;
  for (size_t i = 0; i < cmd->resident_count; i++) {
    struct uop_kernel* r = cmd->resident[i];
    if (r->sram_begin < begin + n && begin < r->sram_end) {
      r->sram_begin = r->sram_end = 0;
    } else {
      cmd->resident[kept++] = r;
    }
  }
  cmd->resident_count = kept;
  if (!reserve((void**) &cmd->resident, &cmd->resident_capacity, kept + 1, sizeof(*cmd->resident))) {
    return cmd_fail(cmd, q8nn_status_out_of_memory, "micro-op residency");
  }
  cmd->resident[cmd->resident_count++] = k;
  k->sram_begin = begin;
  k->sram_end = begin + n;
  cmd->ring_end = begin + n;
  if (k->staged_generation != cmd->generation) {
    if (!reserve((void**) &cmd->staging, &cmd->staging_capacity, cmd->staging_count + n, sizeof(uint32_t))) {
      return cmd_fail(cmd, q8nn_status_out_of_memory, "micro-op staging");
    }
    memcpy(cmd->staging + cmd->staging_count, k->words, n * sizeof(uint32_t));
    k->staged_offset = (uint32_t) cmd->staging_count;
    k->staged_generation = cmd->generation;
    cmd->staging_count += n;
  }
  if (!reserve((void**) &cmd->uop_relative, &cmd->uop_relative_capacity, cmd->uop_relative_count + 1,
               sizeof(uint32_t))) {
    return cmd_fail(cmd, q8nn_status_out_of_memory, "micro-op loads");
  }
  struct q8nn_vta_insn* in = create(cmd, q8nn_vta_stage_compute);
  if (in == NULL) return q8nn_status_out_of_memory;
  cmd->uop_relative[cmd->uop_relative_count++] = (uint32_t) (cmd->insn_count - 1);
  in->opcode = q8nn_vta_op_load;
  in->memory_type = q8nn_vta_mem_uop;
  in->sram_base = begin;
  in->dram_base = k->staged_offset;
  in->x_size = n;
  in->y_size = 1;
  in->x_stride = n;
  return q8nn_status_success;
}

static enum q8nn_status push_op(struct q8nn_vta_cmd* cmd, uint32_t opcode, uint64_t key, q8nn_vta_kernel_fn record,
                                void* context) {
  struct uop_kernel* k = NULL;
  enum q8nn_status status = get_kernel(cmd, key, record, context, &k);
  if (status != q8nn_status_success) return status;
  /* Loop mapping of spec §7.5: GEMM's first loop is the outer one; an ALU kernel with a single
     loop runs it as the inner loop. */
  struct q8nn_vta_insn op;
  memset(&op, 0, sizeof(op));
  op.opcode = opcode;
  op.reset = k->reset > 0;
  op.iter_out = op.iter_in = 1;
  const struct loop_entry* outer = NULL;
  const struct loop_entry* inner = NULL;
  if (k->loop_count == 2) {
    outer = &k->loops[0];
    inner = &k->loops[1];
  } else if (k->loop_count == 1) {
    if (opcode == q8nn_vta_op_gemm) outer = &k->loops[0]; else inner = &k->loops[0];
  }
  if (outer != NULL) {
    op.iter_out = outer->extent;
    op.dst_factor_out = outer->dst_factor;
    op.src_factor_out = outer->src_factor;
    op.wgt_factor_out = opcode == q8nn_vta_op_gemm ? outer->wgt_factor : 0;
  }
  if (inner != NULL) {
    op.iter_in = inner->extent;
    op.dst_factor_in = inner->dst_factor;
    op.src_factor_in = inner->src_factor;
    op.wgt_factor_in = opcode == q8nn_vta_op_gemm ? inner->wgt_factor : 0;
  }
  if (opcode == q8nn_vta_op_alu) {
    op.alu_opcode = k->alu_opcode > 0 ? (uint32_t) k->alu_opcode : 0;
    op.use_imm = k->use_imm;
    op.imm = k->imm;
  }
  /* Validate the fields now (with a worst-case uop range) so the error names the call. */
  op.uop_bgn = cmd->cfg->uop_depth - 1;
  op.uop_end = cmd->cfg->uop_depth;
  uint64_t words[2];
  char why[200];
  if (q8nn_vta_encode_insn(cmd->cfg, &op, words, why, sizeof(why)) != q8nn_status_success) {
    return cmd_fail(cmd, q8nn_status_backend_error, "%s of kernel %llu: %s",
                    opcode == q8nn_vta_op_gemm ? "PushGEMMOp" : "PushALUOp", (unsigned long long) key, why);
  }
  if (k->sram_end <= k->sram_begin) {
    status = make_resident(cmd, k);
    if (status != q8nn_status_success) return status;
  }
  op.uop_bgn = k->sram_begin;
  op.uop_end = k->sram_end;
  struct q8nn_vta_insn* in = create(cmd, q8nn_vta_stage_compute);
  if (in == NULL) return q8nn_status_out_of_memory;
  op.pop_prev = in->pop_prev;
  op.pop_next = in->pop_next;
  *in = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_push_gemm_op(struct q8nn_vta_cmd* cmd, uint64_t key, q8nn_vta_kernel_fn record, void* context) {
  return push_op(cmd, q8nn_vta_op_gemm, key, record, context);
}

enum q8nn_status q8nn_vta_push_alu_op(struct q8nn_vta_cmd* cmd, uint64_t key, q8nn_vta_kernel_fn record, void* context) {
  return push_op(cmd, q8nn_vta_op_alu, key, record, context);
}

/* ---- finalize / run ----------------------------------------------------------------------- */

static void reset_buffer(struct q8nn_vta_cmd* cmd) {
  cmd->insn_count = 0;
  cmd->uop_relative_count = 0;
  cmd->staging_count = 0;
  memset(cmd->pending_pop_prev, 0, sizeof(cmd->pending_pop_prev));
  memset(cmd->pending_pop_next, 0, sizeof(cmd->pending_pop_next));
  /* The SRAM outlives a run, but like TVM we do not rely on it: kernels are reloaded. */
  for (size_t i = 0; i < cmd->resident_count; i++) cmd->resident[i]->sram_begin = cmd->resident[i]->sram_end = 0;
  cmd->resident_count = 0;
  cmd->ring_end = 0;
  cmd->generation++;
  cmd->error = q8nn_status_success;
}

enum q8nn_status q8nn_vta_cmd_finalize(struct q8nn_vta_cmd* cmd, struct q8nn_vta_program* program) {
  memset(program, 0, sizeof(*program));
  enum q8nn_status status = cmd->error;
  if (status == q8nn_status_success) {
    status = q8nn_vta_dep_push(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  }
  if (status == q8nn_status_success) status = q8nn_vta_dep_push(cmd, q8nn_vta_stage_load, q8nn_vta_stage_compute);
  if (status == q8nn_status_success) status = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_store, q8nn_vta_stage_compute);
  if (status == q8nn_status_success) status = q8nn_vta_dep_pop(cmd, q8nn_vta_stage_load, q8nn_vta_stage_compute);
  if (status == q8nn_status_success) status = commit_pending_pop(cmd, q8nn_vta_stage_compute);
  if (status == q8nn_status_success) {
    struct q8nn_vta_insn* finish = create(cmd, q8nn_vta_stage_compute);
    if (finish == NULL) {
      status = q8nn_status_out_of_memory;
    } else {
      finish->opcode = q8nn_vta_op_finish;
    }
  }
  if (status == q8nn_status_success && cmd->staging_count != 0) {
    const size_t bytes = cmd->staging_count * sizeof(uint32_t);
    status = q8nn_vta_dram_alloc(cmd->dev, bytes, &program->uop_addr);
    if (status == q8nn_status_success) {
      program->uop_bytes = (uint32_t) bytes;
      q8nn_vta_dram_write(cmd->dev, program->uop_addr, cmd->staging, bytes);
      for (size_t i = 0; i < cmd->uop_relative_count; i++) {
        cmd->insns[cmd->uop_relative[i]].dram_base += program->uop_addr / 4;
      }
    }
  }
  if (status == q8nn_status_success) {
    program->insns = malloc(cmd->insn_count * 2 * sizeof(uint64_t));
    if (program->insns == NULL) status = q8nn_vta_device_fail(cmd->dev, q8nn_status_out_of_memory, "program");
  }
  for (size_t i = 0; status == q8nn_status_success && i < cmd->insn_count; i++) {
    char why[200];
    if (q8nn_vta_encode_insn(cmd->cfg, &cmd->insns[i], &program->insns[2 * i], why, sizeof(why)) !=
        q8nn_status_success) {
      status = q8nn_vta_device_fail(cmd->dev, q8nn_status_backend_error, "runtime: instruction %zu (%s): %s", i,
                                    q8nn_vta_insn_name(&cmd->insns[i]), why);
    }
  }
  if (status == q8nn_status_success) {
    program->count = cmd->insn_count;
  } else {
    q8nn_vta_program_release(cmd->dev, program);
  }
  reset_buffer(cmd);
  return status;
}

enum q8nn_status q8nn_vta_program_run(struct q8nn_vta_device* device, const struct q8nn_vta_program* program,
                                      struct q8nn_vta_run_info* info) {
  return q8nn_vta_device_run(device, program->insns, program->count, info);
}

void q8nn_vta_program_release(struct q8nn_vta_device* device, struct q8nn_vta_program* program) {
  if (program->uop_addr != 0) q8nn_vta_dram_free(device, program->uop_addr);
  free(program->insns);
  memset(program, 0, sizeof(*program));
}

enum q8nn_status q8nn_vta_synchronize(struct q8nn_vta_cmd* cmd, struct q8nn_vta_run_info* info) {
  struct q8nn_vta_program program;
  enum q8nn_status status = q8nn_vta_cmd_finalize(cmd, &program);
  if (status != q8nn_status_success) return status;
  status = q8nn_vta_program_run(cmd->dev, &program, info);
  q8nn_vta_program_release(cmd->dev, &program);
  return status;
}
