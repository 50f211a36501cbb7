/*
 * q8nn_run_operators: several set-up operators in one parallel region.
 *
 * Each q8nn_run_operator with a threadpool is one pthreadpool call, and a call costs a fixed time
 * whatever its size: waking the workers (a futex system call) and waiting for them. On the 2-core
 * development VM that is 1.4 us per call against 0.2 us for a barrier between threads that are
 * already running (bench/README.md, round ten), and MobileNetV2 makes 62 calls a pass. Here the
 * whole sequence is one pthreadpool call of one item per thread; inside it every operator's loops
 * (q8nn_operator_works, the same tiles as q8nn_run_operator's calls) run one after the other, with
 * a barrier after each: a thread starts loop s + 1 only when every tile of loop s is finished, so
 * an operator may read any earlier operator's output.
 *
 * Tiles of a loop: participant p first runs its own contiguous share of the tile numbers (the
 * share pthreadpool would give thread p, so consecutive layers keep their rows on the same core),
 * front to back; then it takes the other shares' tiles from their back. One counter per share
 * arbitrates (pthreadpool's scheme): whoever decrements it from a positive value owns one tile.
 * A thread waits only for tiles that another running thread has taken, so the region finishes
 * even when pthreadpool runs two items one after the other on one thread: the first then takes
 * every tile, and the second finds nothing left. Every tile is computed exactly once by the same
 * code as in q8nn_run_operator, so the bytes are the same for every thread count.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "accel/backend.h"
#include "operator.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define Q8NN_SPIN_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define Q8NN_SPIN_PAUSE() __asm__ __volatile__("yield")
#else
#define Q8NN_SPIN_PAUSE() ((void) 0)
#endif

#include <sched.h>

#define Q8NN_CACHE_LINE 64

/* One participant's share of one loop; a cache line of its own. */
struct q8nn_share {
  _Alignas(Q8NN_CACHE_LINE) atomic_intptr_t left; /* tiles not yet taken */
  size_t front;                                    /* next tile from the front (owner only) */
  atomic_size_t back;                              /* one past the next tile from the back */
};

struct q8nn_stage_done {
  _Alignas(Q8NN_CACHE_LINE) atomic_size_t finished;
};

struct q8nn_region {
  const struct q8nn_work* works;
  size_t count;  /* loops */
  size_t threads;
  struct q8nn_share* shares;       /* count x threads */
  struct q8nn_stage_done* done;    /* count */
};

static void wait_for(atomic_size_t* finished, size_t tiles) {
  for (uint32_t spins = 0; atomic_load_explicit(finished, memory_order_acquire) < tiles; spins++) {
    /* a descheduled partner (more threads than cores) should not cost a whole time slice of spinning */
    if (spins >= (UINT32_C(1) << 16)) {
      sched_yield();
      spins = 0;
    } else {
      Q8NN_SPIN_PAUSE();
    }
  }
}

static void region_task(void* context, size_t participant) {
  struct q8nn_region* r = context;
  const size_t threads = r->threads;
  for (size_t s = 0; s < r->count; s++) {
    const struct q8nn_work* w = &r->works[s];
    struct q8nn_share* shares = r->shares + s * threads;
    size_t ran = 0;
    struct q8nn_share* own = &shares[participant];
    while (atomic_fetch_sub_explicit(&own->left, 1, memory_order_relaxed) > 0) {
      q8nn_work_run_tile(w, own->front++);
      ran++;
    }
    for (size_t k = 1; k < threads; k++) {
      struct q8nn_share* other = &shares[(participant + k) % threads];
      while (atomic_fetch_sub_explicit(&other->left, 1, memory_order_relaxed) > 0) {
        q8nn_work_run_tile(w, atomic_fetch_sub_explicit(&other->back, 1, memory_order_relaxed) - 1);
        ran++;
      }
    }
    const size_t tiles = q8nn_work_tiles(w);
    atomic_fetch_add_explicit(&r->done[s].finished, ran, memory_order_release);
    /* the last loop needs no barrier: pthreadpool's call returns after every item */
    if (s + 1 < r->count) wait_for(&r->done[s].finished, tiles);
  }
}

/* Bytes of the shares and counters of `count` loops. */
static size_t region_bytes(size_t count, size_t threads) {
  return count * threads * sizeof(struct q8nn_share) + count * sizeof(struct q8nn_stage_done);
}

/* Runs works[0, count) in one parallel region (threads >= 2). `memory` holds the shares and
   counters: region_bytes(count, threads) bytes, aligned to a cache line. */
static void run_region(const struct q8nn_work* works, size_t count, size_t threads, void* memory,
                       pthreadpool_t threadpool) {
  struct q8nn_region r;
  r.works = works;
  r.count = count;
  r.threads = threads;
  r.shares = memory;
  r.done = (struct q8nn_stage_done*) (r.shares + count * threads);
  for (size_t s = 0; s < count; s++) {
    const size_t tiles = q8nn_work_tiles(&works[s]);
    const size_t quotient = tiles / threads, remainder = tiles % threads;
    size_t start = 0;
    for (size_t p = 0; p < threads; p++) {
      struct q8nn_share* sh = &r.shares[s * threads + p];
      const size_t length = quotient + (p < remainder ? 1 : 0);
      atomic_init(&sh->left, (intptr_t) length);
      sh->front = start;
      atomic_init(&sh->back, start + length);
      start += length;
    }
    atomic_init(&r.done[s].finished, 0);
  }
  pthreadpool_parallelize_1d(threadpool, region_task, &r, threads, 0);
}

enum q8nn_status q8nn_run_operators(size_t count, const q8nn_operator_t* ops, pthreadpool_t threadpool) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (count == 0) return q8nn_status_success;
  if (ops == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "ops is NULL");
  for (size_t i = 0; i < count; i++) {
    if (ops[i] == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "an operator of the list is NULL");
    if (!ops[i]->is_setup) return Q8NN_ERROR(q8nn_status_invalid_state, "an operator of the list was not set up");
  }
  const size_t threads = threadpool != NULL ? pthreadpool_get_threads_count(threadpool) : 1;
  if (threads <= 1) {
    for (size_t i = 0; i < count; i++) {
      const enum q8nn_status status = q8nn_run_operator(ops[i], threadpool);
      if (status != q8nn_status_success) return status;
    }
    return q8nn_status_success;
  }
  /* Every loop of the list, with one allocation for all regions before anything runs (out of
     memory leaves every output untouched). An operator on a backend ends the region before it. */
  if (count > SIZE_MAX / (Q8NN_MAX_OPERATOR_WORKS * (sizeof(struct q8nn_work) + region_bytes(1, threads)))) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "too many operators");
  }
  const size_t max_works = count * Q8NN_MAX_OPERATOR_WORKS;
  const size_t shares_bytes = region_bytes(max_works, threads);
  char* block = malloc(shares_bytes + max_works * sizeof(struct q8nn_work) + Q8NN_CACHE_LINE);
  if (block == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "run_operators: no memory for %zu operators", count);
  void* aligned = block + (Q8NN_CACHE_LINE - (uintptr_t) block % Q8NN_CACHE_LINE) % Q8NN_CACHE_LINE;
  struct q8nn_work* works = (struct q8nn_work*) ((char*) aligned + shares_bytes);
  enum q8nn_status status = q8nn_status_success;
  size_t first = 0; /* first loop of the current region */
  size_t n = 0;
  for (size_t i = 0; i <= count; i++) {
    if (i < count && ops[i]->backend == NULL) {
      n += q8nn_operator_works(ops[i], threads, 1, works + n);
      continue;
    }
    if (n > first) run_region(works + first, n - first, threads, aligned, threadpool);
    first = n;
    if (i < count) {
      status = q8nn_backend_run(ops[i], threadpool);
      if (status != q8nn_status_success) break;
    }
  }
  free(block);
  return status;
}
