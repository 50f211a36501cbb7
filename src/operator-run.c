/*
 * Running operators: the convolutions' and the add's works (their loops, tile sizes and tasks),
 * what each work reads and writes (for the barriers of a list), and the run entry points. Work is
 * split into independent tiles (exec.c runs them on the caller's threads); each output byte is
 * computed by exactly one tile with the same arithmetic, so every thread count and pool gives
 * identical bytes. Nothing here allocates.
 */
#include <stdlib.h>
#include <string.h>

#include "accel/backend.h"
#include "operator.h"

/*
 * Output channels per task. One thread: whole rows of channels (one call per row tile, row sums
 * once). Several: the split of the ceil(nc / nr) channel blocks into strips that minimises an
 * estimate of the last thread's finishing time, in eighths of one block x row-tile of work:
 *     (8 * rows * blocks + tasks) / threads  +  [unbalanced] 8 * strip * (threads - 1) / threads
 * where each task (call) costs 1/8 block more (row sums, bias and requantization constants) and a
 * split is balanced when every strip has the same width and the task count is a multiple of the
 * thread count; otherwise one strip's worth of work may be left to a single thread at the end.
 * Ties keep fewer strips. Pure arithmetic on the shape and thread count: the bytes do not depend on
 * it (each output is computed by one task with the same arithmetic).
 */
static size_t choose_nc_tile(size_t nc, size_t nr, size_t rows, size_t threads) {
  const size_t blocks = q8nn_divide_round_up(nc, nr);
  if (threads <= 1 || rows == 0) return blocks * nr;
  size_t best_strip = blocks, best_cost = SIZE_MAX;
  const size_t max_strips = blocks < 16 ? blocks : 16;
  for (size_t s = 1; s <= max_strips; s++) {
    const size_t strip = q8nn_divide_round_up(blocks, s), strips = q8nn_divide_round_up(blocks, strip);
    const size_t tasks = rows * strips;
    const int balanced = blocks % strip == 0 && tasks % threads == 0;
    const size_t cost = q8nn_divide_round_up(8 * rows * blocks + tasks, threads) +
                        (balanced ? 0 : 8 * strip * (threads - 1) / threads);
    if (cost < best_cost) {
      best_cost = cost;
      best_strip = strip;
    }
  }
  return best_strip * nr;
}

/*
 * Rows per gemm task. A kernel whose line has mloop takes several MR blocks per call and sets up
 * its requantization constants once per call (qs8-gemm-avx512vnni.h). Where the output channels
 * fit in one NR block (MobileNetV2's projections to 16, 24 and 32 channels) tasks take up to
 * Q8NN_GEMM_MAX_TILE_BLOCKS row blocks, as long as every thread still gets 4 tasks' worth of row
 * blocks (small layers keep MR-row tasks, so the threads still finish together): b0.project
 * (112x112x32>16) 1.2x. Up to 24 blocks rather than 6: 1.02-1.06x more on the four largest such
 * projections (one thread). With several NR blocks per call (the expansions) tasks take many
 * rows where K <= Q8NN_GEMM_MANY_ROWS_MAX_K, as many as in one block's case up to
 * Q8NN_GEMM_MAX_TILE_BLOCKS row blocks (gemm_max_rows): there the per-call setup (the output
 * stage's and each block's constants) weighs against only K / 4 K steps. AVX-512, guarded
 * epilogue, against MR-row tasks (Zen 4, same-process runs): 112x112x16>96 0.104 -> 0.097 ms at
 * one thread and 0.057 -> 0.049 at two, 56x56x24>144 0.0245 -> 0.0229 at two; fp32 0.050 -> 0.045
 * and 0.022 -> 0.021 at two. Larger K keeps MR rows: 14x14x96>576 ran 2% slower in 48-row calls
 * (and 0.93-0.97x was measured on the expansions before, docs/performance.md, "1x1 convolutions
 * (gemm)"). Kernels without mloop keep MR rows.
 * Lines with mloop 2 (the AMX gemm, which configures its tiles once per call, about 45 ns) take
 * the same many-row tasks whatever the output channels: the expansions 112x112x16>96 and
 * 56x56x24>144 1.13-1.25x (Intel host). With several threads most layers now cut
 * their rows into one part per thread instead (gemm_part_task); this choice remains for one
 * thread, for layers with fewer output rows than threads, and for the rows of the channel split.
 * Four tasks a thread rather than eight (measured before the row parts): a thread that
 * finishes its share takes the other shares' last tasks, which keeps the threads together, and
 * the 28x28 layers' AMX calls went from 25-50 to 9-18 at two threads; the whole pass 1.570 ->
 * 1.547 ms at one thread (six alternating runs).
 */
#define Q8NN_GEMM_MAX_TILE_BLOCKS 24
#define Q8NN_GEMM_MANY_ROWS_MAX_K 32
/* Whether gemm tasks take many rows (else MR-row tasks), as above. */
static int gemm_many_rows(const struct q8nn_operator* op) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  return op->gemm_mloop != 0 && (op->gemm_mloop == 2 || g->group_output_channels <= op->nr ||
                                 g->group_input_channels <= Q8NN_GEMM_MANY_ROWS_MAX_K);
}

/* The most rows one gemm call takes: with several NR blocks per call (mloop 1) a call runs every
   block over all of its rows, so such tasks keep the one-thread cap of Q8NN_GEMM_MAX_TILE_BLOCKS
   row blocks in the per-thread parts too (a whole part is thousands of rows); one block, or the
   AMX line, any number. */
static size_t gemm_max_rows(const struct q8nn_operator* op) {
  const int blocks = op->geometry.group_output_channels > op->nr;
  return op->gemm_mloop < 2 && blocks ? (size_t) Q8NN_GEMM_MAX_TILE_BLOCKS * op->mr : SIZE_MAX;
}

static size_t choose_gemm_m_tile(const struct q8nn_operator* op, size_t row_blocks, size_t threads) {
  if (!gemm_many_rows(op)) return op->mr;
  size_t f = row_blocks / (4 * threads);
  f = f < 1 ? 1 : f > Q8NN_GEMM_MAX_TILE_BLOCKS ? Q8NN_GEMM_MAX_TILE_BLOCKS : f;
  return f * op->mr;
}

/*
 * Whether several threads split a gemm layer by output channels only, each task taking every row
 * (one row tile) and a strip of the channels. Rows are the usual split: each thread then reads
 * only its own rows of the input, which the previous layer wrote on the same core, but every
 * thread reads all of the weights. Where the weights outweigh the activations, a channel split
 * moves fewer bytes into each core: its share of the weights, against all of the input and an
 * output the next layer partly reads from the other core. With T threads a row split brings
 * K x N weight bytes into every core, a channel split K x N / T weights and (T - 1) / T of the
 * M x K input and of the M x N output from other cores, so channels win, at T = 2 and with
 * cross-core and shared-cache bytes costed alike, where K x N > M x (K + N). In MobileNetV2
 * that is the 7x7 layers (M = 49, 92-410 KB of weights): inside a two-thread pass both threads
 * had streamed all of them, and the row tiles (32 and 17 rows of the AMX line's 32) were
 * unequal; the 7x7 1x1 layers took 0.025-0.036 ms of the pass less (docs/performance.md, "Work
 * split for the 1x1 layers"). The 14x14 layers (24-55 KB of weights, 75-113 KB of activations)
 * keep rows: split by channels they ran 10-20% slower in the pass. Needs a line that takes any
 * number of rows per call (mloop) and at least one NR block per thread. Shape arithmetic only; the
 * bytes do not depend on it.
 */
static int gemm_split_channels(const struct q8nn_operator* op, size_t m, size_t threads) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t k = g->group_input_channels, n = g->group_output_channels;
  if (threads <= 1 || m == 0 || k == 0 || !op->gemm_mloop || q8nn_divide_round_up(n, op->nr) < threads) return 0;
  if (m > SIZE_MAX / 2 / (k + n)) return 0; /* too many rows to be a weight-bound layer */
  if (k > SIZE_MAX / n) return 1;
  return k * n > m * (k + n);
}

/* Packed gemm/igemm weights of the NR-channel block that starts at output channel n0 of `group`. */
static const int8_t* packed_block(const struct q8nn_operator* op, size_t group, size_t n0) {
  const size_t block = op->packed_group_stride / q8nn_divide_round_up(op->geometry.group_output_channels, op->nr);
  return (const int8_t*) op->packed_weights + group * op->packed_group_stride + (n0 / op->nr) * block;
}

static void gemm_task(void* context, size_t group, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  op->gemm(mt, nt, g->group_input_channels,
           op->input + m0 * op->input_pixel_stride + group * g->group_input_channels, op->input_pixel_stride,
           packed_block(op, group, n0),
           op->output + m0 * op->output_pixel_stride + group * g->group_output_channels + n0,
           op->output_pixel_stride, op->nr, &op->conv_params);
}

/* The first of R rows in part `part` of `parts`: ceil(part x R / parts).
   Row-parted gemms and adds cut here (gemm_part_task, add_part_task), and the region reads the
   same bounds back (work_share_span). */
static size_t part_first_row(size_t part, size_t rows, size_t parts) {
  return q8nn_divide_round_up(part * rows, parts);
}

/* Output pixels [*begin, *end) of gemm part `part` of `parts`. */
static void gemm_part_pixels(const struct q8nn_operator* op, size_t part, size_t parts, size_t* begin, size_t* end) {
  const size_t rows = op->batch_size * op->output_height;
  *begin = part_first_row(part, rows, parts) * op->output_width;
  *end = part_first_row(part + 1, rows, parts) * op->output_width;
}

/*
 * With several threads a gemm layer that keeps rows (gemm_split_channels) cuts them into one part
 * per thread, at whole output rows: ceil(p x R / T) for part p of T, R = batch x height, as the
 * depthwise path's shares fall (choose_dwconv_strip): part p then reads the rows the previous
 * layer wrote on core p, and writes those the next one reads there. A part is one task (per strip
 * of channels) on a line that takes many rows per call, MR-row tasks otherwise. Before, the row
 * tiles of 32 to 768 rows ended where they fell: in a two-thread pass each core read up to a few
 * hundred pixels written on the other (b2.project 56x56x144>24: 352 pixels, 50 KB) and the AMX
 * line made 9-18 calls per layer. Whole network on two threads, five alternating runs: 0.971 ->
 * 0.947 ms on the AMX line; the AVX-512 line, whose expansions keep MR-row tasks, unchanged
 * (1.337 -> 1.334). Tasks are numbered part first, so the static share of thread p is part p.
 * This task: part `part` of op->plan_threads (the plan it belongs to has one part per thread), the
 * output rows [ceil(part x R / parts), ceil((part + 1) x R / parts)), its pixels from i on.
 */
static void gemm_part_task(void* context, size_t part, size_t group, size_t i, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  size_t begin, end;
  gemm_part_pixels(op, part, op->plan_threads, &begin, &end);
  if (begin + i >= end) return;
  gemm_task(context, group, begin + i, n0, mt < end - begin - i ? mt : end - begin - i, nt);
}

static void igemm_task(void* context, size_t n, size_t group, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  const size_t m_image = op->output_height * op->output_width;
  const size_t a_offset = n * op->input_height * op->input_width * op->input_pixel_stride +
                          group * g->group_input_channels + q8nn_indirection_delta(op);
  op->igemm(mt, nt, g->group_input_channels, ks, op->indirection + (m0 / op->mr) * ks * op->mr,
            packed_block(op, group, n0),
            op->output + (n * m_image + m0) * op->output_pixel_stride + group * g->group_output_channels + n0,
            op->output_pixel_stride, op->nr, a_offset, op->zero_buffer, &op->conv_params);
}

/* Copies n >= 1 bytes with fixed-size copies (no library call for the few bytes of a tap row). */
static inline void copy_bytes(int8_t* dst, const int8_t* src, size_t n) {
  for (; n > 16; n -= 16, dst += 16, src += 16) memcpy(dst, src, 16);
  if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n >= 2) {
    memcpy(dst, src, 2);
    memcpy(dst + n - 2, src + n - 2, 2);
  } else {
    *dst = *src;
  }
}

/* Sets n >= 1 bytes to value with fixed-size stores: memset is a library call, which cost the
   stem's border pixels (3- and 9-byte padded taps) more than their copies. */
static inline void fill_bytes(int8_t* dst, int8_t value, size_t n) {
  const uint64_t v = UINT64_C(0x0101010101010101) * (uint8_t) value;
  for (; n > 8; n -= 8, dst += 8) memcpy(dst, &v, 8);
  if (n >= 4) {
    memcpy(dst, &v, 4);
    memcpy(dst + n - 4, &v, 4);
  } else if (n >= 2) {
    memcpy(dst, &v, 2);
    memcpy(dst + n - 2, &v, 2);
  } else {
    *dst = value;
  }
}

/* One im2col row (K bytes) for output pixel (ox, oy) of image: the general case (padding, strided
   pixels, dilation); im2col_task copies interior pixels itself. */
static void im2col_pixel(const struct q8nn_operator* op, const int8_t* image, int8_t* row, size_t ox, size_t oy,
                         int8_t zp) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t kh = g->kernel_height, kw = g->kernel_width, kc = g->group_input_channels;
  const size_t k = op->im2col_k, kbytes = kh * kw * kc, row_bytes = kw * kc;
  const size_t in_h = op->input_height, in_w = op->input_width, ps = op->input_pixel_stride;
  const int dense = ps == kc && g->dilation_width == 1;
  const uint64_t zeros = 0;
  /* setup bounds sizes by 2^32: int64 holds every coordinate */
  const int64_t ix0 = (int64_t) (ox * g->stride_width) - (int64_t) g->padding_left;
  const int inside_x = ix0 >= 0 && ix0 + (int64_t) ((kw - 1) * g->dilation_width) < (int64_t) in_w;
  for (size_t ky = 0; ky < kh; ky++) {
    const int64_t iy = (int64_t) (oy * g->stride_height + ky * g->dilation_height) - (int64_t) g->padding_top;
    if (iy < 0 || iy >= (int64_t) in_h) {
      fill_bytes(row, zp, row_bytes);
    } else if (dense && inside_x) {
      copy_bytes(row, image + ((size_t) iy * in_w + (size_t) ix0) * kc, row_bytes);
    } else if (dense) {
      /* taps [lo, hi) of the kernel row are inside the image: one copy between two fills (a tap at a
         time cost kws's 10x4 first layer, one input channel, a fifth of the model's time) */
      const int64_t lo = ix0 < 0 ? (-ix0 < (int64_t) kw ? -ix0 : (int64_t) kw) : 0;
      int64_t hi = (int64_t) in_w - ix0;
      hi = hi > (int64_t) kw ? (int64_t) kw : hi < lo ? lo : hi;
      if (lo > 0) fill_bytes(row, zp, (size_t) lo * kc);
      if (hi > lo) copy_bytes(row + lo * kc, image + ((size_t) iy * in_w + (size_t) (ix0 + lo)) * kc, (size_t) (hi - lo) * kc);
      if (hi < (int64_t) kw) fill_bytes(row + hi * kc, zp, (kw - (size_t) hi) * kc);
    } else {
      for (size_t kx = 0; kx < kw; kx++) {
        const int64_t ix = ix0 + (int64_t) (kx * g->dilation_width);
        if (ix < 0 || ix >= (int64_t) in_w) {
          fill_bytes(row + kx * kc, zp, kc);
        } else {
          copy_bytes(row + kx * kc, image + ((size_t) iy * in_w + (size_t) ix) * ps, kc);
        }
      }
    }
    row += row_bytes;
  }
  /* K padding (< Q8NN_IM2COL_ROW_KR = 8 bytes; the next row, written after, or the buffer's slack) */
  if (k != kbytes) memcpy(row, &zeros, 8);
}

/* im2col path: the mt rows of K bytes of this tile (taps in kernel order, each tap's channels
   contiguous: the OHWI order of the packed 1x1 weights; padded taps hold the input zero point,
   K padding holds zeros), then one gemm call per MR rows. With dense pixels (stride = channels) and
   no horizontal dilation, a kernel row inside the image is one copy of kernel_width * channels
   bytes. A tile is several MR (im2col_tile_rows), which cuts the per-task costs of a tile of
   only MR rows (the threadpool call, the tile's coordinates, the kernel's per-call setup). */
static void im2col_task(void* context, size_t n, size_t m0, size_t n0, size_t mt, size_t nt) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t kh = g->kernel_height, kw = g->kernel_width, kc = g->group_input_channels;
  const size_t k = op->im2col_k, kbytes = kh * kw * kc, row_bytes = kw * kc;
  const size_t in_h = op->input_height, in_w = op->input_width, ps = op->input_pixel_stride;
  const size_t out_w = op->output_width, m_image = op->output_height * out_w;
  const int8_t zp = (int8_t) (op->input_zero_point ^ op->conv_params.input_flip); /* the input's own bytes */
  const int8_t* image = op->input + n * in_h * in_w * ps;
  const int dense = ps == kc && g->dilation_width == 1;
  /* Fast case: a pixel whose taps are all inside the image, dense, kernel rows of <= 16 bytes: each
     kernel row is one 16-byte copy (the excess lands in bytes written after it: the next kernel row,
     the K padding, the next pixel's row or the buffer's slack), provided 16 bytes can be read
     there (`last16`: the image's last start of a 16-byte read). */
  const int fast = dense && row_bytes <= 16;
  const size_t image_bytes = in_h * in_w * ps, row_step = g->dilation_height * in_w * kc;
  const int8_t* last16 = image_bytes >= 16 ? image + image_bytes - 16 : NULL;
  const uint64_t zeros = 0;
  int8_t rows[Q8NN_IM2COL_TILE_ROWS * Q8NN_IM2COL_MAX_K + 16];
  size_t oy = m0 / out_w, ox = m0 % out_w;
  for (size_t i = 0; i < mt;) {
    /* the tile's pixels in output row oy: [ox, ox + run) */
    const size_t run = out_w - ox < mt - i ? out_w - ox : mt - i;
    const int64_t iy0 = (int64_t) (oy * g->stride_height) - (int64_t) g->padding_top;
    size_t x = ox;
    if (fast && iy0 >= 0 && iy0 + (int64_t) ((kh - 1) * g->dilation_height) < (int64_t) in_h) {
      /* Every kernel row inside the image: the pixels whose taps are inside horizontally are a
         contiguous range; they run in a loop that only copies (the source moves by stride * kc). */
      for (; x < ox + run; x++) {
        const int64_t ix0 = (int64_t) (x * g->stride_width) - (int64_t) g->padding_left;
        if (ix0 >= 0) break;
        im2col_pixel(op, image, rows + (i + x - ox) * k, x, oy, zp);
      }
      const size_t src_step = g->stride_width * kc, last_row = (kh - 1) * row_step;
      const int8_t* src = x < ox + run ? image + ((size_t) iy0 * in_w + (x * g->stride_width - g->padding_left)) * kc
                                       : image;
      int8_t* row = rows + (i + x - ox) * k;
      if (kh == 3) {
        /* 3-row kernels (the usual stem): two pixels per step, their six loads issued before their
           six stores. One pixel per step, each pixel's loads waited behind the last pixel's stores
           to the row buffer: the MobileNetV2 stem ran 1.12x slower (docs/performance.md, "The
           stem"). */
        for (; x + 1 < ox + run; x += 2, src += 2 * src_step, row += 2 * k) {
          const int64_t ix1 = (int64_t) ((x + 1) * g->stride_width) - (int64_t) g->padding_left;
          if (ix1 + (int64_t) (kw - 1) >= (int64_t) in_w || last16 == NULL || src + src_step + last_row > last16) break;
          struct bytes16 { uint8_t b[16]; } a0, a1, a2, b0, b1, b2; /* kept in vector registers */
          const int8_t* src1 = src + src_step;
          int8_t* row1 = row + k;
          memcpy(&a0, src, 16);
          memcpy(&a1, src + row_step, 16);
          memcpy(&a2, src + 2 * row_step, 16);
          memcpy(&b0, src1, 16);
          memcpy(&b1, src1 + row_step, 16);
          memcpy(&b2, src1 + 2 * row_step, 16);
          memcpy(row, &a0, 16);
          memcpy(row + row_bytes, &a1, 16);
          memcpy(row + 2 * row_bytes, &a2, 16);
          if (k != kbytes) memcpy(row + kbytes, &zeros, 8);
          memcpy(row1, &b0, 16);
          memcpy(row1 + row_bytes, &b1, 16);
          memcpy(row1 + 2 * row_bytes, &b2, 16);
          if (k != kbytes) memcpy(row1 + kbytes, &zeros, 8);
        }
      }
      for (; x < ox + run; x++, src += src_step, row += k) {
        const int64_t ix0 = (int64_t) (x * g->stride_width) - (int64_t) g->padding_left;
        if (ix0 + (int64_t) (kw - 1) >= (int64_t) in_w || last16 == NULL || src + last_row > last16) break;
        for (size_t ky = 0; ky < kh; ky++) memcpy(row + ky * row_bytes, src + ky * row_step, 16);
        if (k != kbytes) memcpy(row + kbytes, &zeros, 8);
      }
    }
    for (; x < ox + run; x++) im2col_pixel(op, image, rows + (i + x - ox) * k, x, oy, zp);
    i += run;
    ox += run;
    if (ox == out_w) ox = 0, oy++;
  }
  /* one call for the whole tile where the kernel takes any number of rows (its per-call setup once) */
  const size_t rows_per_call = op->gemm_mloop ? mt : op->mr;
  for (size_t i = 0; i < mt; i += rows_per_call) {
    op->gemm(mt - i < rows_per_call ? mt - i : rows_per_call, nt, k, rows + i * k, k, packed_block(op, 0, n0),
             op->output + (n * m_image + m0 + i) * op->output_pixel_stride + n0, op->output_pixel_stride,
             op->nr, &op->conv_params);
  }
}

/* Rows per im2col tile: the largest multiple of MR that the row buffer holds. */
static size_t im2col_tile_rows(const struct q8nn_operator* op) {
  const size_t rows = op->mr > 16 ? Q8NN_IM2COL_TILE_ROWS : 48;
  return rows / op->mr * op->mr;
}

/* Depth multiplier > 1: one input row with every channel repeated dm times. */
static void expand_task(void* context, size_t row) {
  const struct q8nn_operator* op = context;
  const size_t channels = op->geometry.groups, dm = op->geometry.group_output_channels;
  const int8_t* in = op->input + row * op->input_width * op->input_pixel_stride;
  int8_t* out = op->expanded_input + row * op->input_width * channels * dm;
  const size_t stride = op->input_pixel_stride, width = op->input_width;
  if (dm % 8 == 0) {
    /* 8 copies per store (as a 64-bit pattern): with a byte per store and a loop per channel this
       copy took about half of a dm-8 layer's time (person_detect's first, measured before one-channel
       layers moved to im2col) */
    for (size_t x = 0; x < width; x++, in += stride) {
      for (size_t c = 0; c < channels; c++, out += dm) {
        const uint64_t pattern = (uint64_t) (uint8_t) in[c] * UINT64_C(0x0101010101010101);
        for (size_t m = 0; m < dm; m += 8) memcpy(out + m, &pattern, 8);
      }
    }
    return;
  }
  for (size_t x = 0; x < width; x++, in += stride) {
    for (size_t c = 0; c < channels; c++) {
      for (size_t m = 0; m < dm; m++) *out++ = in[c];
    }
  }
}

/*
 * Reads one byte of every cache line that a dwconv task's kernel will read: channels [c0, c0 +
 * count) of the input rows under its output rows. With several threads, a depthwise layer's input
 * was written by the previous layer on every core, and where a core's kernel loads lines another
 * core holds modified it runs much slower than a plain sweep of the same lines would: on the
 * AMD development VM (Zen 4), the operator on one core over an input the other core had just
 * written took 2-2.7x its time on local data (28x28x192 20 -> 53 us, 14x14x384 10 -> 21 us,
 * 56x56x144 80 -> 155 us), against a sweep at the cross-core copy rate (about 35 GB/s, 4 us for
 * 150 KB). With this sweep first: 24, 12 and 90 us. The kernels' masked loads are part of the cost
 * (plain loads for whole blocks: 53 -> 31 us on 28x28x192) but not all of it. Only runs with more
 * than one thread use it (dwconv_task_touching): a single core's data is always local, where the
 * sweep costs 3-5% (docs/performance.md, "Cross-core reads").
 */
static void touch_dwconv_input(const struct q8nn_operator* op, size_t n, size_t oy, size_t c0, size_t rows,
                               size_t count) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  /* setup bounds sizes by 2^32: int64 holds every coordinate */
  int64_t iy0 = (int64_t) (oy * g->stride_height) - (int64_t) g->padding_top;
  int64_t iy1 = (int64_t) ((oy + rows - 1) * g->stride_height + (g->kernel_height - 1) * g->dilation_height) -
                (int64_t) g->padding_top + 1;
  if (iy0 < 0) iy0 = 0;
  if (iy1 > (int64_t) op->input_height) iy1 = (int64_t) op->input_height;
  if (iy1 <= iy0) return;
  size_t in_stride;
  const int8_t* base = q8nn_indirection_input(op, &in_stride);
  const int8_t* first = base + ((n * op->input_height + (size_t) iy0) * op->input_width) * in_stride + c0;
  const size_t pixels = (size_t) (iy1 - iy0) * op->input_width;
  /* one range where the gaps between pixels' channel ranges are less than a line, else one per pixel */
  const size_t ranges = in_stride - count < 64 ? 1 : pixels;
  const size_t span = ranges == 1 ? (pixels - 1) * in_stride + count : count;
  for (size_t r = 0; r < ranges; r++) {
    const uintptr_t start = (uintptr_t) (first + r * in_stride), end = start + span;
    /* the range's first byte, then the first byte of each following line: nothing outside it */
    for (uintptr_t a = start; a < end; a = (a & ~(uintptr_t) 63) + 64) (void) *(const volatile int8_t*) a;
  }
}

/* Output rows [oy, oy + rows) of image n, channels [c0, c0 + count) (c0 a multiple of CT: the
   packed blocks of those channels; the kernel contract lets a call start at any block, and non-zero
   input pointers get c0 more bytes). The rows are one call: their output pixels are consecutive
   (rows of output_width pixels, output_pixel_stride apart) and so are their indirection entries, so
   the kernel runs them as one row of rows * output_width pixels and its per-call setup (per channel
   block: the header's rearrangement, the requantization constants, the interleaved weights) is paid
   once for all of them (choose_dwconv_rows). */
static void dwconv_task(void* context, size_t n, size_t oy, size_t c0, size_t rows, size_t count) {
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  size_t in_stride;
  (void) q8nn_indirection_input(op, &in_stride);
  op->dwconv(count, rows * op->output_width, ks, op->indirection + oy * op->output_width * ks, ks,
             /* the blocks of channels [0, c0) take exactly their packed size */
             (const int8_t*) op->packed_weights + q8nn_packed_dwconv_size(c0, ks, op->dwconv_channel_tile),
             op->output + ((n * op->output_height + oy) * op->output_width) * op->output_pixel_stride + c0,
             op->output_pixel_stride - count,
             n * op->input_height * op->input_width * in_stride + c0 + q8nn_indirection_delta(op), op->zero_buffer,
             &op->conv_params);
}

static void dwconv_task_touching(void* context, size_t n, size_t oy, size_t c0, size_t rows, size_t count) {
  touch_dwconv_input(context, n, oy, c0, rows, count);
  dwconv_task(context, n, oy, c0, rows, count);
}

/*
 * Channels per dwconv task. Rows are the unit of work, and the thread pool gives each thread a
 * contiguous share of them, as the gemm and im2col paths share out their rows: inside a network
 * pass a depthwise layer then reads mostly rows its own core has just written. Only where there
 * are fewer than two rows per thread are the channels cut into one strip per thread (whole CT
 * blocks), every row becoming `threads` tasks. Cutting them so for the 7x7 and 14x14 layers too
 * balanced the threads when a layer ran alone, but inside a two-thread pass each core then read
 * half of its input from the other core's cache, and MobileNetV2's 14x14 and 7x7
 * depthwise layers took 1.6-2.5x their time alone (b7.dw 0.023 ms in the pass, 0.013 with rows;
 * 0.008 alone either way; docs/performance.md, "Cross-core reads"). Outputs do not depend on
 * the split:
 * each byte is computed by one call with the same arithmetic.
 */
static size_t choose_dwconv_strip(size_t rows, size_t channels, size_t ct, size_t threads) {
  if (threads <= 1 || channels < 2 * ct || rows >= 2 * threads) return channels;
  return q8nn_round_up(q8nn_divide_round_up(channels, threads), ct);
}

/*
 * Output rows per dwconv call. A call sets up each channel block once (the header's rearrangement,
 * the requantization constants, the interleaved weights), which costs about 2.5 output pixels of
 * that block on the AVX-512 host: a 7- or 14-pixel row does not amortize it (bench_mobilenet_v2,
 * one thread: the 14x14 and 7x7 depthwise layers ran about 15% and 28% faster with rows joined).
 * A call runs its channel blocks one after another over all its rows, so the input rows it reads
 * must stay in L1 meanwhile: window_bytes, at most 32 KiB (one row is always allowed). Where blocks
 * share cache lines (channels not whole lines per block) every block's pass reads the whole pixel:
 * MobileNetV2's 96- and 144-channel stride-2 layers ran 4-8% slower with two rows joined.
 * Over the rows per task r that fit (and at most 256 output pixels per call), the choice minimizes
 * an estimated finishing time in block-pixels, max(W / T, p_max): W the work of all tasks, (2.5 +
 * r x width) per block and task, p_max that of the largest task (a strip of `strip_blocks` blocks;
 * the thread pool's stealing evens out the rest). On one thread that is the largest r that divides
 * the rows well; on two, tasks stay small enough that the threads finish together, also where
 * strips are unequal (three blocks cut 2 + 1). Deterministic; the bytes do not depend on it.
 */
static size_t choose_dwconv_rows(const struct q8nn_operator* op, size_t channels, size_t strip_blocks,
                                 size_t threads) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t rows = op->output_height, width = op->output_width, ct = op->dwconv_channel_tile;
  if (rows <= 1 || width == 0) return 1;
  const size_t blocks = op->batch_size * q8nn_divide_round_up(channels, ct);
  const size_t line_bytes = ct % 64 == 0 && channels % 64 == 0 ? ct : channels;
  const size_t row_bytes = op->input_width * line_bytes;
  const size_t kernel_rows = (size_t) (g->kernel_height - 1) * g->dilation_height + 1;
  size_t r_max = q8nn_divide_round_up(256, width);
  if (r_max > rows) r_max = rows;
  if (threads == 0) threads = 1;
  size_t best = 1, best_cost = SIZE_MAX;
  for (size_t r = 1; r <= r_max; r++) {
    const size_t window_bytes = ((r - 1) * g->stride_height + kernel_rows) * row_bytes;
    if (r > 1 && window_bytes > 32 * 1024) break;
    const size_t task = 5 + 2 * r * width; /* half block-pixels per block */
    const size_t work = blocks * q8nn_divide_round_up(rows, r) * task, largest = strip_blocks * task;
    const size_t cost = work > threads * largest ? work : threads * largest; /* T x max(W / T, p_max) */
    if (cost < best_cost) best = r, best_cost = cost;
  }
  return best;
}

static size_t conv_works(struct q8nn_operator* op, size_t threads, struct q8nn_work* works) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t m_image = op->output_height * op->output_width;
  switch (op->path) {
    case q8nn_conv_path_gemm: {
      const size_t m = op->batch_size * m_image;
      const size_t rows = op->batch_size * op->output_height;
      const int by_channels = gemm_split_channels(op, m, threads);
      if (threads > 1 && rows >= threads && !by_channels) {
        /* one part of the rows per thread (gemm_part_task) */
        const size_t part_px = q8nn_divide_round_up(rows, threads) * op->output_width;
        size_t m_tile = op->mr;
        if (gemm_many_rows(op)) {
          m_tile = q8nn_round_up(part_px, op->mr);
          if (m_tile > gemm_max_rows(op)) m_tile = gemm_max_rows(op);
        }
        const size_t nc_tile = choose_nc_tile(g->group_output_channels, op->nr,
                                              threads * g->groups * q8nn_divide_round_up(part_px, m_tile), threads);
        works[0] = q8nn_make_work(q8nn_work_4d_tile_2d, (void (*)(void)) gemm_part_task, op, threads, g->groups,
                             part_px, g->group_output_channels, m_tile, nc_tile);
        return 1;
      }
      const size_t m_tile = by_channels ? q8nn_round_up(m, op->mr) /* one row tile */
                                        : choose_gemm_m_tile(op, g->groups * q8nn_divide_round_up(m, op->mr), threads);
      const size_t nc_tile = choose_nc_tile(g->group_output_channels, op->nr,
                                            g->groups * q8nn_divide_round_up(m, m_tile), threads);
      works[0] = q8nn_make_work(q8nn_work_3d_tile_2d, (void (*)(void)) gemm_task, op, 1, g->groups,
                           m, g->group_output_channels, m_tile, nc_tile);
      return 1;
    }
    case q8nn_conv_path_igemm: {
      const size_t nc_tile =
          choose_nc_tile(g->group_output_channels, op->nr,
                         op->batch_size * g->groups * q8nn_divide_round_up(m_image, op->mr), threads);
      works[0] = q8nn_make_work(q8nn_work_4d_tile_2d, (void (*)(void)) igemm_task, op,
                           op->batch_size, g->groups, m_image, g->group_output_channels, op->mr, nc_tile);
      return 1;
    }
    case q8nn_conv_path_im2col: {
      const size_t m_tile = im2col_tile_rows(op);
      const size_t nc_tile = choose_nc_tile(g->group_output_channels, op->nr,
                                            op->batch_size * q8nn_divide_round_up(m_image, m_tile), threads);
      works[0] = q8nn_make_work(q8nn_work_3d_tile_2d, (void (*)(void)) im2col_task, op, 1,
                           op->batch_size, m_image, g->group_output_channels, m_tile, nc_tile);
      return 1;
    }
    case q8nn_conv_path_dwconv: {
      size_t count = 0;
      if (g->group_output_channels > 1) {
        works[count++] = q8nn_make_work(q8nn_work_1d, (void (*)(void)) expand_task, op, 1, 1, 1,
                                   op->batch_size * op->input_height, 1, 1);
      }
      const size_t channels = g->groups * g->group_output_channels;
      const size_t strip =
          choose_dwconv_strip(op->batch_size * op->output_height, channels, op->dwconv_channel_tile, threads);
      const size_t rows =
          choose_dwconv_rows(op, channels, q8nn_divide_round_up(strip, op->dwconv_channel_tile), threads);
      works[count++] = q8nn_make_work(q8nn_work_3d_tile_2d,
                                 threads > 1 ? (void (*)(void)) dwconv_task_touching : (void (*)(void)) dwconv_task,
                                 op, 1, op->batch_size, op->output_height, channels, rows, strip);
      return count;
    }
  }
  return 0;
}

enum q8nn_status q8nn_run_conv_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec) {
  struct q8nn_work works[Q8NN_MAX_OPERATOR_WORKS];
  const size_t count = q8nn_operator_works(op, q8nn_exec_threads(exec), 0, works);
  for (size_t i = 0; i < count; i++) q8nn_exec_work(&works[i], exec);
  return q8nn_status_success;
}

static void add_task(void* context, size_t row, size_t i0, size_t count) {
  const struct q8nn_operator* op = context;
  size_t a_off = 0, b_off = 0, y_off = 0, r = row;
  /* row 0 (every add whose operands are one run) starts at offset 0: no divisions */
  for (size_t d = Q8NN_MAX_DIMS - 1; r != 0 && d-- > 0;) {
    const size_t idx = r % op->add_outer_shape[d];
    r /= op->add_outer_shape[d];
    a_off += idx * op->add_a_stride[d];
    b_off += idx * op->add_b_stride[d];
    y_off += idx * op->add_y_stride[d];
  }
  int8_t* y = op->add_y + y_off + i0;
  const int8_t *a = op->add_a + a_off, *b = op->add_b + b_off;
  switch (op->add_inner_mode) {
    case 0: op->vadd(count, a + i0, b + i0, y, &op->add_params); break;
    case 1: op->vaddc(count, a + i0, b, y, &op->add_params); break;
    default: op->vaddc(count, b + i0, a, y, &op->add_params_swapped); break;
  }
}

/* Adds of fewer output bytes than this run on the calling thread: at 20-60 GB/s they take a few
   microseconds, about what waking the pool's threads costs (bench_mobilenet_v2's 2-thread adds
   were slower than its 1-thread ones). The bytes do not depend on the split. */
#define Q8NN_ADD_MIN_PARALLEL_BYTES ((size_t) 1 << 17)

/* Rows of a dense add's output for its parts: every dimension but the last two (an NHWC tensor's
   batch x height), each row_bytes long. */
static size_t add_rows(const struct q8nn_operator* op, size_t* row_bytes) {
  *row_bytes = op->add_out_shape[Q8NN_MAX_DIMS - 2] * op->add_out_shape[Q8NN_MAX_DIMS - 1];
  return op->add_inner / *row_bytes;
}

/* Bytes [*begin, *end) of every operand and the output in add part `part` of `parts`. */
static void add_part_bytes(const struct q8nn_operator* op, size_t part, size_t parts, size_t* begin, size_t* end) {
  size_t row_bytes;
  const size_t rows = add_rows(op, &row_bytes);
  *begin = part_first_row(part, rows, parts) * row_bytes;
  *end = part_first_row(part + 1, rows, parts) * row_bytes;
}

/* Part `part` of op->plan_threads (one per thread): the output rows [ceil(part x R / parts), ceil((part + 1) x R / parts))
   of a dense add (both operands and the output one run), as a row-parted gemm cuts its rows. */
static void add_part_task(void* context, size_t part) {
  const struct q8nn_operator* op = context;
  size_t begin, end;
  add_part_bytes(op, part, op->plan_threads, &begin, &end);
  if (end > begin) add_task(context, 0, begin, end - begin);
}

/* in_region: inside q8nn_run_operators' parallel region no thread has to be woken, so small adds
   are split like the others; a dense add of at least one row per thread there takes one part of
   its rows per thread (add_part_task), so that it reads the rows a row-parted layer before it wrote
   on the same thread and the region can drop the barrier between them (q8nn_work_needs_barrier). */
static size_t add_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const int caller_only = !in_region && op->add_inner * op->add_outer_count < Q8NN_ADD_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  size_t row_bytes;
  if (in_region && threads > 1 && op->add_inner_mode == 0 && op->add_outer_count == 1 &&
      add_rows(op, &row_bytes) >= threads) {
    works[0] = q8nn_make_work(q8nn_work_1d, (void (*)(void)) add_part_task, op, 1, 1, 1, threads, 1, 1);
    return 1;
  }
  size_t tile = op->add_inner;
  /* few rows: split the inner run so every thread gets work (64-byte multiples) */
  if (threads > 1 && op->add_outer_count < threads * 4 && op->add_inner > 4096) {
    tile = q8nn_max_sz(4096, q8nn_round_up(op->add_inner * op->add_outer_count / (threads * 4), 64));
  }
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) add_task, op, 1, 1,
                       op->add_outer_count, op->add_inner, 1, tile);
  works[0].caller_only = caller_only;
  return 1;
}

enum q8nn_status q8nn_run_add_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec) {
  struct q8nn_work works[Q8NN_MAX_OPERATOR_WORKS];
  q8nn_operator_works(op, q8nn_exec_threads(exec), 0, works);
  q8nn_exec_work(&works[0], exec);
  return q8nn_status_success;
}

size_t q8nn_operator_works(struct q8nn_operator* op, size_t threads, int in_region,
                           struct q8nn_work works[Q8NN_MAX_OPERATOR_WORKS]) {
  if (op->plan_threads != threads || op->plan_in_region != in_region) {
    op->plan_count = op->type == q8nn_operator_type_add     ? add_works(op, threads, in_region, op->plan)
                     : op->cls != NULL ? op->cls->works(op, threads, in_region, op->plan)
                                                            : conv_works(op, threads, op->plan);
    op->plan_threads = threads;
    op->plan_in_region = in_region;
  }
  memcpy(works, op->plan, op->plan_count * sizeof(*works));
  return op->plan_count;
}

/* A byte range [begin, end); empty where begin == end. */
struct q8nn_span {
  uintptr_t begin, end;
};

static struct q8nn_span span_of(const int8_t* base, size_t begin, size_t end) {
  const struct q8nn_span s = {(uintptr_t) base + begin, (uintptr_t) base + end};
  return s;
}

/* Pixels [p0, p1) of a tensor `stride` bytes a pixel, of which `bytes` are used. */
static struct q8nn_span pixel_span(const int8_t* base, size_t p0, size_t p1, size_t stride, size_t bytes) {
  return p1 > p0 ? span_of(base, p0 * stride, (p1 - 1) * stride + bytes) : span_of(base, 0, 0);
}

static int spans_overlap(struct q8nn_span a, struct q8nn_span b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

static int is_dwconv_fn(const struct q8nn_work* w) {
  return w->fn == (void (*)(void)) dwconv_task || w->fn == (void (*)(void)) dwconv_task_touching;
}

/* The bytes a work writes. */
static struct q8nn_span work_output(const struct q8nn_work* w) {
  const struct q8nn_operator* op = w->context;
  if (op->cls != NULL) {
    struct q8nn_span s;
    op->cls->span(op, 1, &s.begin, &s.end);
    return s;
  }
  if (op->type == q8nn_operator_type_add) {
    size_t total = 1;
    for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) total *= op->add_out_shape[i];
    return span_of(op->add_y, 0, total);
  }
  const struct q8nn_conv_geometry* g = &op->geometry;
  if (w->fn == (void (*)(void)) expand_task) {
    return span_of(op->expanded_input, 0,
                   op->batch_size * op->input_height * op->input_width * g->groups * g->group_output_channels);
  }
  return pixel_span(op->output, 0, op->batch_size * op->output_height * op->output_width, op->output_pixel_stride,
                    g->groups * g->group_output_channels);
}

/* The bytes a work reads, one span per input; returns their number (at most 2). */
static size_t work_inputs(const struct q8nn_work* w, struct q8nn_span spans[2]) {
  const struct q8nn_operator* op = w->context;
  if (op->cls != NULL) {
    op->cls->span(op, 0, &spans[0].begin, &spans[0].end);
    return 1;
  }
  if (op->type == q8nn_operator_type_add) {
    size_t a_total = 1, b_total = 1;
    for (size_t i = 0; i < Q8NN_MAX_DIMS; i++) a_total *= op->add_a_shape[i], b_total *= op->add_b_shape[i];
    spans[0] = span_of(op->add_a, 0, a_total);
    spans[1] = span_of(op->add_b, 0, b_total);
    return 2;
  }
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t pixels = op->batch_size * op->input_height * op->input_width;
  if (is_dwconv_fn(w)) {
    size_t stride;
    const int8_t* base = q8nn_indirection_input(op, &stride);
    spans[0] = pixel_span(base, 0, pixels, stride, g->groups * g->group_output_channels);
    return 1;
  }
  spans[0] = pixel_span(op->input, 0, pixels, op->input_pixel_stride, g->groups * g->group_input_channels);
  return 1;
}

/* The bytes share p (of `threads`, q8nn_work_share) of a work writes (input < 0) or reads of input
   `input`; 0 where the work is not cut so that a share's bytes are known: row-parted gemms and
   adds, and the output of a depthwise layer with one strip of channels (its reads cross rows). */
static int work_share_span(const struct q8nn_work* w, size_t threads, size_t p, int input, struct q8nn_span* span) {
  const struct q8nn_operator* op = w->context;
  if (w->fn == (void (*)(void)) add_part_task) {
    if (w->range[3] != threads) return 0;
    size_t begin, end;
    add_part_bytes(op, p, threads, &begin, &end);
    *span = span_of(input < 0 ? op->add_y : input == 0 ? op->add_a : op->add_b, begin, end);
    return 1;
  }
  const struct q8nn_conv_geometry* g = &op->geometry;
  if (w->fn == (void (*)(void)) gemm_part_task) {
    if (w->range[0] != threads) return 0; /* the parts are the shares: part-first numbering */
    size_t p0, p1;
    gemm_part_pixels(op, p, threads, &p0, &p1);
    *span = input < 0 ? pixel_span(op->output, p0, p1, op->output_pixel_stride, g->groups * g->group_output_channels)
                      : pixel_span(op->input, p0, p1, op->input_pixel_stride, g->groups * g->group_input_channels);
    return 1;
  }
  if (is_dwconv_fn(w) && input < 0 && w->tiles[0] == 1 && w->tiles[3] == 1) {
    /* tile t: image t / T2, rows from (t % T2) x tile[2] */
    size_t start, length;
    q8nn_work_share(q8nn_work_tiles(w), threads, p, &start, &length);
    if (length == 0) {
      *span = span_of(op->output, 0, 0);
      return 1;
    }
    const size_t t2 = w->tiles[2], oh = op->output_height, last = start + length - 1;
    const size_t r0 = (start / t2) * oh + (start % t2) * w->tile[2];
    const size_t r1 = (last / t2) * oh + q8nn_min_sz(((last % t2) + 1) * w->tile[2], oh);
    *span = pixel_span(op->output, r0 * op->output_width, r1 * op->output_width, op->output_pixel_stride,
                       g->groups * g->group_output_channels);
    return 1;
  }
  return 0;
}

int q8nn_work_needs_barrier(const struct q8nn_work* before, const struct q8nn_work* after, size_t threads) {
  struct q8nn_span before_in[2], after_in[2];
  const size_t nb = work_inputs(before, before_in), na = work_inputs(after, after_in);
  const struct q8nn_span before_out = work_output(before), after_out = work_output(after);
  /* `before` may still run on another thread: `after` must not write what it reads or writes */
  if (spans_overlap(after_out, before_out)) return 1;
  for (size_t i = 0; i < nb; i++) {
    if (spans_overlap(after_out, before_in[i])) return 1;
  }
  /* what `after` reads of `before`'s output, share by share */
  for (size_t i = 0; i < na; i++) {
    if (!spans_overlap(after_in[i], before_out)) continue;
    for (size_t p = 0; p < threads; p++) {
      struct q8nn_span r, w;
      if (!work_share_span(after, threads, p, (int) i, &r) || !work_share_span(before, threads, p, -1, &w)) return 1;
      if (r.begin < r.end && (r.begin < w.begin || r.end > w.end)) return 1;
    }
  }
  return 0;
}

static enum q8nn_status run_operator(q8nn_operator_t op, const struct q8nn_exec* exec, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "operator is NULL");
  if (!op->is_setup) return q8nn_log_error(q8nn_status_invalid_state, caller, "operator was not set up");
  if (op->backend != NULL) return q8nn_backend_run(op, exec);
  return q8nn_run_cpu(op, exec);
}

enum q8nn_status q8nn_run_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec) {
  if (op->type == q8nn_operator_type_add) return q8nn_run_add_cpu(op, exec);
  /* every other type runs its loops in order, as a convolution does */
  return q8nn_run_conv_cpu(op, exec);
}

enum q8nn_status q8nn_run_operator(q8nn_operator_t op, pthreadpool_t threadpool) {
  const struct q8nn_exec exec = q8nn_exec_pool(threadpool);
  return run_operator(op, &exec, __func__);
}

enum q8nn_status q8nn_run_operator_on(q8nn_operator_t op, const struct q8nn_threadpool* pool) {
  if (pool != NULL && (pool->threads_count == NULL || pool->parallelize_1d_tile_1d == NULL)) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "the pool's threads_count and parallelize_1d_tile_1d must be set");
  }
  const struct q8nn_exec exec = {NULL, pool};
  return run_operator(op, &exec, __func__);
}

const char* q8nn_operator_kernel_name(q8nn_operator_t op) { return op != NULL ? op->kernel_name : ""; }
