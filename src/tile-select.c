/*
 * Shape-aware choice of the gemm / igemm tile. The kernel lists stay the only place that says which
 * kernels exist and which ISA tier is best (the first active line that implements the
 * requantization); this file only chooses, inside that tier, between the tiles of that ISA, from a
 * cost model evaluated on the layer's shape. No timing happens here: the choice is a pure function
 * of (list, active ISA, rounding, M, N, K, taps), so the same operator always gets the same kernel.
 *
 * Cost of running line e on an M x N x K problem with `taps` kernel taps:
 *     cost(e) = round_up(M, MR) * round_up(N, G) * round_up(K, KR) * taps / rate(e)
 * i.e. the MACs the kernel really executes (rows past mr are computed on an alias of the last row,
 * output channels are computed in granules of G, K is padded to KR) divided by the tile's measured
 * inner-loop rate relative to the ISA's best tile. rate and G come from the table below, one row per
 * (ISA bits, MR, NR, KR); a tier whose first line has no row keeps the list order (no choice).
 * The smallest cost wins; ties go to the earlier line, so list order still breaks every tie.
 *
 * Create time knows N, K and taps but not M (the input size comes with setup), and the packed
 * weights depend on (NR, KR, packing function, input offset): q8nn_choose_*_tile(m = 0) compares
 * the tiles without the M padding and fixes that packing family; setup then re-chooses MR among the
 * lines of the same family (same ISA bits, NR, KR, pack, input offset) with the real M.
 */
#include "dispatch.h"

/* Relative inner-loop rates (per mille of the ISA's best tile) and N granules. Derived from
   bench_ukernels (`--benchmark_filter='gemm/.*<isa>'`, six MobileNetV2 1x1 shapes): rate = 1000 /
   geometric mean over the shapes of time(tile) / time(best tile); see docs/performance.md, "Tile
   choice". AVX-512 VNNI: seven shapes, all three requantizations, relative to 8x32c4.
   G: the AVX-512 kernels run only the 16-channel vectors a last block needs; the AVX2 ones compute
   the whole NR block. */
struct tile_rate {
  uint32_t isa, mr, nr, kr;
  uint32_t rate, n_granule;
};
static const struct tile_rate tile_rates[] = {
#if Q8NN_ARCH_X86
    {Q8NN_ISA_X86_AVX512VNNI, 8, 32, 4, 1000, 16},
    {Q8NN_ISA_X86_AVX512VNNI, 4, 64, 4, 890, 16},
    {Q8NN_ISA_X86_AVX512VNNI, 6, 64, 4, 925, 16},
    {Q8NN_ISA_X86_AVX512VNNI, 12, 32, 4, 990, 16},
    /* 0.98 of 8x32c4 on the six shapes where neither pads M (four runs, three requantizations); it wins where it saves more than 2% of 8x32c4's rows (M = 49) */
    {Q8NN_ISA_X86_AVX512VNNI, 7, 32, 4, 980, 16},
    /* the one- and two-row tiles: geometric means over the ten MobileNetV2 shapes of
       bench_ukernels, medians of three (AMD Zen 4, rdouble), relative to 8x32c4 per executed MAC.
       They win for one to four rows, where the others compute aliased rows beside each weight
       vector they load (4x64c4 measured 932 in the same run). */
    {Q8NN_ISA_X86_AVX512VNNI, 1, 32, 4, 386, 16},
    {Q8NN_ISA_X86_AVX512VNNI, 2, 32, 4, 611, 16},
    {Q8NN_ISA_X86_AVX512VNNI, 1, 64, 4, 396, 16},
    /* AVX-VNNI: the Intel host running the ymm path, three runs of the eight
       MobileNetV2 shapes, three requantizations, relative to 6x16c4; the N = 24 shape, where the
       16-channel tiles compute 32 channels, left out of the means (the model counts that padding).
       6x16c4 was the fastest on the other seven in every run. */
    {Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, 6, 16, 4, 1000, 16},
    {Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, 4, 16, 4, 917, 16},
    {Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, 8, 8, 4, 855, 8},
    /* 1x16c4: 2.2x 6x16c4's time per executed MAC on the same shapes (AMD Zen 4, AVX-VNNI) */
    {Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, 1, 16, 4, 450, 16},
    /* AVX2: two runs of the six shapes (both roundings) put the three tiles within noise of each
       other (+-15% either way), so they share one rate and the padding decides. */
    {Q8NN_ISA_X86_AVX2, 4, 8, 8, 1000, 8},
    {Q8NN_ISA_X86_AVX2, 3, 8, 8, 1000, 8},
    {Q8NN_ISA_X86_AVX2, 2, 16, 8, 1000, 16},
#endif
    {0, 0, 0, 0, 0, 0},
};

/* What the choice needs of a list line, whichever family it belongs to. */
struct tile_view {
  uint32_t isa, mr, nr, kr;
  int32_t input_offset;
  q8nn_pack_gemm_fn pack;
  int implements; /* fn[rounding] != NULL */
};

static const struct tile_rate* find_rate(const struct tile_view* v) {
  for (const struct tile_rate* t = tile_rates; t->rate != 0; t++) {
    if (t->isa == v->isa && t->mr == v->mr && t->nr == v->nr && t->kr == v->kr) return t;
  }
  return NULL;
}

static double tile_cost(const struct tile_view* v, const struct tile_rate* t, size_t m, size_t n, size_t k,
                        size_t taps) {
  const double rows = m == 0 ? 1.0 : (double) q8nn_round_up(m, v->mr) / (double) m;
  return rows * (double) q8nn_round_up(n, t->n_granule) * (double) q8nn_round_up(k, v->kr) * (double) taps /
         (double) t->rate;
}

static int same_family(const struct tile_view* a, const struct tile_view* b) {
  return a->isa == b->isa && a->nr == b->nr && a->kr == b->kr && a->pack == b->pack &&
         a->input_offset == b->input_offset;
}

/* Index of the chosen line. first: the tier's line (create: the first active line; setup: the line
   chosen at create). family: 0 = any line of first's ISA bits, 1 = only first's packing family. */
static size_t choose(struct tile_view (*view)(size_t, int), size_t count, size_t first, int rounding, int family,
                     size_t m, size_t n, size_t k, size_t taps) {
  const struct tile_view f = view(first, rounding);
  if (find_rate(&f) == NULL) return first;
  size_t best = count;
  double best_cost = 0.0;
  for (size_t i = 0; i < count; i++) {
    const struct tile_view v = view(i, rounding);
    if (!v.implements || v.isa != f.isa || (family && !same_family(&v, &f))) continue;
    const struct tile_rate* t = find_rate(&v);
    if (t == NULL) continue;
    const double c = tile_cost(&v, t, m, n, k, taps);
    /* lower by more than rounding: the earlier line keeps a tie (e.g. 8x32c4 at M = 196 pads 4 rows,
       200/196 / 1000 = 1/980 = 7x32c4's cost, equal up to the last bit of the double) */
    if (best == count || c < best_cost * (1.0 - 1e-9)) {
      best = i;
      best_cost = c;
    }
  }
  return best;
}

static struct tile_view gemm_view(size_t i, int rounding) {
  const struct q8nn_gemm_entry* e = &q8nn_gemm_list[i];
  return (struct tile_view){e->isa, e->mr, e->nr, e->kr, e->input_offset, e->pack, e->fn[rounding] != NULL};
}

static struct tile_view igemm_view(size_t i, int rounding) {
  const struct q8nn_igemm_entry* e = &q8nn_igemm_list[i];
  return (struct tile_view){e->isa, e->mr, e->nr, e->kr, e->input_offset, e->pack, e->fn[rounding] != NULL};
}

const struct q8nn_gemm_entry* q8nn_choose_gemm_tile(const struct q8nn_gemm_entry* first, int rounding, int family,
                                                    size_t m, size_t n, size_t k) {
  const size_t i = choose(gemm_view, q8nn_gemm_list_size, (size_t) (first - q8nn_gemm_list), rounding, family, m, n,
                          k, 1);
  return &q8nn_gemm_list[i];
}

const struct q8nn_igemm_entry* q8nn_choose_igemm_tile(const struct q8nn_igemm_entry* first, int rounding,
                                                      int family, size_t m, size_t n, size_t k, size_t taps) {
  const size_t i = choose(igemm_view, q8nn_igemm_list_size, (size_t) (first - q8nn_igemm_list), rounding, family, m,
                          n, k, taps);
  return &q8nn_igemm_list[i];
}
