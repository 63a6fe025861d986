/*
** speedscope.c — placeholder for the speedscope reader (being written).
*/
#include "formats.h"
#include "stacks.h"

static int speedscope_probe(const char *z, size_t n){ (void)z; (void)n; return 0; }
static int speedscope_parse(PsCapture *cap, PsErr *err){ (void)cap; return ps_err(err, "speedscope: not yet implemented"); }
const PsFormat ps_format_speedscope = { "speedscope", speedscope_probe, speedscope_parse, 0, 0 };
