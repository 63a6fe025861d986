/*
** perfscript.c — placeholder for the perf_script reader (being written).
*/
#include "formats.h"
#include "stacks.h"

static int perfscript_probe(const char *z, size_t n){ (void)z; (void)n; return 0; }
static int perfscript_parse(PsCapture *cap, PsErr *err){ (void)cap; return ps_err(err, "perf_script: not yet implemented"); }
const PsFormat ps_format_perf_script = { "perf_script", perfscript_probe, perfscript_parse, 0, 0 };
