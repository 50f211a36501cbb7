/*
 * Running loops and works on the caller's threads: a pthreadpool (the call a work describes), a
 * host's parallel-for (struct q8nn_threadpool) as pieces of the tile numbers, or the calling
 * thread. The same tiles in any case, so the same bytes. Nothing here allocates.
 */
#include "operator.h"

size_t q8nn_exec_threads(const struct q8nn_exec* exec) {
  if (exec->host != NULL) {
    const size_t threads = exec->host->threads_count(exec->host->context);
    return threads != 0 ? threads : 1;
  }
  return exec->pool != NULL ? pthreadpool_get_threads_count(exec->pool) : 1;
}

/* A 1D loop or a work's tiles, as pieces of a host parallel-for. */
struct host_loop {
  void (*fn)(void*, size_t);
  void* context;
  const struct q8nn_work* work;
};

static void host_piece(void* task_context, size_t start, size_t count) {
  struct host_loop* loop = task_context;
  Q8NN_TSAN_ACQUIRE(loop);
  for (size_t i = start; i < start + count; i++) {
    if (loop->work != NULL) {
      q8nn_work_run_tile(loop->work, i);
    } else {
      loop->fn(loop->context, i);
    }
  }
  Q8NN_TSAN_RELEASE(loop);
}

/* The host's parallel-for over the loop's indices [0, range) (common.h: the TSan annotations). */
static void host_parallelize(const struct q8nn_threadpool* host, struct host_loop* loop, size_t range) {
  Q8NN_TSAN_RELEASE(loop);
  host->parallelize_1d_tile_1d(host->context, host_piece, loop, range, 1);
  Q8NN_TSAN_ACQUIRE(loop);
}

#ifdef Q8NN_TSAN_ANNOTATE
/* A TSan build hands pthreadpool's calls the same pieces (the same indices or tiles, so the same
   bytes) through host_piece: pthreadpool is not instrumented, and the annotations there tell TSan
   what its calls order. */
static void pool_parallelize_annotated(pthreadpool_t pool, struct host_loop* loop, size_t range) {
  Q8NN_TSAN_RELEASE(loop);
  pthreadpool_parallelize_1d_tile_1d(pool, host_piece, loop, range, 1, 0);
  Q8NN_TSAN_ACQUIRE(loop);
}
#endif

void q8nn_exec_parallelize_1d(const struct q8nn_exec* exec, void (*fn)(void*, size_t), void* context, size_t range) {
  if (exec->host != NULL) {
    struct host_loop loop = {fn, context, NULL};
    host_parallelize(exec->host, &loop, range);
  } else {
#ifdef Q8NN_TSAN_ANNOTATE
    if (exec->pool != NULL) {
      struct host_loop loop = {fn, context, NULL};
      pool_parallelize_annotated(exec->pool, &loop, range);
      return;
    }
#endif
    pthreadpool_parallelize_1d(exec->pool, (pthreadpool_task_1d_t) fn, context, range, 0);
  }
}

/* The work through the pthreadpool call it describes (the same tiles in the same order), or as the
   host parallel-for's pieces of its tile numbers. */
void q8nn_exec_work(const struct q8nn_work* w, const struct q8nn_exec* exec) {
  if (exec->host != NULL) {
    const size_t tiles = q8nn_work_tiles(w);
    if (w->caller_only) {
      for (size_t i = 0; i < tiles; i++) q8nn_work_run_tile(w, i);
    } else {
      struct host_loop loop = {NULL, NULL, w};
      host_parallelize(exec->host, &loop, tiles);
    }
    return;
  }
  pthreadpool_t threadpool = w->caller_only ? NULL : exec->pool;
#ifdef Q8NN_TSAN_ANNOTATE
  if (threadpool != NULL) {
    struct host_loop loop = {NULL, NULL, w};
    pool_parallelize_annotated(threadpool, &loop, q8nn_work_tiles(w));
    return;
  }
#endif
  const size_t* r = w->range;
  const size_t* t = w->tile;
  switch (w->kind) {
    case q8nn_work_1d:
      pthreadpool_parallelize_1d(threadpool, (pthreadpool_task_1d_t) w->fn, w->context, r[3], 0);
      break;
    case q8nn_work_2d_tile_1d:
      pthreadpool_parallelize_2d_tile_1d(threadpool, (pthreadpool_task_2d_tile_1d_t) w->fn, w->context, r[2], r[3],
                                         t[3], 0);
      break;
    case q8nn_work_3d_tile_1d:
      pthreadpool_parallelize_3d_tile_1d(threadpool, (pthreadpool_task_3d_tile_1d_t) w->fn, w->context, r[1], r[2],
                                         r[3], t[3], 0);
      break;
    case q8nn_work_3d_tile_2d:
      pthreadpool_parallelize_3d_tile_2d(threadpool, (pthreadpool_task_3d_tile_2d_t) w->fn, w->context, r[1], r[2],
                                         r[3], t[2], t[3], 0);
      break;
    case q8nn_work_4d_tile_2d:
      pthreadpool_parallelize_4d_tile_2d(threadpool, (pthreadpool_task_4d_tile_2d_t) w->fn, w->context, r[0], r[1],
                                         r[2], r[3], t[2], t[3], 0);
      break;
  }
}

size_t q8nn_work_tiles(const struct q8nn_work* w) {
  return w->tiles[0] * w->tiles[1] * w->tiles[2] * w->tiles[3];
}

void q8nn_work_run_tile(const struct q8nn_work* w, size_t index) {
  size_t i[4], n[4];
  for (size_t d = 4; d-- > 0;) {
    const size_t tiles = w->tiles[d];
    /* most dimensions of a work have one tile: no division for them (a tile can be a few hundred
       cycles) */
    const size_t start = tiles == 1 ? 0 : (index % tiles) * w->tile[d];
    if (tiles != 1) index /= tiles;
    i[d] = start;
    n[d] = w->range[d] - start < w->tile[d] ? w->range[d] - start : w->tile[d];
  }
  switch (w->kind) {
    case q8nn_work_1d: ((pthreadpool_task_1d_t) w->fn)(w->context, i[3]); break;
    case q8nn_work_2d_tile_1d: ((pthreadpool_task_2d_tile_1d_t) w->fn)(w->context, i[2], i[3], n[3]); break;
    case q8nn_work_3d_tile_1d: ((pthreadpool_task_3d_tile_1d_t) w->fn)(w->context, i[1], i[2], i[3], n[3]); break;
    case q8nn_work_3d_tile_2d:
      ((pthreadpool_task_3d_tile_2d_t) w->fn)(w->context, i[1], i[2], i[3], n[2], n[3]);
      break;
    case q8nn_work_4d_tile_2d:
      ((pthreadpool_task_4d_tile_2d_t) w->fn)(w->context, i[0], i[1], i[2], i[3], n[2], n[3]);
      break;
  }
}
