/* Internal helpers shared by every q8nn source file. Never installed. */
#ifndef Q8NN_COMMON_H
#define Q8NN_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "q8nn.h"

/* Internal symbols are hidden by the build (-fvisibility=hidden); Q8NN_INTERNAL documents it. */
#define Q8NN_INTERNAL __attribute__((visibility("hidden")))

#if defined(__GNUC__)
#define Q8NN_LIKELY(x) __builtin_expect(!!(x), 1)
#define Q8NN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define Q8NN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define Q8NN_LIKELY(x) (x)
#define Q8NN_UNLIKELY(x) (x)
#define Q8NN_PRINTF(f, a)
#endif

static inline size_t q8nn_min_sz(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t q8nn_max_sz(size_t a, size_t b) { return a > b ? a : b; }
static inline size_t q8nn_divide_round_up(size_t n, size_t d) { return n / d + (n % d != 0); }
static inline size_t q8nn_round_up(size_t n, size_t q) { return q8nn_divide_round_up(n, q) * q; }

/* a * b into *out; returns 0 on overflow. */
static inline int q8nn_mul_sz(size_t a, size_t b, size_t* out) {
  if (a != 0 && b > SIZE_MAX / a) return 0;
  *out = a * b;
  return 1;
}

/* Logs one line to stderr when logging is on (Q8NN_LOG or q8nn_set_log_level); returns status so
   a caller can write `return q8nn_log_error(status, "...")`. */
Q8NN_INTERNAL enum q8nn_status q8nn_log_error(enum q8nn_status status, const char* function,
                                              const char* format, ...) Q8NN_PRINTF(3, 4);
#define Q8NN_ERROR(status, ...) q8nn_log_error((status), __func__, __VA_ARGS__)

Q8NN_INTERNAL int q8nn_is_initialized(void);

/* A thread pool that is not built with ThreadSanitizer (pthreadpool, a host's OpenMP) orders the
   caller's writes before its tasks and the tasks' before its return; in a TSan build (scripts/
   test.sh --sanitize) q8nn tells TSan so where it wraps the tasks: a release by the caller before
   the call and by each task at its end, an acquire by each task at its start and by the caller
   after the call, on one address. */
#if defined(__SANITIZE_THREAD__)
#define Q8NN_TSAN_ANNOTATE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define Q8NN_TSAN_ANNOTATE 1
#endif
#endif
#ifdef Q8NN_TSAN_ANNOTATE
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
#define Q8NN_TSAN_RELEASE(p) __tsan_release(p)
#define Q8NN_TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define Q8NN_TSAN_RELEASE(p) ((void) (p))
#define Q8NN_TSAN_ACQUIRE(p) ((void) (p))
#endif

#endif
