/*
 * Library initialization: CPU detection (cpuinfo, plus cpuid for what Debian's cpuinfo does not
 * report) and the per-family dispatch tables, filled from the kernel lists for the active ISA
 * mask. q8nn_set_isa_mask refills them so tests can force every path on one machine.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef Q8NN_NO_CPUINFO
#include <cpuinfo.h>
#endif
#if Q8NN_ARCH_X86
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif
#if Q8NN_ARCH_NEON
#include "arch/neon/neon-detect.h"
#endif
#if Q8NN_ARCH_RVV
#include "arch/rvv/rvv-detect.h"
#endif

#include "common.h"
#include "dispatch.h"

static pthread_once_t init_guard = PTHREAD_ONCE_INIT;
static pthread_mutex_t dispatch_lock = PTHREAD_MUTEX_INITIALIZER;
static enum q8nn_status init_status = q8nn_status_uninitialized;
static int initialized;
static uint32_t available_isa, isa_mask = Q8NN_ISA_ALL;
static int guard_enabled = 1;
static struct q8nn_dispatch dispatch, dispatch_u8;

#if Q8NN_ARCH_X86
static int x86_has_avxvnni(void) {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 1, eax, ebx, ecx, edx);
  return (eax >> 4) & 1;
}

/* AMX-INT8: the CPU has AMX-TILE and AMX-INT8 (CPUID.(7,0):EDX bits 24 and 25), the OS enables the
   tile state in XCR0 (bits 17 and 18), and Linux grants this process the tile data (the
   arch_prctl ARCH_REQ_XCOMP_PERM request for XFEATURE_XTILEDATA; without it the first tile
   instruction faults). The grant is for the whole process, every thread included. */
static int x86_has_amx_int8(void) {
#if defined(__linux__) && defined(__x86_64__)
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  if (((edx >> 24) & 3) != 3) return 0;
  __cpuid(1, eax, ebx, ecx, edx);
  if (((ecx >> 27) & 1) == 0) return 0; /* OSXSAVE: XGETBV may run */
  uint32_t xcr0_lo, xcr0_hi;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if (((xcr0_lo >> 17) & 3) != 3) return 0;
  enum { arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18 };
  return syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0;
#else
  return 0;
#endif
}
#endif

static uint32_t detect_isa(void) {
  uint32_t isa = 0;
#if Q8NN_ARCH_X86
  /* cpuinfo's AVX flags already include the OS (XSAVE) support check. */
  if (cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3()) {
    isa |= Q8NN_ISA_X86_AVX2;
    if (x86_has_avxvnni()) isa |= Q8NN_ISA_X86_AVXVNNI;
  }
  if (cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512dq() &&
      cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512vnni()) {
    isa |= Q8NN_ISA_X86_AVX512VNNI;
    if (x86_has_amx_int8()) isa |= Q8NN_ISA_X86_AMX;
    if (cpuinfo_has_x86_avx512vbmi()) isa |= Q8NN_ISA_X86_AVX512VBMI;
  }
#elif Q8NN_ARCH_NEON
  /* The kernel's hwcaps: Debian's cpuinfo (2022) reports the dot product but not i8mm. */
  isa |= q8nn_neon_detect_isa();
#ifndef Q8NN_NO_CPUINFO
  if (cpuinfo_has_arm_neon_dot()) isa |= Q8NN_ISA_ARM_NEON_DOT;
#endif
#elif Q8NN_ARCH_RVV
  isa |= q8nn_rvv_detect_isa();
#endif
  return isa;
}

static uint32_t parse_isa_mask(const char* text) {
  char* end = NULL;
  const unsigned long number = strtoul(text, &end, 0);
  if (end != text && *end == '\0') return (uint32_t) number;
  static const struct { const char* name; uint32_t bit; } names[] = {
      {"scalar", 0},
      {"avx2", Q8NN_ISA_X86_AVX2},
      {"avxvnni", Q8NN_ISA_X86_AVXVNNI},
      {"avx512vnni", Q8NN_ISA_X86_AVX512VNNI},
      {"amx", Q8NN_ISA_X86_AMX},
      {"avx512vbmi", Q8NN_ISA_X86_AVX512VBMI},
      {"neon", Q8NN_ISA_ARM_NEON},
      {"neondot", Q8NN_ISA_ARM_NEON_DOT},
      {"i8mm", Q8NN_ISA_ARM_NEON_I8MM},
      {"rvv", Q8NN_ISA_RISCV_V},
      {"all", Q8NN_ISA_ALL},
  };
  uint32_t mask = 0;
  const char* p = text;
  while (*p != '\0') {
    const size_t len = strcspn(p, ",");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
      if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) mask |= names[i].bit;
    }
    p += len;
    if (*p == ',') p++;
  }
  return mask;
}

static int isa_ok(uint32_t required, uint32_t active) { return (required & ~active) == 0; }

/* Lines whose conv kernels read and write uint8 activations (ukernel.h, input_flip / output_flip):
   every line but AMX's (its tile loads take the bytes as they are; uint8 operators run the AVX-512
   VNNI line there). */
static int takes_u8(uint32_t isa) { return (isa & Q8NN_ISA_X86_AMX) == 0; }

/* Fills the tables for one active-ISA set: per requantization kind (per add arithmetic), the first
   list line whose ISA bits are all active and which implements that kind; u8: only lines that
   take uint8 activations. */
static struct q8nn_dispatch make_dispatch(uint32_t active, int u8) {
  struct q8nn_dispatch d;
  memset(&d, 0, sizeof(d));
  for (size_t r = 0; r < Q8NN_REQUANT_KINDS; r++) {
    for (size_t i = 0; i < q8nn_gemm_list_size && d.gemm[r] == NULL; i++) {
      const struct q8nn_gemm_entry* e = &q8nn_gemm_list[i];
      if (e->fn[r] != NULL && isa_ok(e->isa, active) && (!u8 || takes_u8(e->isa))) d.gemm[r] = e;
    }
    for (size_t i = 0; i < q8nn_gemm_list_size && d.im2col_gemm[r] == NULL; i++) {
      const struct q8nn_gemm_entry* e = &q8nn_gemm_list[i];
      if (e->fn[r] != NULL && isa_ok(e->isa, active) && e->mr <= Q8NN_IM2COL_MAX_MR && (!u8 || takes_u8(e->isa))) {
        d.im2col_gemm[r] = e;
      }
    }
    for (size_t i = 0; i < q8nn_igemm_list_size && d.igemm[r] == NULL; i++) {
      const struct q8nn_igemm_entry* e = &q8nn_igemm_list[i];
      if (e->fn[r] != NULL && isa_ok(e->isa, active) && (!u8 || takes_u8(e->isa))) d.igemm[r] = e;
    }
    for (size_t i = 0; i < q8nn_dwconv_list_size; i++) {
      const struct q8nn_dwconv_entry* e = &q8nn_dwconv_list[i];
      if (e->fn[r] == NULL || !isa_ok(e->isa, active) || (u8 && !takes_u8(e->isa))) continue;
      if (e->taps == 9 && d.dwconv_9[r] == NULL) d.dwconv_9[r] = e;
      if (e->taps == 25 && d.dwconv_25[r] == NULL) d.dwconv_25[r] = e;
      if (e->taps == 0 && d.dwconv_any[r] == NULL) d.dwconv_any[r] = e;
    }
  }
  for (size_t a = 0; a < Q8NN_ADD_ARITHMETICS; a++) {
    for (size_t i = 0; i < q8nn_vadd_list_size && d.vadd[a] == NULL; i++) {
      const struct q8nn_vadd_entry* e = &q8nn_vadd_list[i];
      if (e->arithmetic == (enum q8nn_add_arithmetic) a && isa_ok(e->isa, active)) d.vadd[a] = e;
    }
  }
  for (size_t i = 0; i < q8nn_lut_list_size && d.lut == NULL; i++) {
    if (isa_ok(q8nn_lut_list[i].isa, active)) d.lut = &q8nn_lut_list[i];
  }
  return d;
}

static void fill_dispatch(uint32_t active) {
  dispatch = make_dispatch(active, 0);
  dispatch_u8 = make_dispatch(active, 1);
  dispatch.guard = dispatch_u8.guard = guard_enabled;
}

static void initialize_once(void) {
#ifndef Q8NN_NO_CPUINFO
  if (!cpuinfo_initialize()) {
    init_status = q8nn_status_unsupported_hardware;
    return;
  }
#endif
  available_isa = detect_isa();
  const char* env = getenv("Q8NN_ISA_MASK");
  if (env != NULL && env[0] != '\0') isa_mask = parse_isa_mask(env);
  const char* guard = getenv("Q8NN_GUARD");
  if (guard != NULL && strcmp(guard, "0") == 0) guard_enabled = 0;
  fill_dispatch(available_isa & isa_mask);
  initialized = 1;
  init_status = q8nn_status_success;
}

enum q8nn_status q8nn_initialize(void) {
  pthread_once(&init_guard, initialize_once);
  if (init_status != q8nn_status_success) {
    return Q8NN_ERROR(init_status, "CPU detection failed");
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_deinitialize(void) {
  /* cpuinfo keeps its tables for the process lifetime; nothing else is owned here. */
  return initialized ? q8nn_status_success : q8nn_status_uninitialized;
}

int q8nn_is_initialized(void) { return initialized; }

enum q8nn_status q8nn_set_isa_mask(uint32_t mask) {
  if (!initialized) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  pthread_mutex_lock(&dispatch_lock);
  isa_mask = mask;
  fill_dispatch(available_isa & isa_mask);
  pthread_mutex_unlock(&dispatch_lock);
  return q8nn_status_success;
}

void q8nn_set_guard_enabled(int enabled) {
  pthread_mutex_lock(&dispatch_lock);
  guard_enabled = enabled != 0;
  dispatch.guard = dispatch_u8.guard = guard_enabled;
  pthread_mutex_unlock(&dispatch_lock);
}

uint32_t q8nn_get_available_isa(void) { return initialized ? available_isa : 0; }
uint32_t q8nn_get_active_isa(void) {
  if (!initialized) return 0;
  pthread_mutex_lock(&dispatch_lock); /* q8nn_set_isa_mask may run on another thread */
  const uint32_t active = available_isa & isa_mask;
  pthread_mutex_unlock(&dispatch_lock);
  return active;
}

struct q8nn_dispatch q8nn_get_dispatch(int u8) {
  pthread_mutex_lock(&dispatch_lock);
  const struct q8nn_dispatch d = u8 ? dispatch_u8 : dispatch;
  pthread_mutex_unlock(&dispatch_lock);
  return d;
}

const char* q8nn_version_string(void) { return "0.1.0"; }
