/* q8nn-run: runs a whole int8 .tflite model with q8nn-model and prints its output.

   usage: q8nn-run MODEL.tflite (--input FILE | --input-uint8 FILE | --zero-input)
                   [--threads N] [--backend cpu|vta] [--numerics tflite|fp32] [--repeat N] [--top K]
                   [--profile] [--json] [--vta-requant exact|16bit|exact-limbs]

   --numerics fp32 loads with q8nn_model_numerics_xnnpack_fp32 (XNNPACK numerics, not TFLite-exact);
   the default, tflite, is bit-exact with TFLite's reference kernels.
   --input copies the file's bytes into the int8 input tensor; --input-uint8 subtracts 128 from
   each byte first (uint8 images for an int8 model); --zero-input runs on all-zero bytes. The file
   must have exactly the input tensor's size. Prints the output tensor (int8 values, dequantized
   scores, top-k), the median time per run, and with --profile a per-operator table. With
   --backend vta: the share of operators and of MACs placed on VTA, the VTA model's cycles, and the
   largest distance of the output from the same model run on the CPU alone, and per run its GEMM
   and ALU micro-ops, DRAM bytes and cycle bound (the sum over its operators of max(GEMM
   micro-ops, 2 cycles per ALU micro-op, DRAM bytes / 8), the cost model of docs/vta-model.md);
   --vta-requant picks q8nn_vta_config.requantization (default exact). --json prints
   one JSON object on stdout instead. Errors go to stderr; exit status 1 on a model or run error,
   2 on bad usage or input. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthreadpool.h>
#include <q8nn-model.h>
#include <q8nn.h>

static void usage(void) {
  fprintf(stderr,
          "usage: q8nn-run MODEL.tflite (--input FILE | --input-uint8 FILE | --zero-input) [--threads N]\n"
          "                [--backend cpu|vta] [--numerics tflite|fp32] [--repeat N] [--top K] [--profile] [--json]\n"
          "                [--vta-requant exact|16bit|exact-limbs]\n");
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*) a, y = *(const uint64_t*) b;
  return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t* v, size_t n) {
  qsort(v, n, sizeof(uint64_t), compare_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long parse_count(const char* s, long min, long max) {
  char* end;
  const long v = strtol(s, &end, 10);
  return (*s == '\0' || *end != '\0' || v < min || v > max) ? -1 : v;
}

static void print_shape(FILE* f, const size_t* dims, size_t n, int json) {
  fputc('[', f);
  for (size_t i = 0; i < n; i++) fprintf(f, i ? (json ? ", %zu" : "x%zu") : "%zu", dims[i]);
  fputc(']', f);
}

/* One run's VTA work from the operators' own counters: GEMM and ALU micro-ops, DRAM bytes, and
   the cycle bound, the sum over operators of max(GEMM micro-ops, 2 cycles per ALU micro-op,
   DRAM bytes / 8 per cycle). */
struct vta_work {
  uint64_t gemm, alu, dram_bytes;
  double bound;
};
static struct vta_work vta_work_of(q8nn_model_t model, size_t num_ops) {
  struct vta_work w = {0, 0, 0, 0.0};
  for (size_t k = 0; k < num_ops; k++) {
    struct q8nn_model_operator_info oi;
    if (q8nn_model_get_operator_info(model, k, &oi) != q8nn_status_success) continue;
    const struct q8nn_vta_stats* s = &oi.backend_stats;
    const uint64_t bytes =
        s->inp_load_nbytes + s->wgt_load_nbytes + s->acc_load_nbytes + s->uop_load_nbytes + s->out_store_nbytes;
    const double gemm = (double) s->gemm_counter, alu = 2.0 * (double) s->alu_counter, dram = (double) bytes / 8.0;
    double bound = gemm > alu ? gemm : alu;
    if (dram > bound) bound = dram;
    w.gemm += s->gemm_counter, w.alu += s->alu_counter, w.dram_bytes += bytes, w.bound += bound;
  }
  return w;
}

static void json_string(const char* s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char) *s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

int main(int argc, char** argv) {
  const char* model_path = NULL;
  const char* input_path = NULL;
  int input_uint8 = 0, zero_input = 0, profile = 0, json = 0;
  long threads = 1, repeat = 1, top = 5;
  const char* backend_name = "cpu";
  const char* numerics_name = "tflite";
  struct q8nn_vta_config vta_config;
  memset(&vta_config, 0, sizeof(vta_config));
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const int has_value = i + 1 < argc;
    if (strcmp(a, "--input") == 0 || strcmp(a, "--input-uint8") == 0) {
      if (!has_value || input_path != NULL || zero_input) { usage(); return 2; }
      input_uint8 = strcmp(a, "--input-uint8") == 0;
      input_path = argv[++i];
    } else if (strcmp(a, "--zero-input") == 0) {
      if (input_path != NULL) { usage(); return 2; }
      zero_input = 1;
    } else if (strcmp(a, "--threads") == 0 && has_value) {
      if ((threads = parse_count(argv[++i], 1, 1024)) < 0) { usage(); return 2; }
    } else if (strcmp(a, "--repeat") == 0 && has_value) {
      if ((repeat = parse_count(argv[++i], 1, 1000000)) < 0) { usage(); return 2; }
    } else if (strcmp(a, "--top") == 0 && has_value) {
      if ((top = parse_count(argv[++i], 0, 1000000)) < 0) { usage(); return 2; }
    } else if (strcmp(a, "--backend") == 0 && has_value) {
      backend_name = argv[++i];
      if (strcmp(backend_name, "cpu") != 0 && strcmp(backend_name, "vta") != 0) {
        fprintf(stderr, "q8nn-run: unknown backend '%s' (cpu or vta)\n", backend_name);
        return 2;
      }
    } else if (strcmp(a, "--numerics") == 0 && has_value) {
      numerics_name = argv[++i];
      if (strcmp(numerics_name, "tflite") != 0 && strcmp(numerics_name, "fp32") != 0) {
        fprintf(stderr, "q8nn-run: unknown numerics '%s' (tflite, or fp32: XNNPACK numerics, not TFLite-exact)\n",
                numerics_name);
        return 2;
      }
    } else if (strcmp(a, "--vta-requant") == 0 && has_value) {
      const char* v = argv[++i];
      if (strcmp(v, "exact") == 0) vta_config.requantization = q8nn_vta_requant_exact;
      else if (strcmp(v, "16bit") == 0) vta_config.requantization = q8nn_vta_requant_16bit;
      else if (strcmp(v, "exact-limbs") == 0) vta_config.requantization = q8nn_vta_requant_exact_limbs;
      else {
        fprintf(stderr, "q8nn-run: unknown VTA requantization '%s' (exact, 16bit or exact-limbs)\n", v);
        return 2;
      }
    } else if (strcmp(a, "--profile") == 0) {
      profile = 1;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (a[0] == '-' || model_path != NULL) {
      usage();
      return 2;
    } else {
      model_path = a;
    }
  }
  if (model_path == NULL) { usage(); return 2; }
  if (input_path == NULL && !zero_input) {
    fprintf(stderr, "q8nn-run: no input: give --input FILE, --input-uint8 FILE or --zero-input\n");
    return 2;
  }
  enum q8nn_status status = q8nn_initialize();
  if (status != q8nn_status_success) {
    fprintf(stderr, "q8nn-run: q8nn_initialize: %s\n", q8nn_status_string(status));
    return 1;
  }
  q8nn_backend_t backend = NULL;
  if (strcmp(backend_name, "vta") == 0 && (status = q8nn_create_vta_backend(&vta_config, &backend)) != q8nn_status_success) {
    fprintf(stderr, "q8nn-run: cannot create the VTA backend: %s\n", q8nn_status_string(status));
    return 1;
  }
  const struct q8nn_model_options options = {
      .backend = backend, .profile = profile != 0,
      .numerics = strcmp(numerics_name, "fp32") == 0 ? q8nn_model_numerics_xnnpack_fp32 : q8nn_model_numerics_tflite};
  q8nn_model_t model = NULL;
  char error[512];
  status = q8nn_model_load_file(model_path, &options, &model, error, sizeof(error));
  if (status != q8nn_status_success) {
    fprintf(stderr, "q8nn-run: %s: %s (%s)\n", model_path, error, q8nn_status_string(status));
    q8nn_delete_backend(backend);
    return 1;
  }
  int rc = 0;
  pthreadpool_t pool = NULL;
  uint64_t* times = NULL;
  uint64_t* op_times = NULL;
  struct q8nn_model_tensor_info in_info, out_info;
  q8nn_model_input_info(model, 0, &in_info);
  q8nn_model_output_info(model, 0, &out_info);
  if (q8nn_model_num_inputs(model) != 1 || in_info.type != q8nn_model_type_int8) {
    fprintf(stderr, "q8nn-run: the model must have one int8 input (it has %zu inputs)\n", q8nn_model_num_inputs(model));
    rc = 1;
    goto cleanup;
  }
  int8_t* input = (int8_t*) q8nn_model_input_data(model, 0);
  if (zero_input) {
    memset(input, 0, in_info.num_bytes);
  } else {
    FILE* f = fopen(input_path, "rb");
    if (f == NULL) {
      fprintf(stderr, "q8nn-run: cannot open input %s (expected %zu bytes for the ", input_path, in_info.num_bytes);
      print_shape(stderr, in_info.dims, in_info.num_dims, 0);
      fprintf(stderr, " int8 input)\n");
      rc = 2;
      goto cleanup;
    }
    const size_t got = fread(input, 1, in_info.num_bytes, f);
    const int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != in_info.num_bytes || extra) {
      fprintf(stderr, "q8nn-run: input %s has %s%zu bytes, expected %zu (the ", input_path, extra ? "more than " : "",
              got, in_info.num_bytes);
      print_shape(stderr, in_info.dims, in_info.num_dims, 0);
      fprintf(stderr, " %s input%s)\n", "int8", input_uint8 ? ", given as uint8" : "");
      rc = 2;
      goto cleanup;
    }
    if (input_uint8) {
      for (size_t i = 0; i < in_info.num_bytes; i++) input[i] = (int8_t) ((int) (uint8_t) input[i] - 128);
    }
  }
  if (threads > 1 && (pool = pthreadpool_create((size_t) threads)) == NULL) {
    fprintf(stderr, "q8nn-run: cannot create %ld threads\n", threads);
    rc = 1;
    goto cleanup;
  }
  const size_t num_ops = q8nn_model_num_operators(model);
  times = (uint64_t*) malloc((size_t) repeat * sizeof(uint64_t));
  op_times = (uint64_t*) malloc((size_t) repeat * (num_ops + 1) * sizeof(uint64_t));
  if (times == NULL || op_times == NULL) {
    fprintf(stderr, "q8nn-run: out of memory\n");
    rc = 1;
    goto cleanup;
  }
  /* The input was read straight into its arena tensor: no operator writes a graph input. */
  for (long r = 0; r < repeat; r++) {
    const uint64_t start = now_ns();
    status = q8nn_model_run(model, pool);
    times[r] = now_ns() - start;
    if (status != q8nn_status_success) {
      fprintf(stderr, "q8nn-run: run failed: %s\n", q8nn_status_string(status));
      rc = 1;
      goto cleanup;
    }
    for (size_t k = 0; k < num_ops; k++) {
      struct q8nn_model_operator_info oi;
      q8nn_model_get_operator_info(model, k, &oi);
      op_times[k * (size_t) repeat + (size_t) r] = oi.last_run_ns;
    }
  }
  const int8_t* output = (const int8_t*) q8nn_model_output_data(model, 0);
  const size_t n = out_info.type == q8nn_model_type_int8 ? out_info.num_bytes : 0;
  const uint64_t median_ns = median(times, (size_t) repeat);
  size_t on_backend = 0;
  uint64_t total_macs = 0, backend_macs = 0;
  for (size_t k = 0; k < num_ops; k++) {
    struct q8nn_model_operator_info oi;
    q8nn_model_get_operator_info(model, k, &oi);
    on_backend += strcmp(oi.placement, "cpu") != 0;
    backend_macs += strcmp(oi.placement, "cpu") != 0 ? oi.macs : 0;
    total_macs += oi.macs;
  }
  /* With a backend: the same model on the CPU alone, on the same input; the largest distance of
     the final output from it (int8 steps). */
  int max_distance = 0;
  if (backend != NULL) {
    const struct q8nn_model_options cpu_options = {.numerics = options.numerics};
    q8nn_model_t cpu = NULL;
    status = q8nn_model_load_file(model_path, &cpu_options, &cpu, error, sizeof(error));
    if (status == q8nn_status_success) {
      memcpy(q8nn_model_input_data(cpu, 0), input, in_info.num_bytes);
      status = q8nn_model_run(cpu, pool);
    }
    if (status != q8nn_status_success) {
      fprintf(stderr, "q8nn-run: the CPU run for comparison failed: %s\n", q8nn_status_string(status));
      q8nn_model_delete(cpu);
      rc = 1;
      goto cleanup;
    }
    const int8_t* cpu_output = (const int8_t*) q8nn_model_output_data(cpu, 0);
    for (size_t i = 0; i < n; i++) {
      const int d = abs((int) output[i] - (int) cpu_output[i]);
      if (d > max_distance) max_distance = d;
    }
    q8nn_model_delete(cpu);
  }
  const double op_share = num_ops != 0 ? 100.0 * (double) on_backend / (double) num_ops : 0.0;
  const double mac_share = total_macs != 0 ? 100.0 * (double) backend_macs / (double) total_macs : 0.0;
  /* top-k by value, ties by index */
  size_t k_top = (size_t) top < n ? (size_t) top : n;
  size_t* order = (size_t*) malloc((n + 1) * sizeof(size_t));
  if (order == NULL) { rc = 1; goto cleanup; }
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = 0; i < k_top; i++) {
    size_t best = i;
    for (size_t j = i + 1; j < n; j++) {
      if (output[order[j]] > output[order[best]] || (output[order[j]] == output[order[best]] && order[j] < order[best])) best = j;
    }
    const size_t t = order[i];
    order[i] = order[best];
    order[best] = t;
  }
  if (json) {
    printf("{\"model\": ");
    json_string(model_path);
    printf(", \"backend\": \"%s\", \"numerics\": \"%s\", \"threads\": %ld, \"repeat\": %ld, \"isa\": \"0x%x\", \"arena_bytes\": %zu,\n",
           backend_name, numerics_name, threads, repeat, (unsigned) q8nn_get_active_isa(), q8nn_model_arena_size(model));
    printf(" \"output_shape\": ");
    print_shape(stdout, out_info.dims, out_info.num_dims, 1);
    printf(", \"output_scale\": %.9g, \"output_zero_point\": %d,\n \"output\": [", (double) out_info.scale,
           (int) out_info.zero_point);
    for (size_t i = 0; i < n; i++) printf(i ? ", %d" : "%d", output[i]);
    printf("],\n \"top\": [");
    for (size_t i = 0; i < k_top; i++) printf(i ? ", %zu" : "%zu", order[i]);
    printf("],\n \"time_ms_median\": %.6f, \"times_ms\": [", (double) median_ns / 1e6);
    for (long r = 0; r < repeat; r++) printf(r ? ", %.6f" : "%.6f", (double) times[r] / 1e6);
    printf("],\n \"macs\": %" PRIu64 ", \"operators_on_backend\": %zu,", total_macs, on_backend);
    if (backend != NULL) {
      printf(" \"operator_share_pct\": %.2f, \"macs_on_backend\": %" PRIu64 ", \"mac_share_pct\": %.2f,"
             " \"max_distance_from_cpu\": %d,",
             op_share, backend_macs, mac_share, max_distance);
    }
    struct q8nn_vta_stats vs;
    if (backend != NULL && q8nn_vta_get_stats(backend, &vs) == q8nn_status_success) {
      const struct vta_work w = vta_work_of(model, num_ops);
      printf(" \"vta_cycles_per_run\": %" PRIu64 ", \"vta_instructions_per_run\": %" PRIu64
             ", \"vta_gemm_uops_per_run\": %" PRIu64 ", \"vta_alu_uops_per_run\": %" PRIu64
             ", \"vta_dram_bytes_per_run\": %" PRIu64 ", \"vta_cycle_bound_per_run\": %.0f,",
             vs.cycles / (uint64_t) repeat, vs.instructions / (uint64_t) repeat, w.gemm, w.alu, w.dram_bytes, w.bound);
    }
    printf(" \"operators\": [");
    for (size_t k = 0; k < num_ops; k++) {
      struct q8nn_model_operator_info oi;
      q8nn_model_get_operator_info(model, k, &oi);
      printf("%s\n  {\"index\": %zu, \"op\": \"%s\", \"placement\": \"%s\", \"shape\": ", k ? "," : "", k, oi.type,
             oi.placement);
      print_shape(stdout, oi.output_dims, oi.num_output_dims, 1);
      printf(", \"macs\": %" PRIu64, oi.macs);
      if (oi.fused_into != SIZE_MAX) printf(", \"fused_into\": %zu", oi.fused_into);
      if (profile) printf(", \"time_ms\": %.6f", (double) median(op_times + k * (size_t) repeat, (size_t) repeat) / 1e6);
      printf("}");
    }
    printf("]}\n");
  } else {
    if (backend != NULL) {
      printf("model %s: %zu operators (%zu on the %s backend), arena %zu bytes, %.2f MMAC\n", model_path, num_ops,
             on_backend, backend_name, q8nn_model_arena_size(model), (double) total_macs / 1e6);
    } else {
      printf("model %s: %zu operators (all on the CPU), arena %zu bytes, %.2f MMAC\n", model_path, num_ops,
             q8nn_model_arena_size(model), (double) total_macs / 1e6);
    }
    printf("output %s ", out_info.name);
    print_shape(stdout, out_info.dims, out_info.num_dims, 0);
    printf(" int8 (scale %g, zero point %d): [", (double) out_info.scale, (int) out_info.zero_point);
    for (size_t i = 0; i < n && i < 64; i++) printf(i ? ", %d" : "%d", output[i]);
    printf(n > 64 ? ", ...]\n" : "]\n");
    for (size_t i = 0; i < k_top; i++) {
      printf("  top %zu: index %zu, int8 %d, score %.6f\n", i + 1, order[i], output[order[i]],
             (double) out_info.scale * (output[order[i]] - out_info.zero_point));
    }
    printf("time per run: %.3f ms (median of %ld, %ld thread%s)%s\n", (double) median_ns / 1e6, repeat, threads,
           threads > 1 ? "s" : "",
           strcmp(numerics_name, "fp32") == 0 ? ", XNNPACK numerics (not TFLite-exact)" : "");
    struct q8nn_vta_stats vs;
    if (backend != NULL && q8nn_vta_get_stats(backend, &vs) == q8nn_status_success) {
      printf("on %s: %zu of %zu operators (%.1f%%), %.2f of %.2f MMAC (%.1f%%); largest distance of the output "
             "from the CPU's: %d\n",
             backend_name, on_backend, num_ops, op_share, (double) backend_macs / 1e6, (double) total_macs / 1e6,
             mac_share, max_distance);
      const struct vta_work w = vta_work_of(model, num_ops);
      printf("VTA model per run: %" PRIu64 " cycles, %" PRIu64 " instructions, %" PRIu64 " GEMM micro-ops, %" PRIu64
             " ALU micro-ops, %" PRIu64 " DRAM bytes; bound %.0f cycles (cycles / bound %.2f)\n",
             vs.cycles / (uint64_t) repeat, vs.instructions / (uint64_t) repeat, w.gemm, w.alu, w.dram_bytes, w.bound,
             w.bound > 0 ? (double) (vs.cycles / (uint64_t) repeat) / w.bound : 0.0);
    }
    if (profile) {
      printf("\n%4s  %-18s %-16s %12s %10s %8s %10s %9s  %s\n", "#", "op", "output", "MACs", "time ms", "GMAC/s",
             "VTA cyc", "ALU uops", "placement");
      for (size_t k = 0; k < num_ops; k++) {
        struct q8nn_model_operator_info oi;
        q8nn_model_get_operator_info(model, k, &oi);
        const uint64_t t = median(op_times + k * (size_t) repeat, (size_t) repeat);
        char shape[64];
        size_t len = 0;
        for (size_t i = 0; i < oi.num_output_dims && len < sizeof(shape) - 12; i++) {
          len += (size_t) snprintf(shape + len, sizeof(shape) - len, i ? "x%zu" : "%zu", oi.output_dims[i]);
        }
        shape[len] = '\0';
        char placement[48];
        if (oi.fused_into != SIZE_MAX) snprintf(placement, sizeof(placement), "%s, fused into %zu", oi.placement, oi.fused_into);
        else snprintf(placement, sizeof(placement), "%s", oi.placement);
        printf("%4zu  %-18s %-16s %12" PRIu64 " %10.4f %8.2f %10" PRIu64 " %9" PRIu64 "  %s\n", k, oi.type, shape,
               oi.macs, (double) t / 1e6, t != 0 ? (double) oi.macs / (double) t : 0.0, oi.backend_stats.cycles,
               oi.backend_stats.alu_counter, placement);
      }
    }
  }
  free(order);
cleanup:
  free(times);
  free(op_times);
  if (pool != NULL) pthreadpool_destroy(pool);
  q8nn_model_delete(model);
  q8nn_delete_backend(backend);
  return rc;
}
