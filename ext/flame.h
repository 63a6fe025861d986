/*
** flame.h — SVG flame graphs of a capture's parent tree (flame.c), without SQLite.
*/
#ifndef PS_FLAME_H
#define PS_FLAME_H

#include "capture.h"
#include "json.h"

/* Appends a self-contained SVG icicle flame graph of cap (slices by parent_id, or timings
** records by ParentRecordId) to out: frames merged by stack, width = inclusive time (the self
** time of everything below), hover = "<name> — <ms> ms (<share>%)". bByThread puts each
** thread (timings: category) as the first level. PS_OK or PS_NOMEM. */
int ps_flame_svg(const PsCapture *cap, int bByThread, const char *zTitle, PsBuf *out, PsErr *err);

#endif
