/*
 * fuzz-vta-program: any byte string is a candidate .q8vta file (docs/vta-model.md). It goes
 * through the FILE* import (fmemopen); a file that imports is exported again and re-imported
 * (the round trip must reproduce the instructions), then replayed on the model as
 * tools/q8nn-vta-run does. Import must fail with invalid_parameter / unsupported_parameter and a
 * message, a run with success or backend_error; never a crash, a hang or an out-of-bounds access.
 *
 * The simulator runs every instruction once (no branches), so a program always terminates, but
 * one GEMM may ask for 2^14 * 2^14 * 2^13 micro-op executions. Programs whose decoded work is
 * above WORK_BUDGET are imported and checked but not run: that is legitimate work, not a hang.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen, open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-export.h"
#include "fuzz-util.h"

/* Element operations (MACs, ALU lanes, SRAM bytes moved) a replay may cost: ~0.1 s under ASan. */
#define WORK_BUDGET (UINT64_C(1) << 24)

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  q8nn_set_log_level(0);
  return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* What the simulator would do for this program, counted as in vta-sim.c's exec_* loops. */
static uint64_t program_work(const struct q8nn_vta_hw_config* c, const struct q8nn_vta_program* p) {
  uint32_t elem = c->inp_elem_bytes;
  if (c->wgt_elem_bytes > elem) elem = c->wgt_elem_bytes;
  if (c->acc_elem_bytes > elem) elem = c->acc_elem_bytes;
  uint64_t work = p->count;
  for (size_t i = 0; i < p->count; i++) {
    struct q8nn_vta_insn in;
    q8nn_vta_decode_insn(c, &p->insns[2 * i], &in);
    switch (in.opcode) {
      case q8nn_vta_op_load:
      case q8nn_vta_op_store: {
        const uint64_t rows = (uint64_t)in.y_pad_0 + in.y_size + in.y_pad_1;
        const uint64_t cols = (uint64_t)in.x_pad_0 + in.x_size + in.x_pad_1;
        work = sat_add(work, sat_mul(sat_mul(rows, cols), elem));
        break;
      }
      case q8nn_vta_op_gemm:
      case q8nn_vta_op_alu:
        if (in.uop_end > in.uop_bgn) {
          const uint64_t lanes = in.opcode == q8nn_vta_op_gemm
                                     ? (uint64_t)c->batch * c->block_in * c->block_out
                                     : c->acc_lanes;
          const uint64_t uops = (uint64_t)in.iter_out * in.iter_in * (in.uop_end - in.uop_bgn);
          work = sat_add(work, sat_mul(uops, lanes));
        }
        break;
    }
  }
  return work;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0; /* fmemopen needs a non-empty buffer */
  FILE* f = fmemopen((void*)data, size, "rb");
  if (f == NULL) return 0;
  struct q8nn_vta_device* dev = NULL;
  struct q8nn_vta_program program;
  char error[512] = "";
  enum q8nn_status status = q8nn_vta_import_program(f, &dev, &program, error, sizeof(error));
  fclose(f);
  if (status != q8nn_status_success) {
    FUZZ_CHECK(
        status == q8nn_status_invalid_parameter || status == q8nn_status_unsupported_parameter,
        "import returned %s (%s)", q8nn_status_string(status), error);
    FUZZ_CHECK(error[0] != '\0', "import failed without a message");
    return 0;
  }
  FUZZ_CHECK(dev != NULL && program.count * 16 <= size,
             "import made %zu instructions from %zu bytes", program.count, size);

  /* Round trip: export the imported program and import it again; same configuration and
     instructions. */
  char* text = NULL;
  size_t text_size = 0;
  FILE* out = open_memstream(&text, &text_size);
  FUZZ_CHECK(out != NULL, "open_memstream");
  status = q8nn_vta_export_program(out, dev, &program);
  fclose(out);
  FUZZ_CHECK(status == q8nn_status_success, "export of an imported program returned %s",
             q8nn_status_string(status));
  FILE* again = fmemopen(text, text_size, "rb");
  FUZZ_CHECK(again != NULL, "fmemopen");
  struct q8nn_vta_device* dev2 = NULL;
  struct q8nn_vta_program program2;
  status = q8nn_vta_import_program(again, &dev2, &program2, error, sizeof(error));
  fclose(again);
  FUZZ_CHECK(status == q8nn_status_success, "re-import of an exported program returned %s (%s)",
             q8nn_status_string(status), error);
  /* (uop_bytes may grow to whole pages: export writes regions page-sized.) */
  FUZZ_CHECK(program2.count == program.count && program2.uop_addr == program.uop_addr &&
                 dev2->region_count == dev->region_count &&
                 memcmp(program2.insns, program.insns, 16 * program.count) == 0,
             "round trip changed the program");
  q8nn_vta_program_release(dev2, &program2);
  q8nn_vta_device_delete(dev2);
  free(text);

  if (program_work(&dev->config, &program) <= WORK_BUDGET) {
    struct q8nn_vta_run_info info;
    status = q8nn_vta_program_run(dev, &program, &info);
    FUZZ_CHECK(status == q8nn_status_success || status == q8nn_status_backend_error,
               "run returned %s (%s)", q8nn_status_string(status), q8nn_vta_device_last_error(dev));
    if (status != q8nn_status_success) {
      FUZZ_CHECK(q8nn_vta_device_last_error(dev)[0] != '\0', "run failed without a message");
    } else {
      FUZZ_CHECK(info.stats.instructions == program.count, "ran %llu of %zu instructions",
                 (unsigned long long)info.stats.instructions, program.count);
    }
  }
  q8nn_vta_program_release(dev, &program);
  q8nn_vta_device_delete(dev);
  return 0;
}
