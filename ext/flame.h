/*
** flame.h — SVG flame graphs of a capture's parent tree (flame.c), without SQLite.
*/
#ifndef PS_FLAME_H
#define PS_FLAME_H

#include "capture.h"
#include "json.h"

/* The first level of the graph (eGroup): */
#define PS_FLAME_MERGED 0   /* none: the roots themselves */
#define PS_FLAME_THREAD 1   /* one frame per thread, "process / thread"; async slices under the
                            ** thread of their first event */
#define PS_FLAME_TRACK  2   /* one frame per track: threads as above, each async track on its own
                            ** ("process / async cat=x id=0x1"), as Perfetto shows them */
/* Timings records have no threads or tracks: THREAD and TRACK both group them by category. */

/* What a graph's widths measure (ps_flame_svg fills it when not NULL). */
typedef struct PsFlameInfo {
  int64_t total;          /* the root's width: ns (bTime), else samples or summed sample weights */
  int bTime;              /* 1: widths are ns */
  int bWeighted;          /* widths are sample weights (Chrome sample 'weight', pprof counts, ...) */
} PsFlameInfo;

/* Appends a self-contained SVG icicle flame graph of cap to out: the stacks of its samples
** (ext/stacks.h) when it has any, else its timer/statistics records by ParentRecordId, else its
** slices by parent_id. Frames merged by stack, width = inclusive time (the self time of
** everything below; for samples without durations the sample count or weight), hover =
** "<name> — <ms> ms (<share>%)" (or "— N samples" / "— N weight"), first level by eGroup.
** PS_OK or PS_NOMEM. */
int ps_flame_svg(const PsCapture *cap, int eGroup, const char *zTitle, PsBuf *out,
                 PsFlameInfo *pInfo, PsErr *err);

#endif
