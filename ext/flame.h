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

/* Appends a self-contained SVG icicle flame graph of cap (slices by parent_id, or timings
** records by ParentRecordId) to out: frames merged by stack, width = inclusive time (the self
** time of everything below), hover = "<name> — <ms> ms (<share>%)", first level by eGroup.
** PS_OK or PS_NOMEM. */
int ps_flame_svg(const PsCapture *cap, int eGroup, const char *zTitle, PsBuf *out, PsErr *err);

#endif
