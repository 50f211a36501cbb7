/* Binary program files. Every integer is written byte by byte in little-endian order so files
   are portable across hosts; layout in docs/vta-model.md. */
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-export.h"

static const char magic[8] = {'Q', '8', 'N', 'N', 'V', 'T', 'A', '\0'};

/* Header words after the magic, in file order. */
enum {
  h_version, h_hw_ver, h_log_inp_width, h_log_wgt_width, h_log_acc_width, h_log_batch, h_log_block,
  h_log_uop_buff_size, h_log_inp_buff_size, h_log_wgt_buff_size, h_log_acc_buff_size, h_virtual_threads,
  h_dram_bytes_per_cycle, h_dram_latency_cycles, h_insn_overhead_cycles, h_insn_count, h_region_count,
  h_count
};

#define REGION_FLAG_UOPS 1u

static int put_u32(FILE* f, uint32_t v) {
  const uint8_t b[4] = {(uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24)};
  return fwrite(b, 1, 4, f) == 4;
}

static int put_u64(FILE* f, uint64_t v) { return put_u32(f, (uint32_t) v) && put_u32(f, (uint32_t) (v >> 32)); }

static int get_u32(FILE* f, uint32_t* v) {
  uint8_t b[4];
  if (fread(b, 1, 4, f) != 4) return 0;
  *v = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
  return 1;
}

/* Bytes left in a seekable stream (files, fmemopen), UINT64_MAX when it cannot tell (pipes).
   Import checks counts and sizes against it before allocating, so a short file claiming 2^32
   instructions or a 4 GiB region is "truncated", not a multi-gigabyte allocation. */
static uint64_t bytes_left(FILE* f) {
  const long here = ftell(f);
  if (here < 0 || fseek(f, 0, SEEK_END) != 0) return UINT64_MAX;
  const long end = ftell(f);
  if (fseek(f, here, SEEK_SET) != 0) return 0; /* then every later read fails too */
  return end >= here ? (uint64_t) (end - here) : 0;
}

static int get_u64(FILE* f, uint64_t* v) {
  uint32_t lo, hi;
  if (!get_u32(f, &lo) || !get_u32(f, &hi)) return 0;
  *v = (uint64_t) hi << 32 | lo;
  return 1;
}

enum q8nn_status q8nn_vta_export_program(FILE* f, struct q8nn_vta_device* dev, const struct q8nn_vta_program* program) {
  const struct q8nn_vta_hw_config* c = &dev->config;
  if (program->count > UINT32_MAX) {
    return q8nn_vta_device_fail(dev, q8nn_status_invalid_parameter, "export: too many instructions");
  }
  const uint32_t header[h_count] = {
      Q8NN_VTA_EXPORT_VERSION, Q8NN_VTA_HW_VER, c->log_inp_width, c->log_wgt_width, c->log_acc_width,
      c->log_batch, c->log_block, c->log_uop_buff_size, c->log_inp_buff_size, c->log_wgt_buff_size,
      c->log_acc_buff_size, c->virtual_threads, c->dram_bytes_per_cycle, c->dram_latency_cycles,
      c->insn_overhead_cycles, (uint32_t) program->count, (uint32_t) dev->region_count};
  int ok = fwrite(magic, 1, sizeof(magic), f) == sizeof(magic);
  for (int i = 0; ok && i < h_count; i++) ok = put_u32(f, header[i]);
  for (size_t i = 0; ok && i < 2 * program->count; i++) ok = put_u64(f, program->insns[i]);
  for (size_t i = 0; ok && i < dev->region_count; i++) {
    const struct q8nn_vta_dram_region* r = &dev->regions[i];
    ok = put_u32(f, r->addr) && put_u32(f, r->size) &&
         put_u32(f, program->uop_addr != 0 && r->addr == program->uop_addr ? REGION_FLAG_UOPS : 0) &&
         fwrite(r->data, 1, r->size, f) == r->size;
  }
  if (!ok || fflush(f) != 0) return q8nn_vta_device_fail(dev, q8nn_status_invalid_state, "export: write failed");
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_export_program_path(const char* path, struct q8nn_vta_device* dev,
                                              const struct q8nn_vta_program* program) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return q8nn_vta_device_fail(dev, q8nn_status_invalid_parameter, "export: cannot open %s", path);
  enum q8nn_status status = q8nn_vta_export_program(f, dev, program);
  if (fclose(f) != 0 && status == q8nn_status_success) {
    status = q8nn_vta_device_fail(dev, q8nn_status_invalid_state, "export: closing %s failed", path);
  }
  return status;
}

enum q8nn_status q8nn_vta_import_program(FILE* f, struct q8nn_vta_device** device_out, struct q8nn_vta_program* program,
                                         char* error, size_t error_size) {
  memset(program, 0, sizeof(*program));
  char file_magic[8];
  uint32_t h[h_count];
  if (fread(file_magic, 1, sizeof(file_magic), f) != sizeof(file_magic) || memcmp(file_magic, magic, sizeof(magic)) != 0) {
    return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size, "import: not a q8nn VTA program");
  }
  for (int i = 0; i < h_count; i++) {
    if (!get_u32(f, &h[i])) {
      return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size, "import: truncated header");
    }
  }
  if (h[h_version] != Q8NN_VTA_EXPORT_VERSION) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
                                 "import: format version %u (this build reads %u)", h[h_version], Q8NN_VTA_EXPORT_VERSION);
  }
  if (h[h_hw_ver] != Q8NN_VTA_HW_VER) {
    /* Spec §3.9: 0.0.1 streams have other memory_type / ALU field widths. */
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
                                 "import: ISA HW_VER %u.%u.%u (only 0.0.2)", h[h_hw_ver] >> 16,
                                 (h[h_hw_ver] >> 8) & 0xFF, h[h_hw_ver] & 0xFF);
  }
  struct q8nn_vta_hw_config c;
  q8nn_vta_config_default(&c);
  c.log_inp_width = h[h_log_inp_width];
  c.log_wgt_width = h[h_log_wgt_width];
  c.log_acc_width = h[h_log_acc_width];
  c.log_batch = h[h_log_batch];
  c.log_block = h[h_log_block];
  c.log_uop_buff_size = h[h_log_uop_buff_size];
  c.log_inp_buff_size = h[h_log_inp_buff_size];
  c.log_wgt_buff_size = h[h_log_wgt_buff_size];
  c.log_acc_buff_size = h[h_log_acc_buff_size];
  c.virtual_threads = h[h_virtual_threads];
  c.dram_bytes_per_cycle = h[h_dram_bytes_per_cycle];
  c.dram_latency_cycles = h[h_dram_latency_cycles];
  c.insn_overhead_cycles = h[h_insn_overhead_cycles];
  enum q8nn_status status = q8nn_vta_config_derive(&c, error, error_size);
  if (status != q8nn_status_success) return status;
  struct q8nn_vta_device* dev = NULL;
  status = q8nn_vta_device_create(&c, &dev);
  if (status != q8nn_status_success) return status;
  const size_t count = h[h_insn_count];
  if ((uint64_t) count * 16 > bytes_left(f)) {
    status = q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
                                   "import: truncated instructions (%zu declared)", count);
    goto fail;
  }
  program->insns = malloc((count == 0 ? 1 : count) * 2 * sizeof(uint64_t));
  if (program->insns == NULL) {
    status = q8nn_vta_format_error(q8nn_status_out_of_memory, error, error_size, "import: %zu instructions", count);
    goto fail;
  }
  for (size_t i = 0; i < 2 * count; i++) {
    if (!get_u64(f, &program->insns[i])) {
      status = q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size, "import: truncated instructions");
      goto fail;
    }
  }
  program->count = count;
  for (uint32_t i = 0; i < h[h_region_count]; i++) {
    uint32_t addr, size, flags;
    if (!get_u32(f, &addr) || !get_u32(f, &size) || !get_u32(f, &flags)) {
      status = q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size, "import: truncated region table");
      goto fail;
    }
    status = size <= bytes_left(f) ? q8nn_vta_dram_alloc_at(dev, addr, size) : q8nn_status_invalid_parameter;
    uint8_t* data = status == q8nn_status_success ? q8nn_vta_dram_ptr(dev, addr, size) : NULL;
    if (data == NULL || fread(data, 1, size, f) != size) {
      status = q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
                                     "import: region %u at 0x%x (%u bytes) is invalid or truncated", i, addr, size);
      goto fail;
    }
    if (flags & REGION_FLAG_UOPS) {
      program->uop_addr = addr;
      program->uop_bytes = size;
    }
  }
  *device_out = dev;
  return q8nn_status_success;
fail:
  free(program->insns);
  memset(program, 0, sizeof(*program));
  q8nn_vta_device_delete(dev);
  return status;
}

enum q8nn_status q8nn_vta_import_program_path(const char* path, struct q8nn_vta_device** device_out,
                                              struct q8nn_vta_program* program, char* error, size_t error_size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size, "import: cannot open %s", path);
  }
  const enum q8nn_status status = q8nn_vta_import_program(f, device_out, program, error, error_size);
  fclose(f);
  return status;
}
