/*
** forest.h — a capture as a forest of counted nodes, the shape every comparison of call time
** reads (profile_diff, profile_sandwich): its sampled call tree when it has sampled stacks, else
** the nesting of its complete slices on threads' own tracks (or of its async spans), else its
** records (timer records, xprof tool records). Model layer: it reads the capture and the track
** model (tracks.h) and names frames as stacks.h does.
**
** A node has a parent (-1: a root; -2: out of the tree, never reached), its own self time, its
** inclusive time and its own count:
**   samples  a frame (a record); self and count = the selected samples whose leaf it is (their
**            time, or their summed weight when the samples carry no time); inclusive = self
**            until ps_forest_subtree sums the subtree into it
**   slices   an event row; a counted slice: self = its duration less its child slices',
**            inclusive = its duration, count 1; any other row counts nothing
**   records  a record: its time_ns, self_ns (time_ns without a tree) and Count
** Only selected rows count (xRow: "where" filters, step windows). Linear in rows + records.
*/
#ifndef PS_FOREST_H
#define PS_FOREST_H

#include "capture.h"

#define PS_FOREST_NONE    0     /* nothing to count */
#define PS_FOREST_SAMPLES 1     /* the nodes are the call tree's frames (records) */
#define PS_FOREST_SLICES  2     /* the nodes are the event rows */
#define PS_FOREST_RECORDS 3     /* the nodes are records with their own figures */

typedef struct PsForestNode {
  int32_t parent;
  uint8_t bCounted;           /* a node that counts: a frame, a selected slice, a record */
  int64_t self, tot, cnt;
} PsForestNode;

typedef struct PsForest {
  int eKind;                  /* PS_FOREST_* */
  size_t n;                   /* nodes: cap->nRec (samples, records) or cap->ev.n (slices) */
  PsForestNode *a;
  size_t nSample, nSlice;     /* sample rows with a stack; slices of the kind asked for */
  int bTime;                  /* the samples carry time (else weights are counted) */
  uint8_t *aRow;              /* per event row: 1 a sample with a stack, 2 a slice of the kind
                              ** asked for, 0 else (NULL when the capture has no rows) */
} PsForest;

/* Builds f for cap: bAsync 1 takes the async spans (on process, global and thread async
** tracks) instead of the threads' slices; xRow(pArg, r) says whether event row r counts (NULL:
** every row), asked in ascending r. PS_OK or PS_NOMEM; ps_forest_free frees f either way. */
int ps_forest_build(PsCapture *cap, int bAsync, int (*xRow)(void*, size_t), void *pArg, PsForest *f);
void ps_forest_free(PsForest *f);

/* The forest walked depth-first from its roots (a node with parent out of range or itself, or in
** a parent cycle, is never reached): aOrder[0..*pnOrder) the reached nodes in pre-order, a parent
** before its children (children in node order); aTop[i] 1 when aKey[i] >= 0 and no ancestor of
** node i has the same key (its outermost occurrence; aKey NULL: none). nKey bounds the keys. The
** arrays hold f->n entries. xInterrupt (may be NULL) is asked every 65536 nodes. PS_OK, PS_NOMEM
** or PS_INTERRUPT. */
int ps_forest_walk(const PsForest *f, const int32_t *aKey, size_t nKey, int32_t *aOrder, uint8_t *aTop,
                   size_t *pnOrder, int (*xInterrupt)(void*), void *pI);

/* The inclusive time of every reached node made the sum over its subtree (tot) and aSubCnt[i]
** the subtree's count (aOrder from ps_forest_walk; sampled stacks, where a frame's inclusive
** time is its samples'). Sums saturate at INT64_MAX. */
void ps_forest_subtree(PsForest *f, const int32_t *aOrder, size_t nOrder, int64_t *aSubCnt);

/* The label of node i, for key: PS_FOREST_NAME the name (a frame's as ps_frame_label gives
** it), PS_FOREST_CATEGORY the category (a frame's module or url, a record's category else its
** group), PS_FOREST_THREAD the thread (ps_thread_label for a row; a record's "thread N"). Into
** buf when it must be made; *pn its length. */
#define PS_FOREST_NAME     0
#define PS_FOREST_CATEGORY 1
#define PS_FOREST_THREAD   2
const char *ps_forest_label(const PsCapture *cap, const PsForest *f, size_t i, int eWhat, char *buf,
                            size_t nBuf, size_t *pn);


/* Whether node i takes part in a walk of its kind: always, but in a forest of slices, where only
** the slices of the kind asked for do (f->aRow 2; the other rows are not the thread's work). */
static inline int ps_forest_in_kind(const PsForest *f, size_t i){
  return f->eKind!=PS_FOREST_SLICES || f->aRow[i]==2;
}

/* The occurrences of one name in a capture's forest, what a sandwich view starts from
** (profile_sandwich, the flame graph's "sandwich"): f built (bAsync as ps_forest_build);
** aKey[i] = 0 for a counted node in kind whose label (ps_forest_label, PS_FOREST_NAME) is
** zFn[0..nFn), else -1; when some node is, the walk from the roots (ps_forest_walk:
** aOrder[0..nOrder), aTop[i] 1 at an outermost occurrence). bAny: the walk reached an occurrence
** (a named node out of the tree, never reached, is none). The arrays hold f.n entries. */
typedef struct PsOccur {
  PsForest f;
  int32_t *aKey, *aOrder;
  int32_t *aUp;               /* per reached node: its nearest ancestor in kind (ps_forest_in_kind),
                              ** -1 for none: the callers' climb in one step a caller */
  uint8_t *aTop;
  size_t nOrder;
  int bAny;
} PsOccur;
/* PS_OK, PS_NOMEM or PS_INTERRUPT (xInterrupt, may be NULL, as ps_forest_walk asks it);
** ps_occur_free frees o either way. */
int ps_forest_occurrences(PsCapture *cap, int bAsync, const char *zFn, size_t nFn, PsOccur *o,
                          int (*xInterrupt)(void*), void *pI);
void ps_occur_free(PsOccur *o);

#endif
