#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* -1: not decided yet, read Q8NN_LOG on first use. Atomic: any thread may log or set it. */
static atomic_int log_level = -1;

void q8nn_set_log_level(int level) { atomic_store_explicit(&log_level, level > 0 ? 1 : 0, memory_order_relaxed); }

static int logging_enabled(void) {
  int level = atomic_load_explicit(&log_level, memory_order_relaxed);
  if (level < 0) {
    const char* env = getenv("Q8NN_LOG");
    const int from_env = env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
    int expected = -1; /* a concurrent q8nn_set_log_level wins over the environment */
    atomic_compare_exchange_strong_explicit(&log_level, &expected, from_env, memory_order_relaxed,
                                            memory_order_relaxed);
    level = atomic_load_explicit(&log_level, memory_order_relaxed);
  }
  return level > 0;
}

enum q8nn_status q8nn_log_error(enum q8nn_status status, const char* function, const char* format, ...) {
  if (logging_enabled()) {
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    fprintf(stderr, "q8nn: %s: %s: %s\n", function, q8nn_status_string(status), message);
  }
  return status;
}

const char* q8nn_status_string(enum q8nn_status status) {
  switch (status) {
    case q8nn_status_success: return "success";
    case q8nn_status_uninitialized: return "uninitialized";
    case q8nn_status_invalid_parameter: return "invalid_parameter";
    case q8nn_status_unsupported_parameter: return "unsupported_parameter";
    case q8nn_status_unsupported_hardware: return "unsupported_hardware";
    case q8nn_status_out_of_memory: return "out_of_memory";
    case q8nn_status_invalid_state: return "invalid_state";
    case q8nn_status_backend_error: return "backend_error";
  }
  return "unknown_status";
}
