/* q8nn-vta-run: runs an exported VTA program (.q8vta) on the q8nn model and prints the functional
   simulator's counters and the cycle estimate.

   usage: q8nn-vta-run [--bandwidth BYTES_PER_CYCLE] [--latency CYCLES] [--overhead CYCLES] program.q8vta
   The options override the cycle-model parameters stored in the file. Exit status 0 on success,
   1 when the program faults (the message names the instruction), 2 on bad usage or file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-export.h"

static void usage(void) {
  fprintf(stderr, "usage: q8nn-vta-run [--bandwidth N] [--latency N] [--overhead N] program.q8vta\n");
}

int main(int argc, char** argv) {
  const char* path = NULL;
  long bandwidth = -1, latency = -1, overhead = -1;
  for (int i = 1; i < argc; i++) {
    long* target = NULL;
    if (strcmp(argv[i], "--bandwidth") == 0) target = &bandwidth;
    else if (strcmp(argv[i], "--latency") == 0) target = &latency;
    else if (strcmp(argv[i], "--overhead") == 0) target = &overhead;
    else if (argv[i][0] == '-' || path != NULL) { usage(); return 2; }
    else path = argv[i];
    if (target != NULL) {
      char* end;
      if (++i == argc || (*target = strtol(argv[i], &end, 0)) < 0 || *end != '\0') { usage(); return 2; }
    }
  }
  if (path == NULL || bandwidth == 0) { usage(); return 2; }
  struct q8nn_vta_device* dev;
  struct q8nn_vta_program program;
  char error[512];
  if (q8nn_vta_import_program_path(path, &dev, &program, error, sizeof(error)) != q8nn_status_success) {
    fprintf(stderr, "q8nn-vta-run: %s\n", error);
    return 2;
  }
  if (bandwidth > 0) dev->config.dram_bytes_per_cycle = (uint32_t) bandwidth;
  if (latency >= 0) dev->config.dram_latency_cycles = (uint32_t) latency;
  if (overhead >= 0) dev->config.insn_overhead_cycles = (uint32_t) overhead;
  char name[64];
  q8nn_vta_config_name(&dev->config, name, sizeof(name));
  struct q8nn_vta_run_info info;
  const enum q8nn_status status = q8nn_vta_program_run(dev, &program, &info);
  int rc = 0;
  if (status != q8nn_status_success) {
    fprintf(stderr, "q8nn-vta-run: %s: %s\n", q8nn_status_string(status), q8nn_vta_device_last_error(dev));
    rc = 1;
  } else {
    const struct q8nn_vta_stats* s = &info.stats;
    printf("config %s, %zu instructions, DRAM %u B/cycle, latency %u cycles\n", name, program.count,
           dev->config.dram_bytes_per_cycle, dev->config.dram_latency_cycles);
    printf("{\n  \"inp_load_nbytes\": %llu,\n  \"wgt_load_nbytes\": %llu,\n  \"acc_load_nbytes\": %llu,\n"
           "  \"uop_load_nbytes\": %llu,\n  \"out_store_nbytes\": %llu,\n  \"gemm_counter\": %llu,\n"
           "  \"alu_counter\": %llu,\n  \"instructions\": %llu,\n  \"cycles\": %llu\n}\n",
           (unsigned long long) s->inp_load_nbytes, (unsigned long long) s->wgt_load_nbytes,
           (unsigned long long) s->acc_load_nbytes, (unsigned long long) s->uop_load_nbytes,
           (unsigned long long) s->out_store_nbytes, (unsigned long long) s->gemm_counter,
           (unsigned long long) s->alu_counter, (unsigned long long) s->instructions,
           (unsigned long long) s->cycles);
    printf("busy cycles: load %llu, compute %llu, store %llu; warnings 0x%x\n",
           (unsigned long long) info.busy_cycles[0], (unsigned long long) info.busy_cycles[1],
           (unsigned long long) info.busy_cycles[2], info.warnings);
  }
  q8nn_vta_program_release(dev, &program);
  q8nn_vta_device_delete(dev);
  return rc;
}
