/*
** pprof.c — placeholder for the pprof reader (being written).
*/
#include "formats.h"
#include "stacks.h"

static int pprof_probe(const char *z, size_t n){ (void)z; (void)n; return 0; }
static int pprof_parse(PsCapture *cap, PsErr *err){ (void)cap; return ps_err(err, "pprof: not yet implemented"); }
const PsFormat ps_format_pprof = { "pprof", pprof_probe, pprof_parse, 0, 0 };
