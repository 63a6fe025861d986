/*
** flame.h — interactive SVG flame graphs (flame.c), without SQLite: of a capture's parent tree,
** samples or jobs (ps_flame_svg, ps_flame_svg_opt), or of folded stacks given row by row
** (PsFlameFolded: what profile_flamegraph_folded draws from a query's rows).
*/
#ifndef PS_FLAME_H
#define PS_FLAME_H

#include "../model/capture.h"
#include "../wire/json.h"

/* The first level of the graph (eGroup), named from the track model (ext/model/tracks.h): a
** thread is "process / thread" — the process name, else "pid N", left out when the pid is NULL
** (a .cpuprofile's or folded file's only thread); the thread name, else "tid N", left out when
** the tid is NULL (then the process part alone, or "main"); two groups of one label get
** " (tid N)" appended. A CPU's scheduling track (PS_TK_CPU) is "CPU n". Async tracks
** (PS_TK_*_ASYNC) are drawn only with PsFlameOpt.bAsync; counter and instant tracks never. */
#define PS_FLAME_MERGED 0   /* none: the roots themselves */
#define PS_FLAME_THREAD 1   /* one frame per thread (and CPU track); async slices (bAsync) under
                            ** the thread of their first event */
#define PS_FLAME_TRACK  2   /* one frame per thread track and CPU track; async slices (bAsync)
                            ** in one frame per async kind: "async (process)", "async (global)",
                            ** "async (thread)" */
/* Timings records have no threads or tracks: THREAD and TRACK both group them by category.
** A job report is always drawn category -> lane -> job name. */

/* What a frame's width measures (eWeight): */
#define PS_FLAME_W_DUR     0   /* inclusive time: the self time of everything under the frame */
#define PS_FLAME_W_SELF    1   /* self time, drawn reversed (flamegraph.pl --reverse): under each
                               ** group the frame the time was spent in, below it its callers */
#define PS_FLAME_W_SAMPLES 2   /* counts: samples (their weights), slices and jobs 1 each, timer
                               ** records their Count */

/* What a capture's graph is drawn from (ps_flame_source): */
#define PS_FLAME_SRC_NONE    0   /* nothing to draw */
#define PS_FLAME_SRC_SAMPLES 1   /* stack samples (ext/model/stacks.h) */
#define PS_FLAME_SRC_RECORDS 2   /* timer/statistics records by ParentRecordId, or stack frames */
#define PS_FLAME_SRC_SLICES  3   /* slices by parent_id */
#define PS_FLAME_SRC_JOBS    4   /* newengine jobs: category -> lane -> name, width = elapsed_ms */
int ps_flame_source(const PsCapture *cap);

/* Deepest caller chain a reversed (PS_FLAME_W_SELF) graph draws: callers further up are merged
** into one frame named "(deeper callers)". Bounds its cost to this many frames per stack. */
#define PS_FLAME_MAX_REVERSED 256

/* How to draw. A zeroed struct plus tsFrom = tsTo = PS_NULL64 is "everything, by track". */
typedef struct PsFlameOpt {
  int eGroup;                 /* PS_FLAME_MERGED / THREAD / TRACK */
  const char *zTitle;         /* the graph's title (plain text); NULL: "Flame graph" */
  int eWeight;                /* PS_FLAME_W_* */
  int64_t tsFrom, tsTo;       /* ns; PS_NULL64: open. Slices and samples overlapping
                              ** [tsFrom, tsTo) are drawn, clipped to it; jobs whose
                              ** [started, ended] overlaps it are drawn whole */
  const uint8_t *aThreadKeep; /* [nThread]: 1 draws the thread's rows (those of its own track and,
                              ** with bAsync, of the async tracks its events began); rows on CPU
                              ** tracks are then left out; NULL: every thread */
  int bAsync;                 /* 1: draw the async tracks' slices too (0: left out) */
  const void *pName;          /* a compiled regex_t (POSIX ERE): only stacks with a frame whose
                              ** name it matches; NULL: no such filter */
  const void *pExclude;       /* a compiled regex_t: stacks with a frame it matches are left out */
  int bNs;                    /* folded rows: the values are ns (drawn as ms); else counts */
  int bNormalize;             /* a differential graph: the baseline scaled to the test's total */
  int (*xInterrupt)(void*);   /* polled by work done (rows, frames, the bytes of names and
                              ** the hash tables' probes: at least every 5 ms of it, see
                              ** flame.c fl_work), not by row count: non-zero stops (PS_ERROR,
                              ** rc PS_INTERRUPT); NULL: never */
  void *pInterruptArg;
} PsFlameOpt;

/* The defaults: group by track, everything, width = inclusive time. */
void ps_flame_opt_init(PsFlameOpt *pOpt);

/* What a graph's widths measure (filled when not NULL). */
typedef struct PsFlameInfo {
  int64_t total;          /* the root's width: ns (bTime), else the count named by zUnit */
  int bTime;              /* 1: widths are ns */
  int bWeighted;          /* widths are sample weights (Chrome sample 'weight', pprof counts, ...) */
  const char *zUnit;      /* without bTime: "samples", "weight" or "calls" (static text) */
  int eSource;            /* PS_FLAME_SRC_* drawn */
  int64_t nRows;          /* source rows (slices, records, samples, jobs, folded rows) with a
                          ** part of the drawn width */
  int64_t nFrames;        /* frames drawn (at least 0.1 px wide), the root included */
} PsFlameInfo;

/* Appends a self-contained interactive SVG icicle flame graph of cap to out, with the defaults
** but eGroup and zTitle: the stacks of its samples (ext/model/stacks.h) when it has any, else its
** timer/statistics records by ParentRecordId, else its slices by parent_id, else its jobs.
** Frames merged by stack, width = inclusive time (the self time of everything below; for samples
** without durations the sample count or weight), hover = "<name> — <ms> ms (<share>%)" (or "— N
** samples" / "— N weight"), first level by eGroup. PS_OK or PS_NOMEM. */
int ps_flame_svg(const PsCapture *cap, int eGroup, const char *zTitle, PsBuf *out,
                 PsFlameInfo *pInfo, PsErr *err);

/* The same with every option. PS_OK, PS_NOMEM, or PS_ERROR (err says why: a time range on
** records that have no times, an interrupt). */
int ps_flame_svg_opt(const PsCapture *cap, const PsFlameOpt *pOpt, PsBuf *out,
                     PsFlameInfo *pInfo, PsErr *err);

/* A differential flame graph, as flamegraph.pl draws one from two folded profiles
** (difffolded.pl, then --diff): cap's graph (options o), each frame coloured by the change of its
** inclusive value against the frame reached by the same labels from the root in base's graph
** (options oBase; NULL: o's without its thread filter, whose flags are cap's threads): red where it grew,
** blue where it shrank, white unchanged, the saturation the change over the largest change of any
** frame (flamegraph.pl's color_scale: 210 * (max - |delta|) / max for the other two channels);
** a frame the baseline does not have full red. With o->bNormalize the baseline's values are
** scaled by the two totals' ratio first. Hover: "<name> — <value> (<share>), baseline <value>,
** change <+delta> (<+pct>)". Frames only the baseline has are not drawn (the width is the test's).
** PS_OK, PS_NOMEM or PS_ERROR as ps_flame_svg_opt. */
int ps_flame_svg_diff(const PsCapture *cap, const PsCapture *base, const PsFlameOpt *o, const PsFlameOpt *oBase,
                      PsBuf *out, PsFlameInfo *pInfo, PsErr *err);

/* A sandwich graph of function zFn, as speedscope's sandwich view shows it: its callers drawn
** upwards above it (each outermost occurrence's inclusive value up its chain of callers, at most
** PS_FLAME_MAX_REVERSED), its callees below it (every node under an outermost occurrence, merged
** by the labels from the function); both halves as wide as the function's inclusive value. The
** capture is read as profile_sandwich reads it (ext/model/forest.h: sampled stacks, else the
** threads' slices (o->bAsync: the async spans), else records). Options: zTitle, pName, pExclude,
** bAsync, xInterrupt. PS_OK, PS_NOMEM, PS_ERROR ("sandwich: no frame, slice or record is named
** 'x'"). */
int ps_flame_svg_sandwich(const PsCapture *cap, const char *zFn, const PsFlameOpt *o, PsBuf *out,
                          PsFlameInfo *pInfo, PsErr *err);

/* Folded stacks given row by row ("a;b;c", value): frames split at ';' (empty frames dropped),
** rows with equal stacks add up. */
typedef struct PsFlameFolded PsFlameFolded;
PsFlameFolded *ps_flame_folded_new(void);            /* NULL when out of memory */
void ps_flame_folded_free(PsFlameFolded *p);
/* The host's interrupt for the adds (NULL: none): polled by work done, as PsFlameOpt's. */
void ps_flame_folded_interrupt(PsFlameFolded *p, int (*xInterrupt)(void*), void *pArg);
/* Adds value v (>= 0) at stack z[0..n). PS_OK, PS_NOMEM, or PS_ERROR for a stack without a
** frame ("the stack has no frame") or an interrupt (err->rc PS_INTERRUPT). Frames are kept in a
** trie whose slots come from the keyed ps_hash_pair: chosen names cannot make it quadratic. */
int ps_flame_folded_add(PsFlameFolded *p, const char *z, size_t n, int64_t v, PsErr *err);
/* Draws what was added (pOpt: zTitle, eWeight DUR or SELF, pName, pExclude, bNs, xInterrupt). */
int ps_flame_folded_svg(PsFlameFolded *p, const PsFlameOpt *pOpt, PsBuf *out,
                        PsFlameInfo *pInfo, PsErr *err);
/* Draws p's rows against pBase's as ps_flame_svg_diff draws a capture against its baseline
** (pOpt's bNormalize too). Both are drawn once (their tries are taken). */
int ps_flame_folded_svg_diff(PsFlameFolded *p, PsFlameFolded *pBase, const PsFlameOpt *pOpt, PsBuf *out,
                             PsFlameInfo *pInfo, PsErr *err);

#endif
