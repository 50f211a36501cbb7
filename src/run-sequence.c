/*
 * q8nn_run_operators: several set-up operators in one parallel region.
 *
 * Each q8nn_run_operator with a threadpool is one pthreadpool call, and a call costs a fixed time
 * whatever its size: waking the workers (a futex system call) and waiting for them. On the 2-core
 * development VM that is 1.4 us per call against 0.2 us for a barrier between threads that are
 * already running (docs/performance.md, "Threads and the parallel region"), and MobileNetV2
 * makes 62 calls a pass. Here the
 * whole sequence is one pthreadpool call (or one host parallel-for, q8nn_run_operators_on) of one
 * item per thread; inside it every operator's loops
 * (q8nn_operator_works, the same tiles as q8nn_run_operator's calls) run one after the other, with
 * a barrier between them: a thread starts loop s + 1 only when every tile of loop s is finished, so
 * an operator may read any earlier operator's output.
 *
 * Where loop s + 1 reads loop s's output only in the rows the same share of loop s wrote, and writes
 * nothing loop s reads or writes (q8nn_work_needs_barrier: a row-parted 1x1 layer or add after a
 * layer cut at the same rows, buffers apart), the barrier is replaced by waits on shares: a thread
 * runs a tile of share j of loop s + 1 once share j of loop s is finished, whoever ran it. Every
 * loop still waits for loop s - 1 to be finished, so no thread runs more than one loop ahead of
 * another. In MobileNetV2 at two threads 34 of the 61 barriers go (the 1x1 layers and adds of the
 * 112x112 to 14x14 blocks; the depthwise layers read their neighbours' rows, the 7x7 1x1 layers
 * are cut by channels): each barrier put one cross-core transfer on the critical path (about 0.3
 * us) and held the thread that finished first. Two-thread pass 0.984x and 0.993x the time (medians
 * of two series of alternating runs of one binary with the plan switched off and on;
 * docs/performance.md, "Share waits instead of barriers").
 *
 * Tiles of a loop: participant p first runs its own contiguous share of the tile numbers (the
 * share pthreadpool would give thread p, so consecutive layers keep their rows on the same core),
 * front to back; then it takes the other shares' tiles from their back. One counter per share
 * arbitrates (pthreadpool's scheme): whoever decrements it from a positive value owns one tile.
 * A thread waits only for tiles that another running thread has taken, so the region finishes
 * even when pthreadpool runs two items one after the other on one thread: the first then takes
 * every tile, and the second finds nothing left. Every tile is computed exactly once by the same
 * code as in q8nn_run_operator, so the bytes are the same for every thread count.
 *
 * The list's loops, shares and barrier choices are its plan (struct q8nn_list_plan below), kept in
 * the list's first operator between calls: a call with the same operators, each with the setup
 * the plan was built on and none run alone since, and the same thread count only resets the
 * counters.
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

/* pthreadpool is not built with ThreadSanitizer: the region tells a TSan build what its call orders
   (Q8NN_TSAN_RELEASE / _ACQUIRE, common.h): the caller's writes before the region's items, the
   items' after the call returns. The orders inside the region (counters, share waits) are this
   file's atomics. */

#define Q8NN_CACHE_LINE 64

/* One participant's share of one loop; a cache line of its own. */
struct q8nn_share {
  _Alignas(Q8NN_CACHE_LINE) atomic_intptr_t left; /* tiles not yet taken */
  size_t front;                                    /* next tile from the front (owner only) */
  atomic_size_t back;                              /* one past the next tile from the back */
  atomic_size_t finished;                          /* tiles of the share run to the end */
  size_t start, length;                            /* its tiles [start, start + length): set once */
};

struct q8nn_stage_done {
  _Alignas(Q8NN_CACHE_LINE) atomic_size_t finished;
  int after_shares; /* no barrier before this loop: share waits (q8nn_work_needs_barrier) */
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

static void wait_for_share(struct q8nn_share* share) { wait_for(&share->finished, share->length); }

static void region_loops(struct q8nn_region* r, size_t participant);

static void region_task(void* context, size_t participant) {
  Q8NN_TSAN_ACQUIRE(context);
  region_loops(context, participant);
  Q8NN_TSAN_RELEASE(context);
}

static void region_loops(struct q8nn_region* r, size_t participant) {
  const size_t threads = r->threads;
  for (size_t s = 0; s < r->count; s++) {
    const struct q8nn_work* w = &r->works[s];
    struct q8nn_share* shares = r->shares + s * threads;
    /* before loop s: loop s - 1 finished (the barrier), or only the shares of it that this thread's
       tiles depend on (prev); loop s - 2 finished either way, so no thread is ever more than one loop
       behind another */
    struct q8nn_share* prev = NULL;
    if (s > 0) {
      if (r->done[s].after_shares) {
        prev = r->shares + (s - 1) * threads;
      } else {
        wait_for(&r->done[s - 1].finished, q8nn_work_tiles(&r->works[s - 1]));
      }
      if (s > 1) wait_for(&r->done[s - 2].finished, q8nn_work_tiles(&r->works[s - 2]));
    }
    size_t ran = 0;
    struct q8nn_share* own = &shares[participant];
    while (atomic_fetch_sub_explicit(&own->left, 1, memory_order_relaxed) > 0) {
      if (prev != NULL && ran == 0) wait_for_share(&prev[participant]);
      q8nn_work_run_tile(w, own->front++);
      ran++;
    }
    if (ran != 0) atomic_fetch_add_explicit(&own->finished, ran, memory_order_release);
    for (size_t k = 1; k < threads; k++) {
      const size_t j = (participant + k) % threads;
      struct q8nn_share* other = &shares[j];
      int waited = prev == NULL;
      while (atomic_fetch_sub_explicit(&other->left, 1, memory_order_relaxed) > 0) {
        if (!waited) wait_for_share(&prev[j]), waited = 1;
        q8nn_work_run_tile(w, atomic_fetch_sub_explicit(&other->back, 1, memory_order_relaxed) - 1);
        atomic_fetch_add_explicit(&other->finished, 1, memory_order_release);
        ran++;
      }
    }
    /* the last loop needs no barrier: pthreadpool's call returns after every item */
    atomic_fetch_add_explicit(&r->done[s].finished, ran, memory_order_release);
  }
}

/* Bytes of the shares and counters of `count` loops. */
static size_t region_bytes(size_t count, size_t threads) {
  return count * threads * sizeof(struct q8nn_share) + count * sizeof(struct q8nn_stage_done);
}

/* One step of a list: a region of its loops, then an operator on a backend (either may be absent). */
struct q8nn_list_step {
  size_t first, loops;         /* a region of loops [first, first + loops), none where 0 ... */
  struct q8nn_operator* after; /* ... then this operator on its backend, or NULL */
};

/*
 * A list's plan for one thread count: every loop of its CPU operators (q8nn_operator_works), each
 * share's tiles and whether a loop waits on shares (q8nn_work_needs_barrier), with the counters the
 * regions run on, in one allocation. q8nn_run_operators keeps it in the list's first operator and
 * builds it again only when the list, the thread count or the setup of one of its operators
 * changed (each setup takes a new serial), or one of them ran alone (list_plan_matches). Built on every call it cost about 7 us of a two-thread
 * MobileNetV2 pass on the 2-core VM (3 of them deciding the barriers), and an allocation.
 */
struct q8nn_list_plan {
  size_t count, threads, steps;
  const struct q8nn_operator** ops; /* count: the list ... */
  uint64_t* serials;                /* ... and the setup each of them had */
  struct q8nn_list_step* step;      /* steps (at most count + 1) */
  struct q8nn_share* shares;        /* loops x threads, cache-line aligned */
  struct q8nn_stage_done* done;     /* a loop's counter and barrier choice */
  struct q8nn_work* works;
  void* block;
};

static atomic_uint_fast64_t setup_serials;

uint64_t q8nn_next_setup_serial(void) {
  return (uint64_t) atomic_fetch_add_explicit(&setup_serials, 1, memory_order_relaxed) + 1;
}

void q8nn_free_list_plan(struct q8nn_list_plan* plan) {
  if (plan != NULL) free(plan->block);
}

/* Whether the plan is the list's for `threads`: the same operators with the same setups, and each
   CPU operator's kept loops still the region's for that thread count (the plan holds copies of them,
   and the row-parted tasks read their part count from the operator: a run of it alone with another
   thread count re-derives them, and so must the plan). */
static int list_plan_matches(const struct q8nn_list_plan* plan, size_t count, const q8nn_operator_t* ops,
                             size_t threads) {
  if (plan == NULL || plan->count != count || plan->threads != threads) return 0;
  for (size_t i = 0; i < count; i++) {
    const struct q8nn_operator* op = ops[i];
    if (plan->ops[i] != op || plan->serials[i] != op->setup_serial) return 0;
    if (op->backend == NULL && (op->plan_threads != threads || !op->plan_in_region)) return 0;
  }
  return 1;
}

/* Shares and barrier choices of the loops [first, first + n) of one region. */
static void plan_region(struct q8nn_list_plan* plan, size_t first, size_t n) {
  const size_t threads = plan->threads;
  for (size_t s = first; s < first + n; s++) {
    const size_t tiles = q8nn_work_tiles(&plan->works[s]);
    for (size_t p = 0; p < threads; p++) {
      struct q8nn_share* sh = &plan->shares[s * threads + p];
      q8nn_work_share(tiles, threads, p, &sh->start, &sh->length);
    }
    plan->done[s].after_shares =
        s > first && !q8nn_work_needs_barrier(&plan->works[s - 1], &plan->works[s], threads);
  }
}

/* A new plan of the list (threads >= 2), or NULL where memory runs out. */
static struct q8nn_list_plan* build_list_plan(size_t count, const q8nn_operator_t* ops, size_t threads) {
  const size_t max_loops = count * Q8NN_MAX_OPERATOR_WORKS;
  const size_t head = q8nn_round_up(sizeof(struct q8nn_list_plan), Q8NN_CACHE_LINE);
  const size_t lists = count * (sizeof(const struct q8nn_operator*) + sizeof(uint64_t)) +
                       (count + 1) * sizeof(struct q8nn_list_step);
  const size_t bytes = head + region_bytes(max_loops, threads) + max_loops * sizeof(struct q8nn_work) + lists;
  char* block = malloc(bytes + Q8NN_CACHE_LINE);
  if (block == NULL) return NULL;
  char* aligned = block + (Q8NN_CACHE_LINE - (uintptr_t) block % Q8NN_CACHE_LINE) % Q8NN_CACHE_LINE;
  struct q8nn_list_plan* plan = (struct q8nn_list_plan*) aligned;
  plan->block = block;
  plan->count = count;
  plan->threads = threads;
  plan->shares = (struct q8nn_share*) (aligned + head);
  plan->done = (struct q8nn_stage_done*) (plan->shares + max_loops * threads);
  plan->works = (struct q8nn_work*) (plan->done + max_loops);
  plan->step = (struct q8nn_list_step*) (plan->works + max_loops);
  plan->serials = (uint64_t*) (plan->step + count + 1);
  plan->ops = (const struct q8nn_operator**) (plan->serials + count);
  plan->steps = 0;
  size_t first = 0, n = 0; /* first loop of the current region, loops so far */
  for (size_t i = 0; i <= count; i++) {
    if (i < count) {
      plan->ops[i] = ops[i];
      plan->serials[i] = ops[i]->setup_serial;
      if (ops[i]->backend == NULL) {
        n += q8nn_operator_works(ops[i], threads, 1, plan->works + n);
        continue;
      }
    }
    /* the end of the list, or an operator on a backend: it ends the region before it */
    plan_region(plan, first, n - first);
    const struct q8nn_list_step step = {first, n - first, i < count ? ops[i] : NULL};
    if (step.loops != 0 || step.after != NULL) plan->step[plan->steps++] = step;
    first = n;
  }
  return plan;
}

/* Runs loops [first, first + n) of the plan in one parallel region. */
static void run_region(struct q8nn_list_plan* plan, size_t first, size_t n, const struct q8nn_exec* exec) {
  const size_t threads = plan->threads;
  struct q8nn_region r;
  r.works = plan->works + first;
  r.count = n;
  r.threads = threads;
  r.shares = plan->shares + first * threads;
  r.done = plan->done + first;
  for (size_t s = 0; s < n * threads; s++) {
    struct q8nn_share* sh = &r.shares[s];
    atomic_init(&sh->left, (intptr_t) sh->length);
    sh->front = sh->start;
    atomic_init(&sh->back, sh->start + sh->length);
    atomic_init(&sh->finished, 0);
  }
  for (size_t s = 0; s < n; s++) atomic_init(&r.done[s].finished, 0);
  Q8NN_TSAN_RELEASE(&r);
  q8nn_exec_parallelize_1d(exec, region_task, &r, threads);
  Q8NN_TSAN_ACQUIRE(&r);
}

static enum q8nn_status run_operators(size_t count, const q8nn_operator_t* ops, const struct q8nn_exec* exec,
                                      const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (count == 0) return q8nn_status_success;
  if (ops == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "ops is NULL");
  for (size_t i = 0; i < count; i++) {
    if (ops[i] == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "an operator of the list is NULL");
    if (!ops[i]->is_setup) {
      return q8nn_log_error(q8nn_status_invalid_state, caller, "an operator of the list was not set up");
    }
  }
  const size_t threads = q8nn_exec_threads(exec);
  if (threads <= 1) {
    for (size_t i = 0; i < count; i++) {
      const struct q8nn_operator* op = ops[i];
      const enum q8nn_status status =
          op->backend != NULL ? q8nn_backend_run(ops[i], exec)
          : q8nn_run_cpu(ops[i], exec);
      if (status != q8nn_status_success) return status;
    }
    return q8nn_status_success;
  }
  /* The plan, with its one allocation, before anything runs: out of memory leaves every output
     untouched (and the kept plan as it was). */
  struct q8nn_list_plan* plan = ops[0]->list_plan;
  if (!list_plan_matches(plan, count, ops, threads)) {
    const size_t per_op = Q8NN_MAX_OPERATOR_WORKS * (sizeof(struct q8nn_work) + region_bytes(1, threads)) +
                          sizeof(void*) + sizeof(uint64_t) + sizeof(struct q8nn_list_step);
    if (count > (SIZE_MAX - 4096) / per_op) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "too many operators");
    }
    plan = build_list_plan(count, ops, threads);
    if (plan == NULL) {
      return q8nn_log_error(q8nn_status_out_of_memory, caller, "no memory for the plan of %zu operators", count);
    }
    q8nn_free_list_plan(ops[0]->list_plan);
    ops[0]->list_plan = plan;
  }
  for (size_t k = 0; k < plan->steps; k++) {
    const struct q8nn_list_step* step = &plan->step[k];
    if (step->loops != 0) run_region(plan, step->first, step->loops, exec);
    if (step->after != NULL) {
      const enum q8nn_status status = q8nn_backend_run(step->after, exec);
      if (status != q8nn_status_success) return status;
    }
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_run_operators(size_t count, const q8nn_operator_t* ops, pthreadpool_t threadpool) {
  const struct q8nn_exec exec = q8nn_exec_pool(threadpool);
  return run_operators(count, ops, &exec, __func__);
}

enum q8nn_status q8nn_run_operators_on(size_t count, const q8nn_operator_t* ops, const struct q8nn_threadpool* pool) {
  if (pool != NULL && (pool->threads_count == NULL || pool->parallelize_1d_tile_1d == NULL)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "the pool's threads_count and parallelize_1d_tile_1d must be set");
  }
  const struct q8nn_exec exec = {NULL, pool};
  return run_operators(count, ops, &exec, __func__);
}
