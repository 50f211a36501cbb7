/* Device life cycle and the simulated DRAM. Like the functional simulator's page allocator,
   buffers are whole 4 KiB pages and page 0 is never handed out, so physical address 0 stays
   invalid; unlike it, every access is bounds-checked over its whole byte range. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-sim.h"

enum q8nn_status q8nn_vta_device_fail(struct q8nn_vta_device* device, enum q8nn_status status,
                                      const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(device->message, sizeof(device->message), format, args);
  va_end(args);
  return q8nn_log_error(status, "vta", "%s", device->message);
}

const char* q8nn_vta_device_last_error(const struct q8nn_vta_device* device) { return device->message; }

enum q8nn_status q8nn_vta_device_create(const struct q8nn_vta_hw_config* config,
                                        struct q8nn_vta_device** device_out) {
  if (config == NULL || device_out == NULL || config->acc_depth == 0) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "vta device: NULL or underived config");
  }
  struct q8nn_vta_device* d = calloc(1, sizeof(*d));
  if (d == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "vta device");
  d->config = *config;
  d->uop_word = calloc(config->uop_depth, sizeof(uint32_t));
  d->uop_dst = calloc(config->uop_depth, sizeof(uint32_t));
  d->uop_src = calloc(config->uop_depth, sizeof(uint32_t));
  d->uop_wgt = calloc(config->uop_depth, sizeof(uint32_t));
  d->inp = calloc(config->inp_depth, config->inp_elem_bytes);
  d->wgt = calloc(config->wgt_depth, config->wgt_elem_bytes);
  d->acc = calloc(config->acc_depth, config->acc_elem_bytes);
  d->acc_out_valid = calloc(config->acc_depth, 1);
  if (d->uop_word == NULL || d->uop_dst == NULL || d->uop_src == NULL || d->uop_wgt == NULL ||
      d->inp == NULL || d->wgt == NULL || d->acc == NULL || d->acc_out_valid == NULL) {
    q8nn_vta_device_delete(d);
    return Q8NN_ERROR(q8nn_status_out_of_memory, "vta device scratchpads");
  }
  *device_out = d;
  return q8nn_status_success;
}

void q8nn_vta_device_delete(struct q8nn_vta_device* d) {
  if (d == NULL) return;
  for (size_t i = 0; i < d->region_count; i++) free(d->regions[i].data);
  free(d->regions);
  free(d->uop_word);
  free(d->uop_dst);
  free(d->uop_src);
  free(d->uop_wgt);
  free(d->inp);
  free(d->wgt);
  free(d->acc);
  free(d->acc_out_valid);
  free(d);
}

void q8nn_vta_device_get_stats(const struct q8nn_vta_device* d, struct q8nn_vta_stats* stats) {
  *stats = d->stats;
}

void q8nn_vta_device_reset_stats(struct q8nn_vta_device* d) { memset(&d->stats, 0, sizeof(d->stats)); }

/* Inserts a region at index `at` of the sorted array. */
static enum q8nn_status insert_region(struct q8nn_vta_device* d, size_t at, uint32_t addr, uint32_t size) {
  if (d->region_count == d->region_capacity) {
    const size_t capacity = d->region_capacity == 0 ? 16 : 2 * d->region_capacity;
    struct q8nn_vta_dram_region* regions = realloc(d->regions, capacity * sizeof(*regions));
    if (regions == NULL) return q8nn_vta_device_fail(d, q8nn_status_out_of_memory, "DRAM region table");
    d->regions = regions;
    d->region_capacity = capacity;
  }
  uint8_t* data = calloc(size, 1);
  if (data == NULL) {
    return q8nn_vta_device_fail(d, q8nn_status_out_of_memory, "DRAM region of %u bytes", size);
  }
  memmove(&d->regions[at + 1], &d->regions[at], (d->region_count - at) * sizeof(*d->regions));
  d->regions[at] = (struct q8nn_vta_dram_region){.addr = addr, .size = size, .data = data};
  d->region_count++;
  return q8nn_status_success;
}

/* Physical addresses stay below 2^32 (dram_base is an element index into a 32-bit space). */
#define DRAM_LIMIT (UINT64_C(1) << 32)

enum q8nn_status q8nn_vta_dram_alloc(struct q8nn_vta_device* d, size_t size, uint32_t* addr_out) {
  if (size == 0 || size > DRAM_LIMIT / 2) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter, "DRAM allocation of %zu bytes", size);
  }
  const uint64_t bytes = q8nn_round_up(size, Q8NN_VTA_PAGE_BYTES);
  /* First fit between existing regions, so freed space is reused. */
  uint64_t candidate = Q8NN_VTA_PAGE_BYTES;
  size_t at = 0;
  for (; at < d->region_count; at++) {
    if (candidate + bytes <= d->regions[at].addr) break;
    candidate = (uint64_t) d->regions[at].addr + d->regions[at].size;
  }
  if (candidate + bytes > DRAM_LIMIT) {
    return q8nn_vta_device_fail(d, q8nn_status_out_of_memory, "DRAM: no %llu-byte hole below 4 GiB",
                                (unsigned long long) bytes);
  }
  enum q8nn_status status = insert_region(d, at, (uint32_t) candidate, (uint32_t) bytes);
  if (status == q8nn_status_success) *addr_out = (uint32_t) candidate;
  return status;
}

enum q8nn_status q8nn_vta_dram_alloc_at(struct q8nn_vta_device* d, uint32_t addr, size_t size) {
  const uint64_t bytes = q8nn_round_up(size, Q8NN_VTA_PAGE_BYTES);
  if (size == 0 || addr == 0 || addr % Q8NN_VTA_PAGE_BYTES != 0 || addr + bytes > DRAM_LIMIT) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter,
                                "DRAM region at 0x%x of %zu bytes is not page aligned or out of range",
                                addr, size);
  }
  size_t at = 0;
  while (at < d->region_count && d->regions[at].addr < addr) at++;
  const bool overlaps_prev = at > 0 && (uint64_t) d->regions[at - 1].addr + d->regions[at - 1].size > addr;
  const bool overlaps_next = at < d->region_count && addr + bytes > d->regions[at].addr;
  if (overlaps_prev || overlaps_next) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter,
                                "DRAM region at 0x%x of %zu bytes overlaps an existing region", addr, size);
  }
  return insert_region(d, at, addr, (uint32_t) bytes);
}

static struct q8nn_vta_dram_region* find_region(struct q8nn_vta_device* d, uint64_t addr) {
  size_t lo = 0, hi = d->region_count;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (d->regions[mid].addr <= addr) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return NULL;
  struct q8nn_vta_dram_region* r = &d->regions[lo - 1];
  return addr < (uint64_t) r->addr + r->size ? r : NULL;
}

enum q8nn_status q8nn_vta_dram_free(struct q8nn_vta_device* d, uint32_t addr) {
  struct q8nn_vta_dram_region* r = find_region(d, addr);
  if (r == NULL || r->addr != addr) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter, "DRAM free of 0x%x: not a region", addr);
  }
  free(r->data);
  const size_t at = (size_t) (r - d->regions);
  memmove(r, r + 1, (d->region_count - at - 1) * sizeof(*r));
  d->region_count--;
  return q8nn_status_success;
}

uint8_t* q8nn_vta_dram_ptr(struct q8nn_vta_device* d, uint64_t addr, uint64_t size) {
  struct q8nn_vta_dram_region* r = find_region(d, addr);
  if (r == NULL || addr + size > (uint64_t) r->addr + r->size) return NULL;
  return r->data + (addr - r->addr);
}

enum q8nn_status q8nn_vta_dram_write(struct q8nn_vta_device* d, uint64_t addr, const void* data, size_t size) {
  uint8_t* p = q8nn_vta_dram_ptr(d, addr, size);
  if (p == NULL) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter,
                                "DRAM write of %zu bytes at 0x%llx outside any region", size,
                                (unsigned long long) addr);
  }
  if (size != 0) memcpy(p, data, size);
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_dram_read(struct q8nn_vta_device* d, uint64_t addr, void* data, size_t size) {
  const uint8_t* p = q8nn_vta_dram_ptr(d, addr, size);
  if (p == NULL) {
    return q8nn_vta_device_fail(d, q8nn_status_invalid_parameter,
                                "DRAM read of %zu bytes at 0x%llx outside any region", size,
                                (unsigned long long) addr);
  }
  if (size != 0) memcpy(data, p, size);
  return q8nn_status_success;
}
