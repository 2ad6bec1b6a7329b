/* muon_zero.h - part of the public C API (included by muon.h): the ZeRO partition model
 * (core/zero_layout.c).
 *
 * A layout says where each parameter matrix sits in DeepSpeed's flat buffer and which data
 * parallel rank owns which of its elements (MUON_FACTS.md 1.6).
 *
 *   Stages 1 and 2: the parameters lie back to back in one flat buffer, in the given order
 *     or sorted by numel descending (stable), each flattened ROW-major as torch does; the
 *     total is padded up to a multiple of align_factor * world (DeepSpeed's
 *     nccl_start_alignment_factor); rank r owns [r S, (r + 1) S) with S = padded_total / world.
 *   Stage 3: each parameter is padded on its own to chunk * world elements, chunk =
 *     ceil (numel / world), and rank r owns elements [r chunk, (r + 1) chunk) of it (zero pad
 *     at the tail).  The "flat buffer" of stage 3 is the parameters back to back, each padded
 *     that way; rank r's partition is its chunk of every parameter, in slot order, so
 *     S = sum of the chunks.  align_factor is not used at stage 3.
 *
 * Conventions: ranks, element offsets and row indices are 0-based, ranges are half-open
 * [start, stop) (torch / DeepSpeed); parameter indices are 0-based here (1-based in Octave).
 * A rank's partition is [r S, (r + 1) S) of the "partitioned buffer": the flat buffer itself at
 * stages 1 and 2, the ranks' partitions laid out rank after rank at stage 3.
 *
 * Usage
 *   size_t rows[] = {3, 2, 4}, cols[] = {4, 5, 4};
 *   muon_zero_layout_opts o;  muon_zero_layout_opts_default (&o);
 *   muon_zero_layout *L = NULL;
 *   if (muon_zero_layout_create (ctx, 3, rows, cols, 2, &o, &L) == MUON_OK)
 *     for (int r = 0; r < L->world; r++)
 *       for (size_t k = 0; k < L->ranks[r].npieces; k++)
 *         use (L->pieces[L->ranks[r].first_piece + k]);
 *   muon_zero_layout_destroy (&L);
 */
#ifndef MUON_ZERO_H
#define MUON_ZERO_H

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_ZERO_MAX_WORLD 1048576   // largest world size accepted
#define MUON_ZERO_MAX_ALIGN 1048576   // largest align_factor accepted

// The order of the parameters in the flat buffer: as given, or a stable sort by numel,
// largest first (DeepSpeed's Muon).
#define MUON_ZERO_ORDER_LIST(X)                                                 \
  X (MUON_ZERO_ORDER_GIVEN,     0, "given")                                     \
  X (MUON_ZERO_ORDER_SIZE_DESC, 1, "size_desc")
typedef enum { MUON_ZERO_ORDER_LIST (MUON_ENUM_ITEM) } muon_zero_order;

typedef struct {
  int stage;              // 1, 2 (default) or 3
  int align_factor;       // >= 1, default 2 (nccl_start_alignment_factor); stages 1 and 2
  muon_zero_order order;  // default MUON_ZERO_ORDER_GIVEN
} muon_zero_layout_opts;

// One parameter (matrix), in input order.
typedef struct {
  size_t rows, cols, numel;   // numel = rows * cols
  size_t offset;              // first element in the flat buffer (0-based)
  size_t padded;              // elements it occupies there: numel (stage 1/2), chunk*world (3)
  size_t chunk;               // stage 3: ceil (numel / world) per rank; 0 at stages 1 and 2
  size_t slot;                // position in the flat order (0-based): order[slot] == index
  int first_owner, last_owner;  // owners are the ranks first_owner..last_owner (contiguous)
  int straddles;              // 1 when it has more than one owner (crosses a partition cut)
} muon_zero_param;

// One rank's piece of one parameter: the elements [local_start, local_stop) of the
// row-major parameter, which sit at flat_start.. of the flat buffer and part_start.. of the
// rank's partition.  Rows [row_start, row_stop) are touched; first_partial / last_partial say
// the first / last of them is owned only in part (both 0: the piece is whole rows).
typedef struct {
  int rank;
  size_t param;               // 0-based index (input order)
  size_t local_start, local_stop;
  size_t flat_start;
  size_t part_start;
  size_t row_start, row_stop;
  int first_partial, last_partial;
} muon_zero_piece;

// One rank: its partition [start, stop) = [r S, (r + 1) S) of the partitioned buffer, how many
// of those elements are padding, and its pieces pieces[first_piece .. first_piece + npieces),
// in the order they sit in its partition.
typedef struct {
  size_t start, stop;
  size_t padding;
  size_t first_piece, npieces;
} muon_zero_rank;

typedef struct {
  int stage, world, align_factor;
  muon_zero_order order_mode;
  size_t nparams;
  muon_zero_param *params;    // nparams, input order
  size_t *order;              // nparams: order[slot] = index of the parameter at that slot
  size_t total;               // sum of numel
  size_t padded_total;        // flat buffer length with padding (= world * partition_size)
  size_t partition_size;      // S, elements per rank
  size_t padding;             // padded_total - total
  muon_zero_rank *ranks;      // world
  size_t npieces;
  muon_zero_piece *pieces;    // npieces, rank by rank
} muon_zero_layout;

void muon_zero_layout_opts_default (muon_zero_layout_opts *o);

// "given" | "size_desc" -> enum.  [out] *order.  MUON_ERR_BADARG for other names.
MUON_DECLARE_NAMES (muon_zero_order, muon_zero_order)

// Builds the layout of nparams matrices rows[p] x cols[p] over world ranks.
// [in] rows, cols: nparams sizes, each >= 1.  [in] o: options (NULL = defaults).
// [out] *L: a new layout, freed with muon_zero_layout_destroy (NULL on error).
// Errors: NULLPTR (ctx, L, rows, cols), BADSHAPE (nparams == 0, a size 0, a size overflow),
// BADARG (world, stage, align_factor or order out of range), NOMEM.
muon_status muon_zero_layout_create (muon_ctx *ctx, size_t nparams, const size_t *rows,
                                     const size_t *cols, int world,
                                     const muon_zero_layout_opts *o, muon_zero_layout **L);
// [in,out] *L: frees it and sets *L = NULL (NULL is fine).
muon_status muon_zero_layout_destroy (muon_zero_layout **L);

// Rank r's part of parameter p as local elements [*start, *stop), clamped to [0, numel]:
// over r = 0..world-1 the ranges tile [0, numel) in order, and a rank owning nothing of p
// gets an empty range (at 0 before the owners, at numel after them).  [out] start, stop.
// Errors: NULLPTR, BADARG (p or r out of range).
muon_status muon_zero_layout_range (muon_ctx *ctx, const muon_zero_layout *L, size_t p, int r,
                                    size_t *start, size_t *stop);

#ifdef __cplusplus
}
#endif
#endif
