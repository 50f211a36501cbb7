/* The VTA device model: simulated DRAM with physical addresses, the on-chip scratchpads, the
   load / compute / store modules with their four dependency-token queues, a deterministic
   scheduler, the functional simulator's counters and the cycle estimate (docs/vta-model.md). */
#ifndef Q8NN_VTA_SIM_H
#define Q8NN_VTA_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "accel/vta/vta-config.h"
#include "accel/vta/vta-isa.h"

#define Q8NN_VTA_PAGE_BYTES 4096u

/* Non-portability findings of a run (spec §2.2, §5.1, §5.4): the result is the functional
   simulator's, but stock hardware would compute something else. */
enum q8nn_vta_warning {
  q8nn_vta_warn_mul = 1u << 0,           /* ALU MUL: fsim/OpenCL only */
  q8nn_vta_warn_shift_range = 1u << 1,   /* SHR amount outside the portable range */
  q8nn_vta_warn_pad_wgt_uop = 1u << 2,   /* padded WGT/UOP load, or 2D UOP load */
  q8nn_vta_warn_stale_out = 1u << 3,     /* STORE of an ACC row last written by LOAD or GEMM reset */
  q8nn_vta_warn_many_tokens = 1u << 4,   /* more than 8 tokens outstanding in a queue */
};

struct q8nn_vta_run_info {
  struct q8nn_vta_stats stats;  /* counters of this run; cycles = completion time of FINISH */
  uint64_t busy_cycles[3];      /* load, compute, store: cycles each module spent executing */
  uint32_t warnings;            /* enum q8nn_vta_warning bits */
  uint32_t max_tokens;          /* largest count seen in any token queue */
};

struct q8nn_vta_dram_region {
  uint32_t addr; /* physical, page aligned, nonzero */
  uint32_t size; /* bytes, multiple of the page size */
  uint8_t* data;
};

struct q8nn_vta_device {
  struct q8nn_vta_hw_config config;
  /* DRAM: regions sorted by address. */
  struct q8nn_vta_dram_region* regions;
  size_t region_count, region_capacity;
  /* Scratchpads. Micro-ops are kept decoded next to their raw words so GEMM/ALU never decode. */
  uint32_t* uop_word;
  uint32_t* uop_dst;
  uint32_t* uop_src;
  uint32_t* uop_wgt;
  int8_t* inp;
  int8_t* wgt;
  int32_t* acc;
  uint8_t* acc_out_valid; /* per ACC row: last writer was GEMM accumulate or ALU (hardware OUT is current) */
  struct q8nn_vta_stats stats; /* accumulated over runs */
  char message[512];           /* last error */
};

/* Creates a device for a derived configuration (q8nn_vta_config_derive / _from_public). */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_device_create(const struct q8nn_vta_hw_config* config,
                                                      struct q8nn_vta_device** device_out);
Q8NN_INTERNAL void q8nn_vta_device_delete(struct q8nn_vta_device* device);
/* Message of the last failing call on this device ("" if none). */
Q8NN_INTERNAL const char* q8nn_vta_device_last_error(const struct q8nn_vta_device* device);
/* Formats the device message, logs it, returns status. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_device_fail(struct q8nn_vta_device* device, enum q8nn_status status,
                                                    const char* format, ...) Q8NN_PRINTF(3, 4);

/* DRAM. Regions are whole pages at nonzero physical addresses below 2^32, zero-filled. Every
   address a region gets is aligned for every element size (<= 4 KiB). */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dram_alloc(struct q8nn_vta_device* device, size_t size,
                                                   uint32_t* addr_out);
/* Allocates exactly at addr (page aligned), e.g. to replay an exported program. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dram_alloc_at(struct q8nn_vta_device* device, uint32_t addr,
                                                      size_t size);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dram_free(struct q8nn_vta_device* device, uint32_t addr);
/* Host copies; the byte range must lie inside one region. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dram_write(struct q8nn_vta_device* device, uint64_t addr,
                                                   const void* data, size_t size);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dram_read(struct q8nn_vta_device* device, uint64_t addr,
                                                  void* data, size_t size);
/* Host pointer to [addr, addr+size) inside one region, NULL otherwise; valid until that region
   is freed. */
Q8NN_INTERNAL uint8_t* q8nn_vta_dram_ptr(struct q8nn_vta_device* device, uint64_t addr, uint64_t size);

/* Runs `count` encoded instructions (two little-endian-order words each). Faulty programs
   (malformed instructions, out-of-range SRAM/DRAM, deadlock, missing FINISH, instructions not
   ordered before FINISH, leftover tokens) return backend_error with a message naming the
   instruction; the SRAM may then hold partial results. info may be NULL. Counters are added to
   the device's accumulated stats on success. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_device_run(struct q8nn_vta_device* device, const uint64_t* insns,
                                                   size_t count, struct q8nn_vta_run_info* info);

Q8NN_INTERNAL void q8nn_vta_device_get_stats(const struct q8nn_vta_device* device, struct q8nn_vta_stats* stats);
Q8NN_INTERNAL void q8nn_vta_device_reset_stats(struct q8nn_vta_device* device);

#endif
